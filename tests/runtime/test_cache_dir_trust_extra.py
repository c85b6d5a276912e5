"""The other users of the cache folder trust it as the kernel cache does: the C launcher
(`native/`), the generated fast paths' code (`fast-path/`) and `autotune.json` are neither read
nor written in a folder others can write; what is read must be the user's own file; the
launcher module and the fast-path code must match the sha256 written with them, or they are
built again (never loaded); a malformed `autotune.json` is ignored."""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import stat
from pathlib import Path

import pytest

from tilelang.runtime import fast_path, native_launch
from tilelang.tune import records

BUILT = b"the module the compiler built"
EVIL = b"a module someone else put there"


def open_to_others(path: Path) -> None:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path, 0o777)


# --- native/: the C launcher -------------------------------------------------------------

@pytest.fixture
def builds(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake C compiler writing BUILT (one line in the returned log a build), and a fake
    loader: `_build_and_load()` returns ("loaded", the bytes of the file it would load)."""
    log = tmp_path / "compiler.log"
    compiler = tmp_path / "fake-cc"
    compiler.write_text(f'#!/bin/sh\necho build >> "{log}"\n'
                        'while [ "$1" != "-o" ]; do shift; done\n'
                        f"printf '%s' '{BUILT.decode()}' > \"$2\"\n")
    compiler.chmod(0o755)
    monkeypatch.setenv("CC", str(compiler))
    monkeypatch.delenv("TILELANG_NO_NATIVE_LAUNCH", raising=False)
    monkeypatch.setattr(native_launch, "_load", lambda target: ("loaded", target.read_bytes()))
    return log


def build_count(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def module_path(cache: Path) -> Path:
    (module,) = [p for p in (cache / "native").glob("*/_tilelang_launch*")
                 if not p.name.endswith(".sha256")]
    return module


def sealed(path: Path, data: bytes) -> None:
    """A module with a matching sha256 next to it: only the owner and mode checks refuse it."""
    path.write_bytes(data)
    path.with_name(path.name + ".sha256").write_text(hashlib.sha256(data).hexdigest())


def test_the_launcher_is_built_once_and_then_loaded(cache, builds):
    assert native_launch._build_and_load() == ("loaded", BUILT)
    assert native_launch._build_and_load() == ("loaded", BUILT)
    assert build_count(builds) == 1
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    assert stat.S_IMODE((cache / "native").stat().st_mode) == 0o700


def test_the_launcher_is_built_even_when_the_disk_cache_is_off(cache, builds, monkeypatch):
    monkeypatch.setenv("TILELANG_DISABLE_DISK_CACHE", "1")
    assert native_launch._build_and_load() == ("loaded", BUILT)
    assert build_count(builds) == 1


@pytest.mark.parametrize("disk_cache_off", [False, True])
def test_no_launcher_in_a_folder_others_can_write(cache, builds, monkeypatch, disk_cache_off):
    if disk_cache_off:
        monkeypatch.setenv("TILELANG_DISABLE_DISK_CACHE", "1")
    open_to_others(cache)
    with pytest.warns(UserWarning, match="writable by other users"):
        assert native_launch._build_and_load() is None
    assert build_count(builds) == 0 and not (cache / "native").exists()


def test_a_planted_module_in_an_open_native_folder_is_not_loaded(cache, builds):
    """`chmod go-w` on the cache folder leaves a `native/` that others could write."""
    native_launch._build_and_load()
    target = module_path(cache)
    sealed(target, EVIL)
    os.chmod(cache / "native", 0o777)
    with pytest.warns(UserWarning, match="not a folder of your own"):
        assert native_launch._build_and_load() is None
    os.chmod(cache / "native", 0o700)
    os.chmod(target.parent, 0o757)
    with pytest.warns(UserWarning, match="not a folder of your own"):
        assert native_launch._build_and_load() is None
    assert build_count(builds) == 1


@pytest.mark.parametrize("damage", ["flipped byte", "truncated", "appended", "no seal",
                                    "empty seal", "seal of another file", "module others can write",
                                    "seal others can write"])
def test_a_module_that_is_not_the_one_built_is_built_again(cache, builds, damage):
    native_launch._build_and_load()
    target = module_path(cache)
    seal = target.with_name(target.name + ".sha256")
    if damage == "flipped byte":
        target.write_bytes(bytes([BUILT[0] ^ 1]) + BUILT[1:])
    elif damage == "truncated":
        target.write_bytes(BUILT[:5])
    elif damage == "appended":
        target.write_bytes(BUILT + b"\x90")
    elif damage == "no seal":
        target.write_bytes(EVIL)
        seal.unlink()
    elif damage == "empty seal":
        seal.write_text("")
    elif damage == "seal of another file":
        seal.write_text(hashlib.sha256(EVIL).hexdigest())
    elif damage == "module others can write":
        sealed(target, EVIL)
        os.chmod(target, 0o666)
    else:
        sealed(target, EVIL)
        os.chmod(seal, 0o666)
    assert native_launch._build_and_load() == ("loaded", BUILT)
    assert build_count(builds) == 2
    assert native_launch._build_and_load() == ("loaded", BUILT)  # repaired
    assert build_count(builds) == 2


def test_a_group_writable_umask_does_not_make_the_build_refuse_itself(cache, builds):
    old = os.umask(0o002)
    try:
        assert native_launch._build_and_load() == ("loaded", BUILT)
        assert native_launch._build_and_load() == ("loaded", BUILT)
    finally:
        os.umask(old)
    assert build_count(builds) == 1


# --- fast-path/: the generated code ------------------------------------------------------

SOURCE = "x = 1\n"
NAME = "<tilelang fast launch of test>"


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    compiled: list[str] = []

    def counting(source, filename, mode):
        compiled.append(source)
        return compile(source, filename, mode)

    monkeypatch.setattr(fast_path, "compile", counting, raising=False)
    return compiled


def run(code) -> int:
    namespace: dict = {}
    exec(code, namespace)
    return namespace["x"]


def stored_code(cache: Path) -> Path:
    (path,) = (cache / "fast-path").iterdir()
    return path


def forge_code(path: Path, source: str, key: str | None = None) -> None:
    """A file with the right digest for `key` (the file's own by default) of other code."""
    data = marshal.dumps(compile(source, NAME, "exec"))
    seal = hashlib.sha256(f"{key or path.stem}\n".encode() + data).hexdigest().encode()
    path.write_bytes(seal + b"\n" + data)


def test_a_forged_file_with_the_right_digest_is_read(cache, compiles):
    """The forging helper writes what the cache writes (so the tests below fail only on the
    check they aim at)."""
    fast_path._compiled(SOURCE, NAME)
    forge_code(stored_code(cache), "x = 2\n")
    assert run(fast_path._compiled(SOURCE, NAME)) == 2
    assert compiles == [SOURCE]


def test_no_code_is_read_or_written_in_a_folder_others_can_write(cache, compiles):
    fast_path._compiled(SOURCE, NAME)
    path = stored_code(cache)
    forge_code(path, "x = 2\n")
    forged = path.read_bytes()
    os.chmod(cache, 0o777)
    with pytest.warns(UserWarning, match="writable by other users"):
        assert run(fast_path._compiled(SOURCE, NAME)) == 1
    assert compiles == [SOURCE, SOURCE] and path.read_bytes() == forged
    with pytest.warns(UserWarning):
        fast_path._compiled("x = 3\n", NAME)
    assert os.listdir(cache / "fast-path") == [path.name]


@pytest.mark.parametrize("damage", ["flipped byte", "truncated", "appended", "no digest",
                                    "digest of another key", "file others can write",
                                    "not code"])
def test_code_that_does_not_check_out_is_compiled_again(cache, compiles, damage):
    fast_path._compiled(SOURCE, NAME)
    path = stored_code(cache)
    good = path.read_bytes()
    if damage == "flipped byte":
        data = bytearray(good)
        data[-3] ^= 0x01
        path.write_bytes(bytes(data))
    elif damage == "truncated":
        path.write_bytes(good[:-4])
    elif damage == "appended":
        path.write_bytes(good + b"\x00")
    elif damage == "no digest":
        path.write_bytes(marshal.dumps(compile("x = 2\n", NAME, "exec")))
    elif damage == "digest of another key":
        forge_code(path, "x = 2\n", key="0" * 32)
    elif damage == "file others can write":
        forge_code(path, "x = 2\n")
        os.chmod(path, 0o666)
    else:  # a string would be compiled by exec: only code objects are taken
        data = marshal.dumps("x = 2\n")
        path.write_bytes(hashlib.sha256(f"{path.stem}\n".encode() + data).hexdigest().encode()
                         + b"\n" + data)
    assert run(fast_path._compiled(SOURCE, NAME)) == 1
    assert compiles == [SOURCE, SOURCE]
    assert path.read_bytes() == good  # replaced
    assert run(fast_path._compiled(SOURCE, NAME)) == 1
    assert compiles == [SOURCE, SOURCE]


# --- autotune.json -----------------------------------------------------------------------

ENTRY = {"config": {"kwargs": {"BLOCK": 64}, "hints": {}}, "median_us": 1.0}


def test_no_record_is_read_or_written_in_a_folder_others_can_write(cache):
    records.store("m.k", "fp", "GPU", "[1]", ENTRY)
    assert records.lookup("m.k", "fp", "GPU", "[1]") == ENTRY
    before = records.path().read_bytes()
    os.chmod(cache, 0o777)
    try:
        with pytest.warns(UserWarning, match="writable by other users"):
            assert records.lookup("m.k", "fp", "GPU", "[1]") is None
        with pytest.warns(UserWarning):
            records.store("m.k", "fp", "GPU", "[2]", ENTRY)
        assert records.path().read_bytes() == before
    finally:
        os.chmod(cache, 0o700)
    assert records.lookup("m.k", "fp", "GPU", "[1]") == ENTRY


def test_a_record_file_others_can_write_is_not_read(cache):
    records.store("m.k", "fp", "GPU", "[1]", ENTRY)
    os.chmod(records.path(), 0o666)
    assert records.lookup("m.k", "fp", "GPU", "[1]") is None


@pytest.mark.parametrize("content", [
    [1, 2], "a string", 5, None,
    {"format": 1, "kernels": []},
    {"format": 1, "kernels": {"m.k": []}},
    {"format": 1, "kernels": {"m.k": {"fingerprint": "fp", "devices": []}}},
    {"format": 1, "kernels": {"m.k": {"fingerprint": "fp", "devices": {"GPU": []}}}},
    {"format": 1, "kernels": {"m.k": {"fingerprint": "fp", "devices": {"GPU": {"[1]": 7}}}}},
    {"format": 1, "kernels": {"m.k": {"fingerprint": "fp"}}},
    {"format": "1", "kernels": {}},
])
def test_a_malformed_record_file_is_ignored(cache, content):
    records.store("m.other", "fp", "GPU", "[1]", ENTRY)
    records.path().write_text(json.dumps(content))
    assert records.lookup("m.k", "fp", "GPU", "[1]") is None
    records.store("m.k", "fp", "GPU", "[1]", ENTRY)
    assert records.lookup("m.k", "fp", "GPU", "[1]") == ENTRY


@pytest.mark.parametrize("garbage", [b"[" * 100_000, b"\xff\xfe\x00", b"{not json"])
def test_an_unparsable_record_file_is_ignored(cache, garbage):
    records.store("m.other", "fp", "GPU", "[1]", ENTRY)
    records.path().write_bytes(garbage)
    assert records.lookup("m.other", "fp", "GPU", "[1]") is None
    records.store("m.k", "fp", "GPU", "[1]", ENTRY)
    assert records.lookup("m.k", "fp", "GPU", "[1]") == ENTRY


def test_a_store_keeps_the_well_formed_parts(cache):
    records.store("m.other", "fp", "GPU", "[1]", ENTRY)
    data = json.loads(records.path().read_text())
    data["kernels"]["m.k"] = {"fingerprint": "fp", "devices": {"GPU": "not an object"}}
    records.path().write_text(json.dumps(data))
    records.store("m.k", "fp", "GPU", "[1]", ENTRY)
    assert records.lookup("m.k", "fp", "GPU", "[1]") == ENTRY
    assert records.lookup("m.other", "fp", "GPU", "[1]") == ENTRY
