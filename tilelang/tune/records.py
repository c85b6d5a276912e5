"""Autotuning: the choices of past searches, in one JSON file under the tilelang cache
directory (`autotune.json`); copy it to another machine with the same GPU to skip the searches.

    {"format": 1, "kernels": {"<module>.<qualname>": {
        "fingerprint": "<hash of the kernel's source and globals>",
        "devices": {"<GPU name, or 'interpreter'>": {
            "<key, as JSON>": {"config": {"kwargs": {...}, "hints": {...}}, "median_us": ...}}}}}}

A kernel whose source changed (another fingerprint) starts afresh.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from tilelang import settings

FORMAT = 1


def path() -> Path:
    return settings.cache_dir() / "autotune.json"


def lookup(kernel_id: str, fingerprint: str, device: str, key: str) -> dict[str, Any] | None:
    if not settings.disk_cache_enabled():
        return None
    kernel = _read(shared=True).get("kernels", {}).get(kernel_id)
    if not isinstance(kernel, dict) or kernel.get("fingerprint") != fingerprint:
        return None
    entry = kernel.get("devices", {}).get(device, {}).get(key)
    return entry if isinstance(entry, dict) else None


def store(kernel_id: str, fingerprint: str, device: str, key: str,
          entry: dict[str, Any]) -> None:
    """Add one choice (read, merge and replace the file: concurrent writers lose at most an
    entry, which costs a search)."""
    if not settings.disk_cache_enabled():
        return
    data = _read()
    kernels = data.setdefault("kernels", {})
    kernel = kernels.get(kernel_id)
    if not isinstance(kernel, dict) or kernel.get("fingerprint") != fingerprint:
        kernel = kernels[kernel_id] = {"fingerprint": fingerprint, "devices": {}}
    kernel.setdefault("devices", {}).setdefault(device, {})[key] = entry
    _write(data)


_parsed: dict[str, tuple[tuple[int, int, int], dict[str, Any]]] = {}


def _read(shared: bool = False) -> dict[str, Any]:
    """The file's contents. `shared`: the parse of this version of the file (its size,
    modification time and inode: a writer replaces the file, so a new one has another inode)
    kept for the process, which the caller must not change: each kernel's first launch looks
    its choice up, and a file of many kernels takes a while to parse."""
    target = str(path())
    try:
        with open(target, "rb") as f:
            s = os.fstat(f.fileno())
            stamp = (s.st_size, s.st_mtime_ns, s.st_ino)
            known = _parsed.get(target)
            if shared and known is not None and known[0] == stamp:
                return known[1]
            data = json.loads(f.read())
    except (OSError, ValueError):
        return {"format": FORMAT, "kernels": {}}
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return {"format": FORMAT, "kernels": {}}
    if shared:
        _parsed[target] = (stamp, data)
    return data


def _write(data: dict[str, Any]) -> None:
    """Through a temporary file renamed into place: readers never see half a file."""
    target = path()
    tmp = target.with_name(f".autotune-{os.getpid()}.json")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
        os.replace(tmp, target)
    except OSError:  # a record that cannot be written only costs a search next time
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
