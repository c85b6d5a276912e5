"""Runtime: build (once, into the cache) and load the native launcher; None if impossible.

Like Triton's launcher, the C source is compiled on first GPU use with the system compiler
against this interpreter's headers. Without a compiler or headers, or where the cache folder
(or its `native/`) is not private to this user, launches stay on the pure-Python path
(tilelang/runtime/launcher.py), which is correct but slower. A module is loaded only when it
matches the sha256 written next to it when it was built; otherwise it is built again.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import shutil
import stat
import subprocess
import sys
import sysconfig
import tempfile
import threading
import warnings
from pathlib import Path
from types import ModuleType
from typing import Literal

from tilelang import settings
from tilelang.runtime import disk_cache

SOURCE = Path(__file__).parent / "native" / "launch.c"
_module: ModuleType | Literal[False] | None = False  # False: not tried yet; None: unavailable
_loading = threading.Lock()  # threads launching at once build and load it once


def native_module() -> ModuleType | None:
    global _module
    if _module is False:
        with _loading:
            if _module is False:
                _module = _build_and_load()
    return _module


def _build_and_load() -> ModuleType | None:
    if not settings.native_launch_enabled():
        return None
    root = disk_cache.private_dir(create=True)
    if root is None:  # others could write it (a warning said so): the pure-Python path
        return None
    source = SOURCE.read_bytes()
    tag = hashlib.sha256(source + sys.version.encode()).hexdigest()[:16]
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    target = root / "native" / tag / f"_tilelang_launch{suffix}"
    if not _private_folders(root, target.parent):
        return None
    for _ in range(2):  # a build that another process replaced meanwhile is built again, once
        if _intact(target):
            return _load(target)
        if not _compile(target):
            return None
    return None


def _private_folders(root: Path, folder: Path) -> bool:
    """Make `native/<tag>/` (mode 0700) where missing; False, with a warning, where a part of
    it is not this user's own (made while the cache folder was open to others)."""
    for part in (root / "native", folder):
        with contextlib.suppress(OSError):
            part.mkdir(mode=0o700)
        try:
            found = os.lstat(part)
        except OSError:
            return False
        if not stat.S_ISDIR(found.st_mode) or not disk_cache.owned_privately(found):
            warnings.warn(f"tilelang: {part} is not a folder of your own that only you can "
                          "write, so the C launcher is neither built nor loaded there and "
                          f"launches take the slower Python path. To fix it: `rm -rf {part}`.",
                          stacklevel=4)
            return False
    return True


def _seal(target: Path) -> Path:
    return target.with_name(target.name + ".sha256")


def _intact(target: Path) -> bool:
    """Whether `target` is the module this user built: its own, and the sha256 written next
    to it at the build matches (a mismatch, or anything missing, means build it again)."""
    try:
        with open(target, "rb") as f:
            found = os.fstat(f.fileno())
            digest = hashlib.sha256(f.read()).hexdigest()
        seal = _seal(target)
        return stat.S_ISREG(found.st_mode) and disk_cache.owned_privately(found) and \
            disk_cache.owned_privately(os.lstat(seal)) and seal.read_text() == digest
    except (OSError, UnicodeDecodeError):
        return False


def _load(target: Path) -> ModuleType | None:
    try:
        spec = importlib.util.spec_from_file_location("_tilelang_launch", target)
        module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    except ImportError:
        return None
    return module


def _compile(target: Path) -> bool:
    """Build into a private temporary folder next to `target`, then rename the module and its
    sha256 into place (each rename atomic)."""
    compiler = os.environ.get("CC") or shutil.which("gcc") or shutil.which("cc")
    include = sysconfig.get_paths().get("include")
    if compiler is None or include is None or not (Path(include) / "Python.h").exists():
        return False
    try:
        with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
            out, seal = Path(tmp) / target.name, Path(tmp) / _seal(target).name
            command = [compiler, "-O2", "-shared", "-fPIC", str(SOURCE), f"-I{include}", "-o",
                       str(out), "-ldl"]
            if subprocess.run(command, capture_output=True).returncode != 0:
                return False
            os.chmod(out, 0o755)  # whatever the umask
            seal.write_text(hashlib.sha256(out.read_bytes()).hexdigest())
            os.chmod(seal, 0o644)
            os.replace(out, target)
            os.replace(seal, _seal(target))
    except OSError:
        return False
    return True
