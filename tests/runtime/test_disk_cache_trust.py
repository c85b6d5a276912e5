"""The disk cache trusts nothing it reads: an entry that is not what was written (damaged,
truncated, forged for another key, not the expected shape) is deleted and read as a miss, so
the caller rebuilds and replaces it; writes are atomic; a folder that others could write is
refused with a warning, and a new one is made private (0700)."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path

import numpy as np
import pytest

import tilelang as ct
from tilelang.runtime import binary, build, disk_cache

CUBIN = b"\x7fELF" + bytes(range(256)) * 4
PTX = "// ptx text\n.version 8.0\n"


@ct.kernel
def double(x, y, n: ct.ScalarInt64):
    i = ct.bid(0)
    ct.store(y, (i,), ct.load(x, (i,), (64,)) * 2.0)


def entry(cache: Path, key: str = "k") -> Path:
    return cache / f"{key}.entry"


def forge(path: Path, body: bytes, payload: bytes = b"") -> None:
    """An entry whose first line carries the right digest of `body`: only the checks after the
    digest can refuse it."""
    body += b"\n"
    digest = hashlib.sha256(body).hexdigest().encode()
    first = b"tilelang-kernel %d %s\n" % (disk_cache.FORMAT, digest)
    path.parent.mkdir(mode=0o700, exist_ok=True)
    path.write_bytes(first + body + payload)
    path.chmod(0o600)  # as store's files are, whatever the umask


def good_header(key: str = "k", **changes) -> dict:
    ptx = PTX.encode()
    header = {"key": key, "meta": {"name": "k", "shared_bytes": 0}, "cubin": None,
              "ptx": [len(ptx), hashlib.sha256(ptx).hexdigest()]}
    return {**header, **changes}


def test_a_forged_entry_with_the_right_shape_is_a_hit(cache):
    """The forging helper writes what store writes (so the tests below fail only on the
    check they aim at)."""
    forge(entry(cache), json.dumps(good_header()).encode(), PTX.encode())
    assert disk_cache.load("k") == ({"name": "k", "shared_bytes": 0}, PTX, None)


@pytest.mark.parametrize("header", [
    [1, 2, 3],
    "a string",
    None,
    good_header(meta=[1]),
    good_header(meta={"shared_bytes": 0}),  # no name
    good_header(meta={"name": "k", "shared_bytes": "big"}),
    good_header(meta={"name": "k", "shared_bytes": -1}),
    good_header(meta={"name": "k", "tensor_maps": {}}),
    good_header(ptx=None),
    good_header(ptx=[1]),
    good_header(ptx=[len(PTX), "not a digest"]),
    good_header(cubin="yes"),
    {"meta": {"name": "k"}},
], ids=lambda h: json.dumps(h)[:40])
def test_a_header_of_the_wrong_shape_is_a_miss_and_deleted(cache, header):
    forge(entry(cache), json.dumps(header).encode(), PTX.encode())
    assert disk_cache.load("k") is None
    assert not entry(cache).exists()
    disk_cache.store("k", {"name": "k"}, PTX, CUBIN)  # the rebuild replaces it
    assert disk_cache.load("k") == ({"name": "k"}, None, CUBIN)


def test_an_unparsable_header_is_a_miss(cache):
    forge(entry(cache), b"{not json", PTX.encode())
    assert disk_cache.load("k") is None
    assert not entry(cache).exists()
    forge(entry(cache), b"[" * 100_000)  # deeper than the JSON parser recurses
    assert disk_cache.load("k") is None


def test_flipped_bytes_in_the_cubin_are_a_miss(cache):
    disk_cache.store("k", {"name": "k"}, PTX, CUBIN)
    data = bytearray(entry(cache).read_bytes())
    at = data.index(CUBIN) + 100
    data[at] ^= 0xFF
    entry(cache).write_bytes(bytes(data))
    assert disk_cache.load("k") is None
    assert not entry(cache).exists()


@pytest.mark.parametrize("section", ["first line", "header", "cubin"])
def test_flipped_bytes_anywhere_are_a_miss(cache, section):
    disk_cache.store("k", {"name": "k"}, PTX, CUBIN)
    data = bytearray(entry(cache).read_bytes())
    at = {"first line": 20, "header": data.index(b'"name"') + 2,
          "cubin": data.index(CUBIN) + 7}[section]
    data[at] ^= 0x01
    entry(cache).write_bytes(bytes(data))
    assert disk_cache.load("k") is None
    with pytest.raises(OSError):
        disk_cache.ptx("k")


@pytest.mark.parametrize("cubin", [CUBIN, None])
def test_flipped_bytes_in_the_ptx_are_caught_where_it_is_read(cache, cubin):
    """A hit with a cubin does not read the PTX (the cubin is what it loads); the PTX is
    checked whenever it is read."""
    disk_cache.store("k", {"name": "k"}, PTX, cubin)
    data = bytearray(entry(cache).read_bytes())
    data[data.index(PTX.encode()) + 3] ^= 0x01
    entry(cache).write_bytes(bytes(data))
    if cubin is None:
        assert disk_cache.load("k") is None
    else:
        assert disk_cache.load("k") == ({"name": "k"}, None, CUBIN)
        with pytest.raises(OSError):
            disk_cache.ptx("k")
    assert not entry(cache).exists()


@pytest.mark.parametrize("keep", [0, 10, 60, 200, -len(PTX) - 5, -len(PTX), -1])
def test_a_truncated_entry_is_a_miss(cache, keep):
    disk_cache.store("k", {"name": "k"}, PTX, CUBIN)
    data = entry(cache).read_bytes()
    entry(cache).write_bytes(data[:keep])
    assert disk_cache.load("k") is None
    with pytest.raises(OSError):
        disk_cache.ptx("k")


def test_bytes_appended_to_an_entry_are_a_miss(cache):
    disk_cache.store("k", {"name": "k"}, PTX, None)
    with open(entry(cache), "ab") as f:
        f.write(b"\x90" * 16)
    assert disk_cache.load("k") is None


def test_an_entry_under_another_key_is_a_miss(cache):
    """An intact entry copied (or renamed) to another key's file."""
    disk_cache.store("a", {"name": "k"}, PTX, CUBIN)
    entry(cache, "b").write_bytes(entry(cache, "a").read_bytes())
    assert disk_cache.load("b") is None
    assert disk_cache.load("a") == ({"name": "k"}, None, CUBIN)


@pytest.mark.parametrize("key", ["../k", "a/b", "", ".", "k\n"])
def test_keys_that_are_no_file_name_are_never_read_or_written(cache, key):
    disk_cache.store(key, {"name": "k"}, PTX, CUBIN)
    assert disk_cache.load(key) is None
    assert not cache.exists() or os.listdir(cache) == []


def built(job: build.BuildJob) -> build.Built:
    return build.build(job)


@pytest.fixture
def job(cache: Path, monkeypatch: pytest.MonkeyPatch) -> build.BuildJob:
    from tilelang import compiler

    monkeypatch.setattr(binary, "device_arch", lambda device: "sm_90")
    monkeypatch.setattr(compiler, "cubin", lambda ptx, arch, assembler: CUBIN)
    x = np.zeros(1000, np.float32)
    return build.build_job(double, double.specialize((x, x, 7)), 0)


@pytest.mark.parametrize("damage", ["unparsable header", "flipped cubin byte"])
def test_a_damaged_entry_is_rebuilt_and_replaced(cache, job, damage):
    assert built(job).source == "compiled"
    assert built(job).source == "disk"
    path = entry(cache, job.key)
    data = bytearray(path.read_bytes())
    if damage == "unparsable header":
        header, payload = bytes(data).split(b"\n", 1)[1].split(b"\n", 1)
        forge(path, b"{" + header, payload)
    else:
        data[data.index(CUBIN) + 9] ^= 0x10
        path.write_bytes(bytes(data))
    again = built(job)
    assert again.source == "compiled" and again.cubin == CUBIN
    assert built(job).source == "disk"  # repaired: later processes hit again


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o702, 0o1777])
def test_a_folder_others_can_write_is_refused(cache, mode):
    disk_cache.store("k", {"name": "k"}, PTX, CUBIN)
    os.chmod(cache, mode)
    try:
        with pytest.warns(UserWarning, match="writable by other users") as caught:
            assert disk_cache.load("k") is None  # not used, though intact
        message = str(caught[0].message)
        assert str(cache) in message and "chmod" in message
        with pytest.warns(UserWarning):
            disk_cache.store("other", {"name": "k"}, PTX, CUBIN)
        assert not entry(cache, "other").exists()
        with pytest.warns(UserWarning):
            assert not disk_cache.write_file(cache / "fast-path" / "x.bin", b"code")
        assert not (cache / "fast-path").exists()
    finally:
        os.chmod(cache, 0o700)
    assert disk_cache.load("k") == ({"name": "k"}, None, CUBIN)


def test_a_folder_of_another_user_is_refused(cache, monkeypatch):
    disk_cache.store("k", {"name": "k"}, PTX, CUBIN)
    uid = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: uid + 1)
    with pytest.warns(UserWarning, match="belongs to another user") as caught:
        assert disk_cache.load("k") is None
    assert str(cache) in str(caught[0].message)


def test_a_refused_folder_gives_no_compiler_digest(cache, tmp_path, monkeypatch):
    """A memo planted in a folder others can write does not choose the keys."""
    monkeypatch.setattr(disk_cache, "_digest", None)
    blocked = tmp_path / "a_file"
    blocked.write_text("")
    monkeypatch.setattr(disk_cache, "PACKAGE_MEMO", blocked / "pycache" / "compiler-digest.json")
    true = disk_cache._compiler_digest()
    memo = cache / "compiler-digest.json"
    planted = {**json.loads(memo.read_text()), "digest": "0" * 64}
    memo.write_text(json.dumps(planted))
    os.chmod(cache, 0o777)
    try:
        monkeypatch.setattr(disk_cache, "_digest", None)
        with pytest.warns(UserWarning, match="not used"):
            assert disk_cache._compiler_digest() == true
    finally:
        os.chmod(cache, 0o700)


@pytest.mark.parametrize("garbage", [b"[" * 100_000, b"\xff\xfe\x00", b'"a string"', b"[1]",
                                     b"{}", b"digest"])
def test_a_garbage_memo_is_replaced(cache, tmp_path, monkeypatch, garbage):
    monkeypatch.setattr(disk_cache, "_digest", None)
    monkeypatch.setattr(disk_cache, "PACKAGE_MEMO", tmp_path / "pycache" / "compiler-digest.json")
    true = disk_cache._compiler_digest()
    memo = disk_cache.PACKAGE_MEMO
    memo.write_bytes(garbage)
    monkeypatch.setattr(disk_cache, "_digest", None)
    assert disk_cache._compiler_digest() == true
    assert json.loads(memo.read_text())["digest"] == true


def test_a_memo_with_a_digest_of_the_wrong_shape_is_replaced(cache, tmp_path, monkeypatch):
    monkeypatch.setattr(disk_cache, "_digest", None)
    monkeypatch.setattr(disk_cache, "PACKAGE_MEMO", tmp_path / "pycache" / "compiler-digest.json")
    true = disk_cache._compiler_digest()
    memo = disk_cache.PACKAGE_MEMO
    for digest in (5, None, "", "x" * 64, ["a"]):
        memo.write_text(json.dumps({**json.loads(memo.read_text()), "digest": digest}))
        monkeypatch.setattr(disk_cache, "_digest", None)
        assert disk_cache._compiler_digest() == true


def test_a_new_folder_is_private(tmp_path, monkeypatch):
    root = tmp_path / "deep" / "cache"
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(root))
    monkeypatch.delenv("TILELANG_DISABLE_DISK_CACHE", raising=False)
    old = os.umask(0)  # a permissive umask does not widen it
    try:
        disk_cache.store("k", {"name": "k"}, PTX, CUBIN)
    finally:
        os.umask(old)
    assert root.stat().st_mode & 0o777 == 0o700
    assert entry(root).stat().st_mode & 0o077 == 0


def test_a_missing_folder_is_not_made_by_a_lookup(cache):
    assert disk_cache.load("k") is None
    assert not cache.exists()


def test_writes_leave_no_temporary_files(cache, monkeypatch):
    for i in range(3):
        disk_cache.store("k", {"name": f"k{i}"}, PTX, CUBIN)
    assert disk_cache.write_file(cache / "fast-path" / "x.bin", b"code")
    assert sorted(os.listdir(cache)) == ["fast-path", "k.entry"]
    assert os.listdir(cache / "fast-path") == ["x.bin"]

    def fail(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    disk_cache.store("new", {"name": "k"}, PTX, CUBIN)
    assert not disk_cache.write_file(cache / "fast-path" / "y.bin", b"code")
    assert sorted(os.listdir(cache)) == ["fast-path", "k.entry"]
    assert os.listdir(cache / "fast-path") == ["x.bin"]
    assert disk_cache.load("k") == ({"name": "k2"}, None, CUBIN)


def test_concurrent_writers_never_give_a_partial_read(cache):
    """Writers replace one entry with large versions of their own while readers read it: every
    read is one whole version, and none is a miss once the entry exists."""
    versions = [({"name": f"k{i}"}, None, bytes([i]) * 3_000_000 + CUBIN) for i in range(4)]
    disk_cache.store("k", versions[0][0], PTX, versions[0][2])
    stop = threading.Event()
    seen: list = []
    errors: list = []

    def write(version) -> None:
        for _ in range(15):
            disk_cache.store("k", version[0], PTX, version[2])

    def read() -> None:
        try:
            while not stop.is_set():
                found = disk_cache.load("k")
                seen.append(versions.index(found) if found in versions else repr(found)[:80])
        except Exception as e:  # pragma: no cover - a failure is the assertion below
            errors.append(e)

    readers = [threading.Thread(target=read) for _ in range(2)]
    writers = [threading.Thread(target=write, args=(v,)) for v in versions]
    for t in readers + writers:
        t.start()
    for t in writers:
        t.join()
    stop.set()
    for t in readers:
        t.join()
    assert errors == []
    assert seen and all(isinstance(found, int) for found in seen), seen
    assert os.listdir(cache) == ["k.entry"]
    assert disk_cache.load("k") in versions


@pytest.mark.parametrize("mode", [0o666, 0o646])
def test_an_entry_others_could_write_is_a_miss_and_deleted(cache, mode):
    """Digests are no signature (anyone can compute them): an entry that another user could
    have written, left from before the folder was private, is never read."""
    disk_cache.store("k", {"name": "k"}, PTX, CUBIN)
    assert disk_cache.load("k") is not None
    entry(cache).chmod(mode)
    assert disk_cache.load("k") is None
    assert not entry(cache).exists()


def test_an_entry_of_another_user_is_a_miss(cache, monkeypatch):
    disk_cache.store("k", {"name": "k"}, PTX, CUBIN)
    real = disk_cache.owned_privately
    folder = os.stat(cache)
    monkeypatch.setattr(disk_cache, "owned_privately",
                        lambda found: real(found) and found.st_ino == folder.st_ino)
    assert disk_cache.load("k") is None
