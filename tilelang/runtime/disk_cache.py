"""Runtime: the on-disk kernel cache (PTX and cubin per source, signature, arch and compiler)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from tilelang import settings

FORMAT = 2
_TILELANG = Path(__file__).resolve().parent.parent
_DIALECT = _TILELANG.parent / "dialect" / "tile.irdl.mlir"
PACKAGE_MEMO = _TILELANG / "__pycache__" / "compiler-digest.json"


def cache_key(*parts: Any) -> str:
    """A key over the parts (their reprs) plus the compiler's own code and versions."""
    h = hashlib.sha256(_compiler_digest().encode())
    for part in parts:
        h.update(b"|" + repr(part).encode())
    return h.hexdigest()[:32]


_digest: str | None = None


def _compiler_digest() -> str:
    """A hash of the cache format, the versions of tilelang and the MLIR bindings, and every
    compiler source (tilelang's .py files, the dialect): any compiler change invalidates the
    cache. Reading them all takes milliseconds, so the hash is remembered under their sizes and
    modification times (as Python trusts its .pyc files) and read back while those stay the
    same: next to the sources' bytecode (so that a new cache folder does not read them again),
    or in the cache folder where that cannot be written."""
    global _digest
    if _digest is None:
        sources = _sources()
        stamp = _stamp([*sources, _bindings()])
        memos = [PACKAGE_MEMO, settings.cache_dir() / "compiler-digest.json"]
        for memo in memos:
            try:
                remembered = json.loads(memo.read_bytes())
            except (OSError, ValueError):
                continue
            if isinstance(remembered, dict) and remembered.get("stamp") == stamp and \
                    isinstance(remembered.get("digest"), str):
                _digest = remembered["digest"]
                break
        else:
            _digest = _content_digest(sources)
            data = json.dumps({"stamp": stamp, "digest": _digest}).encode()
            any(write_file(memo, data) for memo in memos)  # the first place that takes it
    return _digest


def _sources() -> list[str]:
    found = _python_files(str(_TILELANG), [])
    return [*found, str(_DIALECT)] if _DIALECT.exists() else found


def _python_files(folder: str, found: list[str]) -> list[str]:
    """The .py files under `folder`, sorted, each folder's before its subfolders' (os.scandir
    says which entries are folders without a stat each: a third of os.walk's time)."""
    with os.scandir(folder) as entries:
        ordered = sorted(entries, key=lambda e: e.name)
    found += [e.path for e in ordered if e.name.endswith(".py")]
    for e in ordered:
        if e.name != "__pycache__" and not e.name.endswith(".py") and e.is_dir():
            _python_files(e.path, found)
    return found


def _bindings() -> str:
    """The MLIR bindings' package file, found without importing them (its stat in the stamp
    tells an upgrade)."""
    import importlib.util

    spec = importlib.util.find_spec("mlir")
    return (spec.origin or next(iter(spec.submodule_search_locations or ()), "")) if spec else ""


def _stamp(paths: list[str]) -> str:
    parts = [f"{FORMAT}"]
    for path in paths:
        try:
            s = os.stat(path)
            parts.append(f"{path}:{s.st_size}:{s.st_mtime_ns}")
        except OSError:
            parts.append(f"{path}:-")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


def _content_digest(sources: list[str]) -> str:
    h = hashlib.sha256(f"{FORMAT}|{_versions()}".encode())
    for path in sources:
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def _versions() -> str:
    from importlib import metadata  # tens of ms to import: only when the sources changed

    found = []
    for package in ("tilelang", "xtc-mlir-python-bindings"):
        try:
            found.append(f"{package}={metadata.version(package)}")
        except metadata.PackageNotFoundError:
            found.append(f"{package}=?")
    return ",".join(found)


def load(key: str) -> tuple[dict[str, Any], str | None, bytes | None] | None:
    """(meta, PTX, cubin) of an entry, or None. The PTX is read only when there is no cubin
    (None otherwise: a hit loads the cubin, and the PTX of a large kernel is most of the
    entry); `ptx(key)` reads it."""
    if not settings.disk_cache_enabled():
        return None
    folder = os.path.join(settings.cache_dir(), key)
    try:
        with open(os.path.join(folder, "meta.json"), "rb") as f:
            meta = json.loads(f.read())
        try:
            with open(os.path.join(folder, "kernel.cubin"), "rb") as f:
                return meta, None, f.read()
        except FileNotFoundError:
            return meta, ptx(key), None
    except (OSError, ValueError):
        return None


def ptx(key: str) -> str:
    """The PTX of an entry (OSError if there is none)."""
    with open(os.path.join(settings.cache_dir(), key, "kernel.ptx"), encoding="utf-8") as f:
        return f.read()


def store(key: str, meta: dict[str, Any], ptx: str, cubin: bytes | None) -> None:
    """Write atomically (a temporary folder renamed into place) so readers never see halves."""
    import shutil
    import tempfile

    if not settings.disk_cache_enabled():
        return
    root = settings.cache_dir()
    tmp = None
    try:
        root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=root, prefix=".tmp-"))
        (tmp / "meta.json").write_text(json.dumps(meta))
        (tmp / "kernel.ptx").write_text(ptx)
        if cubin:
            (tmp / "kernel.cubin").write_bytes(cubin)
        os.replace(tmp, root / key)
    except OSError:  # a cache that cannot be written is only slower (or another process won)
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def write_file(path: Path, data: bytes) -> bool:
    """Write a small file atomically; False where it cannot be written (or the disk cache is
    off)."""
    import tempfile

    if not settings.disk_cache_enabled():
        return False
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        with os.fdopen(handle, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        return True
    except OSError:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        return False
