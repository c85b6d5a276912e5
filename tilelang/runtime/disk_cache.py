"""Runtime: the on-disk kernel cache (PTX and cubin per source, signature, arch and compiler).

An entry is one file, `<key>.entry`, replaced atomically: a line `tilelang-kernel <FORMAT>
<sha256 of the header>`, the header (one line of JSON: the key, the metadata, and the size and
sha256 of the cubin and of the PTX), then the cubin and the PTX. An entry that does not check
out is deleted and read as a miss. The folder is used only while it is private to the user."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import warnings
from pathlib import Path
from typing import Any, BinaryIO

from tilelang import settings

FORMAT = 3
MAGIC = b"tilelang-kernel"
SUFFIX = ".entry"
_TILELANG = Path(__file__).resolve().parent.parent
_DIALECT = _TILELANG.parent / "dialect" / "tile.irdl.mlir"
PACKAGE_MEMO = _TILELANG / "__pycache__" / "compiler-digest.json"
MEMO = "compiler-digest.json"
_HEADER_LIMIT = 1 << 20
_KEY_CHARS = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-")
_HEX = frozenset("0123456789abcdef")
_META_TYPES: dict[str, type | tuple[type, ...]] = {
    "name": str, "arch": str, "num_warps": int, "shared_bytes": int,
    "block_threads": (int, type(None)), "tensor_maps": list}


def cache_key(*parts: object) -> str:
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
        memos = [PACKAGE_MEMO, settings.cache_dir() / MEMO]
        readable = memos if trusted_dir() is not None else memos[:1]
        _digest = next(filter(None, (_remembered(memo, stamp) for memo in readable)), None)
        if _digest is None:
            _digest = _content_digest(sources)
            data = json.dumps({"stamp": stamp, "digest": _digest}).encode()
            any(write_file(memo, data) for memo in memos)  # the first place that takes it
    return _digest


def _remembered(memo: Path, stamp: str) -> str | None:
    """The digest a memo holds for this stamp; None where it is missing, stale or garbage."""
    try:
        remembered = json.loads(memo.read_bytes())
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(remembered, dict) or remembered.get("stamp") != stamp:
        return None
    digest = remembered.get("digest")
    return digest if _is_sha256(digest) else None


def _is_sha256(value: object) -> bool:
    return isinstance(value, str) and len(value) == 64 and _HEX.issuperset(value)


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


def trusted_dir(create: bool = False) -> Path | None:
    """The cache folder where it may be used: None where the disk cache is off, the folder is
    missing (and not `create`) or cannot be made, or it is not private to this user (another
    user's, or writable by others: they could put code into this user's kernels), which a
    warning names with its fix. `create` makes a missing folder, mode 0700."""
    return private_dir(create) if settings.disk_cache_enabled() else None


def private_dir(create: bool = False) -> Path | None:
    """`trusted_dir` whether or not the disk cache is on (the C launcher is built in the cache
    folder either way)."""
    root = settings.cache_dir()
    if create and _make_private(root):
        return root
    try:
        found = os.stat(root)
    except OSError:
        return None
    return root if stat.S_ISDIR(found.st_mode) and _private(root, found) else None


def _make_private(root: Path) -> bool:
    """Create the folder, mode 0700; False where it exists already or cannot be made."""
    try:
        root.parent.mkdir(parents=True, exist_ok=True)
        root.mkdir(mode=0o700)  # a umask only takes bits away
    except OSError:
        return False
    return True


def owned_privately(found: os.stat_result) -> bool:
    """Whether a file or folder (its stat) is this user's and not writable by others: in a
    private cache folder, one made before the folder was private (by whoever could write it
    then) is not."""
    if not hasattr(os, "getuid"):  # no POSIX owners and modes (Windows)
        return True
    return found.st_uid == os.getuid() and not found.st_mode & 0o022


def _private(root: Path, found: os.stat_result) -> bool:
    if not hasattr(os, "getuid"):  # no POSIX owners and modes (Windows)
        return True
    if found.st_uid != os.getuid():
        problem = f"belongs to another user (uid {found.st_uid})"
        fix = f"`chown -R $USER {root}`, or set TILELANG_CACHE_DIR to a folder of your own"
    elif found.st_mode & 0o022:
        problem = f"is writable by other users (mode {stat.S_IMODE(found.st_mode):o})"
        fix = f"`chmod go-w {root}` (or `chmod 700 {root}`)"
    else:
        return True
    warnings.warn(f"tilelang: the kernel cache folder {root} {problem}, so whoever can write "
                  "it could put code into your kernels; it is not used, and kernels compile "
                  f"without caching. To fix it: {fix} (or set TILELANG_DISABLE_DISK_CACHE=1).",
                  stacklevel=2)
    return False


def load(key: str) -> tuple[dict[str, Any], str | None, bytes | None] | None:
    """(meta, PTX, cubin) of an entry, or None. The PTX is read only when there is no cubin
    (None otherwise: a hit loads the cubin, and the PTX of a large kernel is most of the
    entry); `ptx(key)` reads it. A damaged entry is deleted and is a miss."""
    return _read(key, want_ptx=False)


def ptx(key: str) -> str:
    """The PTX of an entry (OSError if there is none, or it is damaged)."""
    found = _read(key, want_ptx=True)
    if found is None or found[1] is None:
        raise FileNotFoundError(f"no intact disk-cache entry {key!r}")
    return found[1]


class _Damaged(Exception):
    """An entry that does not check out: deleted, and read as a miss."""


def _read(key: str, want_ptx: bool) -> tuple[dict[str, Any], str | None, bytes | None] | None:
    root = trusted_dir()
    if root is None or not _valid_key(key):
        return None
    path = root / (key + SUFFIX)
    try:
        with open(path, "rb") as f:
            found = os.fstat(f.fileno())
            if not owned_privately(found):  # planted before the folder was private: its
                _discard(path, found)  # digests prove nothing, whoever wrote it can make them
                return None
            try:
                return _entry(f, key, found.st_size, want_ptx)
            except _Damaged:
                _discard(path, found)
    except OSError:
        pass
    return None


def _valid_key(key: object) -> bool:
    return isinstance(key, str) and 0 < len(key) <= 128 and _KEY_CHARS.issuperset(key)


def _entry(f: BinaryIO, key: str, size: int,
           want_ptx: bool) -> tuple[dict[str, Any], str | None, bytes | None]:
    first = f.readline(200)
    body = f.readline(_HEADER_LIMIT)
    header = _header(key, first, body)
    cubin_seal, ptx_seal = header["cubin"], header["ptx"]
    ptx_at = len(first) + len(body) + (cubin_seal[0] if cubin_seal else 0)
    if size != ptx_at + ptx_seal[0]:  # truncated, or something appended
        raise _Damaged
    cubin = _section(f, cubin_seal) if cubin_seal else None
    text = None
    if cubin is None or want_ptx:
        f.seek(ptx_at)
        try:
            text = _section(f, ptx_seal).decode()
        except UnicodeDecodeError:
            raise _Damaged from None
    return header["meta"], text, cubin


def _header(key: str, first: bytes, body: bytes) -> dict[str, Any]:
    """The header, checked against its digest, the key and its schema."""
    if first != b"%s %d %s\n" % (MAGIC, FORMAT, hashlib.sha256(body).hexdigest().encode()) \
            or not body.endswith(b"\n"):
        raise _Damaged
    try:
        header = json.loads(body)
    except (ValueError, RecursionError):
        raise _Damaged from None
    if not isinstance(header, dict) or header.get("key") != key or \
            not _valid_meta(header.get("meta")) or not _valid_seal(header.get("ptx")) or \
            not (header.get("cubin") is None or _valid_seal(header.get("cubin"))):
        raise _Damaged
    return header


def _valid_meta(meta: object) -> bool:
    if not isinstance(meta, dict) or not isinstance(meta.get("name"), str):
        return False
    return all(_fits(meta[name], kind) for name, kind in _META_TYPES.items() if name in meta)


def _fits(value: object, kind: type | tuple[type, ...]) -> bool:
    """A known metadata field's type (no bools for ints, no negative ints)."""
    if isinstance(value, bool) or not isinstance(value, kind):
        return False
    return not isinstance(value, int) or value >= 0


def _valid_seal(seal: object) -> bool:
    """[size, sha256] of a section."""
    return isinstance(seal, list) and len(seal) == 2 and type(seal[0]) is int and \
        seal[0] >= 0 and _is_sha256(seal[1])


def _seal(data: bytes) -> list[Any]:
    return [len(data), hashlib.sha256(data).hexdigest()]


def _section(f: BinaryIO, seal: list[Any]) -> bytes:
    data = f.read(seal[0])
    if len(data) != seal[0] or hashlib.sha256(data).hexdigest() != seal[1]:
        raise _Damaged
    return data


def _discard(path: Path, found: os.stat_result) -> None:
    """Delete a damaged entry, unless a writer has replaced it since it was opened."""
    with contextlib.suppress(OSError):
        now = os.stat(path)
        if (now.st_ino, now.st_dev) == (found.st_ino, found.st_dev):
            os.unlink(path)


def store(key: str, meta: dict[str, Any], ptx: str, cubin: bytes | None) -> None:
    """Write an entry (replacing any other) atomically: readers see the old file or the new,
    never a part."""
    root = trusted_dir(create=True)
    if root is None or not _valid_key(key):
        return
    text = ptx.encode()
    body = json.dumps({"key": key, "meta": meta, "cubin": _seal(cubin) if cubin else None,
                       "ptx": _seal(text)}).encode() + b"\n"
    first = b"%s %d %s\n" % (MAGIC, FORMAT, hashlib.sha256(body).hexdigest().encode())
    _replace(root / (key + SUFFIX), [first, body, cubin or b"", text])


def write_file(path: Path, data: bytes) -> bool:
    """Write a small file atomically; False where it cannot be written (or the disk cache is
    off, or `path` is in a cache folder that is not private)."""
    if not settings.disk_cache_enabled():
        return False
    root = settings.cache_dir()
    if (path == root or root in path.parents) and trusted_dir(create=True) is None:
        return False
    return _replace(path, [data])


def _replace(path: Path, chunks: list[bytes]) -> bool:
    """Write a temporary file next to `path` and rename it into place (a cache that cannot be
    written is only slower); False where that failed, leaving nothing behind."""
    import tempfile

    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        with os.fdopen(handle, "wb") as f:
            for chunk in chunks:
                f.write(chunk)
        os.replace(tmp, path)
        return True
    except OSError:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        return False
