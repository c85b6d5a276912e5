"""Runtime: the on-disk kernel cache (PTX and cubin per source, signature, arch and compiler)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

from tilelang import settings

FORMAT = 1


def _versions() -> str:
    found = []
    for package in ("tilelang", "xtc-mlir-python-bindings"):
        try:
            found.append(f"{package}={metadata.version(package)}")
        except metadata.PackageNotFoundError:
            found.append(f"{package}=?")
    return ",".join(found)


def cache_key(*parts: Any) -> str:
    """A key over the parts (their reprs) plus the compiler's own code and versions."""
    h = hashlib.sha256(f"{FORMAT}|{_versions()}|{_compiler_digest()}".encode())
    for part in parts:
        h.update(b"|" + repr(part).encode())
    return h.hexdigest()[:32]


_digest: str | None = None


def _compiler_digest() -> str:
    """Hash of tilelang's own sources: any compiler change invalidates the cache."""
    global _digest
    if _digest is None:
        root = Path(__file__).resolve().parent.parent
        h = hashlib.sha256()
        for path in sorted(root.rglob("*.py")):
            h.update(path.read_bytes())
        dialect = root.parent / "dialect" / "tile.irdl.mlir"
        if dialect.exists():
            h.update(dialect.read_bytes())
        _digest = h.hexdigest()
    return _digest


def load(key: str) -> tuple[dict[str, Any], str, bytes | None] | None:
    if not settings.disk_cache_enabled():
        return None
    folder = settings.cache_dir() / key
    try:
        meta = json.loads((folder / "meta.json").read_text())
        ptx = (folder / "kernel.ptx").read_text()
        cubin_path = folder / "kernel.cubin"
        cubin = cubin_path.read_bytes() if cubin_path.exists() else None
    except (OSError, ValueError):
        return None
    return meta, ptx, cubin


def store(key: str, meta: dict[str, Any], ptx: str, cubin: bytes | None) -> None:
    """Write atomically (a temporary folder renamed into place) so readers never see halves."""
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
