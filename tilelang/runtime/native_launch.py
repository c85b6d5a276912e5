"""Runtime: build (once, into the cache) and load the native launcher; None if impossible.

Like Triton's launcher, the C source is compiled on first GPU use with the system compiler
against this interpreter's headers. Without a compiler or headers, launches stay on the
pure-Python path (tilelang/runtime/launcher.py), which is correct but slower.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
from pathlib import Path
from typing import Any

from tilelang import settings

SOURCE = Path(__file__).parent / "native" / "launch.c"
_module: Any = False  # False: not tried yet; None: unavailable
_loading = threading.Lock()  # threads launching at once build and load it once


def native_module() -> Any:
    global _module
    if _module is False:
        with _loading:
            if _module is False:
                _module = _build_and_load()
    return _module


def _build_and_load() -> Any:
    if not settings.native_launch_enabled():
        return None
    source = SOURCE.read_bytes()
    tag = hashlib.sha256(source + sys.version.encode()).hexdigest()[:16]
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    target = settings.cache_dir() / "native" / tag / f"_tilelang_launch{suffix}"
    if not target.exists() and not _compile(target):
        return None
    try:
        spec = importlib.util.spec_from_file_location("_tilelang_launch", target)
        module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    except ImportError:
        return None
    return module


def _compile(target: Path) -> bool:
    compiler = os.environ.get("CC") or shutil.which("gcc") or shutil.which("cc")
    include = sysconfig.get_paths().get("include")
    if compiler is None or include is None or not (Path(include) / "Python.h").exists():
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        out = Path(tmp) / target.name
        command = [compiler, "-O2", "-shared", "-fPIC", str(SOURCE), f"-I{include}", "-o",
                   str(out), "-ldl"]
        if subprocess.run(command, capture_output=True).returncode != 0:
            return False
        os.replace(out, target)
    return True
