"""The disk cache's compiler digest: a hash of every compiler source, remembered next to the
sources' bytecode (else in the cache folder) under their sizes and modification times, and
recomputed when one changes; and the entries' reading."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tilelang.runtime import disk_cache


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A process that has not computed the digest yet, with its cache and the package's memo
    in tmp_path; one more source file (a copy of disk_cache.py) that tests may change."""
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TILELANG_DISABLE_DISK_CACHE", raising=False)
    monkeypatch.setattr(disk_cache, "_digest", None)
    monkeypatch.setattr(disk_cache, "PACKAGE_MEMO", tmp_path / "pycache" / "compiler-digest.json")
    extra = tmp_path / "extra.py"
    extra.write_text(Path(disk_cache.__file__).read_text())
    sources = disk_cache._sources()
    monkeypatch.setattr(disk_cache, "_sources", lambda: [*sources, str(extra)])
    return extra


def contents_read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts how often the sources are read (the digest computed from them)."""
    calls: list[int] = []
    compute = disk_cache._content_digest

    def counted(sources: list[str]) -> str:
        calls.append(1)
        return compute(sources)

    monkeypatch.setattr(disk_cache, "_content_digest", counted)
    return calls


def recompute() -> str:
    disk_cache._digest = None  # a new process
    return disk_cache._compiler_digest()


def test_the_digest_is_read_back_while_no_source_changes(fresh, monkeypatch):
    first = disk_cache._compiler_digest()
    assert first == disk_cache._content_digest(disk_cache._sources())
    memo = json.loads(disk_cache.PACKAGE_MEMO.read_text())
    assert memo["digest"] == first
    reads = contents_read(monkeypatch)
    assert recompute() == first
    assert reads == []


def test_a_new_cache_folder_reads_the_package_memo(fresh, tmp_path, monkeypatch):
    """The memo lives next to the sources: a process with another (empty) cache folder does
    not read the sources again."""
    first = disk_cache._compiler_digest()
    reads = contents_read(monkeypatch)
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(tmp_path / "another-cache"))
    assert recompute() == first and reads == []


def test_the_cache_folder_holds_the_memo_where_the_package_is_read_only(fresh, tmp_path,
                                                                       monkeypatch):
    blocked = tmp_path / "a_file"
    blocked.write_text("")
    monkeypatch.setattr(disk_cache, "PACKAGE_MEMO", blocked / "pycache" / "compiler-digest.json")
    first = disk_cache._compiler_digest()
    memo = Path(os.environ["TILELANG_CACHE_DIR"]) / "compiler-digest.json"
    assert json.loads(memo.read_text())["digest"] == first
    reads = contents_read(monkeypatch)
    assert recompute() == first and reads == []


def test_a_changed_source_changes_the_digest(fresh, monkeypatch):
    first = disk_cache._compiler_digest()
    reads = contents_read(monkeypatch)
    fresh.write_text(fresh.read_text() + "\n# changed\n")
    second = recompute()
    assert reads == [1] and second != first
    assert recompute() == second and reads == [1]  # remembered again


def test_same_size_and_a_new_time_is_read_again(fresh, monkeypatch):
    disk_cache._compiler_digest()
    reads = contents_read(monkeypatch)
    stat = fresh.stat()
    os.utime(fresh, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    recompute()
    assert reads == [1]


def test_a_reinstalled_mlir_binding_is_noticed(fresh, tmp_path, monkeypatch):
    bindings = tmp_path / "mlir_init.py"
    bindings.write_text("# the bindings\n")
    monkeypatch.setattr(disk_cache, "_bindings", lambda: str(bindings))
    disk_cache._compiler_digest()
    reads = contents_read(monkeypatch)
    bindings.write_text("# the bindings, another version\n")
    recompute()
    assert reads == [1]


@pytest.mark.parametrize("text", ["not json", '{"stamp": 1}', '{"stamp": "x", "digest": "y"}'])
def test_a_damaged_memo_is_replaced(fresh, monkeypatch, text):
    good = disk_cache._compiler_digest()
    memo = disk_cache.PACKAGE_MEMO
    memo.write_text(text)
    assert recompute() == good
    assert json.loads(memo.read_text())["digest"] == good


def test_no_memo_without_a_writable_cache(fresh, tmp_path, monkeypatch):
    blocked = tmp_path / "a_file"
    blocked.write_text("")
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(blocked / "cache"))  # under a file: unwritable
    assert recompute() == disk_cache._content_digest(disk_cache._sources())
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(tmp_path / "off"))
    monkeypatch.setenv("TILELANG_DISABLE_DISK_CACHE", "1")
    recompute()
    assert not (tmp_path / "off").exists()


def test_keys_follow_the_digest(fresh):
    key = disk_cache.cache_key("kernel", 1)
    assert key == disk_cache.cache_key("kernel", 1) != disk_cache.cache_key("kernel", 2)
    fresh.write_text(fresh.read_text() + "\n# changed\n")
    recompute()
    assert disk_cache.cache_key("kernel", 1) != key


def test_a_hit_with_a_cubin_leaves_the_ptx_unread(fresh):
    disk_cache.store("with-cubin", {"name": "k"}, "// ptx text", b"\x7fELF cubin")
    assert disk_cache.load("with-cubin") == ({"name": "k"}, None, b"\x7fELF cubin")
    assert disk_cache.ptx("with-cubin") == "// ptx text"


def test_an_entry_without_a_cubin_gives_its_ptx(fresh):
    disk_cache.store("ptx-only", {"name": "k"}, "// ptx text", None)
    assert disk_cache.load("ptx-only") == ({"name": "k"}, "// ptx text", None)


@pytest.mark.parametrize("damage", ["header", "ptx"])
def test_a_damaged_or_partial_entry_is_a_miss(fresh, damage):
    disk_cache.store("entry", {"name": "k"}, "// ptx text", None)
    entry = Path(os.environ["TILELANG_CACHE_DIR"]) / "entry.entry"
    data = entry.read_bytes()
    if damage == "header":
        entry.write_bytes(data.replace(b'"name"', b'"nome"'))
    else:
        entry.write_bytes(data[:-3])
    assert disk_cache.load("entry") is None
    assert disk_cache.load("no-such-entry") is None
