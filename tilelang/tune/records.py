"""Autotuning: the choices of past searches, in one JSON file under the tilelang cache
directory (`autotune.json`); copy it to another machine with the same GPU to skip the searches.

    {"format": 1, "kernels": {"<module>.<qualname>": {
        "fingerprint": "<hash of the kernel's source and globals>",
        "devices": {"<GPU name, or 'interpreter'>": {
            "<key, as JSON>": {"config": {"kwargs": {...}, "hints": {...}}, "median_us": ...}}}}}}

A kernel whose source changed (another fingerprint) starts afresh. The file is read and
written only while the cache folder is private to the user (tilelang/runtime/disk_cache.py),
and read only if it is the user's own; parts of it that are not what they should be are
ignored.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tilelang import settings
from tilelang.runtime import disk_cache

FORMAT = 1


def path() -> Path:
    return settings.cache_dir() / "autotune.json"


def lookup(kernel_id: str, fingerprint: str, device: str, key: str) -> dict[str, Any] | None:
    if disk_cache.trusted_dir() is None:
        return None
    kernel = _member(_read(shared=True), "kernels", kernel_id)
    if kernel.get("fingerprint") != fingerprint:
        return None
    return _member(kernel, "devices", device, key) or None


def _member(data: dict[str, Any], *names: str) -> dict[str, Any]:
    """data[names[0]][names[1]]...; {} where one of them is missing or is not an object."""
    for name in names:
        data = data.get(name)  # type: ignore[assignment]
        if not isinstance(data, dict):
            return {}
    return data


def store(kernel_id: str, fingerprint: str, device: str, key: str,
          entry: dict[str, Any]) -> None:
    """Add one choice (read, merge and replace the file: concurrent writers lose at most an
    entry, which costs a search). Parts of the file that are not what they should be are
    replaced."""
    if disk_cache.trusted_dir(create=True) is None:
        return
    data = _read()
    if not isinstance(data.get("kernels"), dict):
        data["kernels"] = {}
    kernel = _member(data, "kernels", kernel_id)
    if kernel.get("fingerprint") != fingerprint or not isinstance(kernel.get("devices"), dict):
        kernel = data["kernels"][kernel_id] = {"fingerprint": fingerprint, "devices": {}}
    if not isinstance(kernel["devices"].get(device), dict):
        kernel["devices"][device] = {}
    kernel["devices"][device][key] = entry
    _write(data)


_parsed: dict[str, tuple[tuple[int, int, int], dict[str, Any]]] = {}


def _read(shared: bool = False) -> dict[str, Any]:
    """The file's contents (an empty record where it is missing, not JSON, not this user's
    own, or not a record of this format). `shared`: the parse of this version of the file (its
    size, modification time and inode: a writer replaces the file, so a new one has another
    inode) kept for the process, which the caller must not change: each kernel's first launch
    looks its choice up, and a file of many kernels takes a while to parse."""
    target = str(path())
    try:
        with open(target, "rb") as f:
            s = os.fstat(f.fileno())
            stamp = (s.st_size, s.st_mtime_ns, s.st_ino)
            known = _parsed.get(target)
            if shared and known is not None and known[0] == stamp:
                return known[1]
            if not disk_cache.owned_privately(s):
                return {"format": FORMAT, "kernels": {}}
            data = json.loads(f.read())
    except (OSError, ValueError, RecursionError):
        return {"format": FORMAT, "kernels": {}}
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return {"format": FORMAT, "kernels": {}}
    if shared:
        _parsed[target] = (stamp, data)
    return data


def _write(data: dict[str, Any]) -> None:
    """Through a temporary file renamed into place: readers never see half a file (one that
    cannot be written only costs a search next time)."""
    disk_cache.write_file(path(), json.dumps(data, indent=1, sort_keys=True).encode())
