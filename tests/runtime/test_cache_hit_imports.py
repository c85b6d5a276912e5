"""`import tilelang` and a launch served from the disk cache load neither the compiler nor MLIR:
a fresh process finds its kernel on disk as the GPU path does (specialize, key, lookup), with
the device's architecture faked."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

KERNEL = '''
import tilelang as ct

BLOCK = 64


@ct.kernel
def double(x, y, n: ct.ScalarInt64):
    i = ct.bid(0)
    ct.store(y, (i,), ct.load(x, (i,), (BLOCK,)) * 2.0)
'''

HIT = '''
import sys

import tilelang

heavy = ("mlir", "numpy", "torch", "cuda", "tilelang.compiler", "tilelang.frontend.kernel")
loaded = lambda: sorted(m for m in sys.modules if m.startswith(heavy))
assert loaded() == [], loaded()
import numpy as np

from tilelang.runtime import binary, build

import cache_hit_kernel

binary.device_arch = lambda device: "sm_90"
kernel = cache_hit_kernel.double
x = np.zeros(1000, np.float32)
job = build.build_job(kernel, kernel.specialize((x, x, 7)), 0)
assert build.build(job).source == "disk"
assert not any(m.startswith(("mlir", "tilelang.compiler", "tilelang.frontend.kernel"))
               for m in sys.modules), loaded()
print("ok")
'''


def test_a_disk_cache_hit_imports_no_compiler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from tilelang.runtime import binary, build

    monkeypatch.setenv("TILELANG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TILELANG_DISABLE_DISK_CACHE", raising=False)
    monkeypatch.setattr(binary, "device_arch", lambda device: "sm_90")
    source = tmp_path / "cache_hit_kernel.py"
    source.write_text(KERNEL)
    spec = importlib.util.spec_from_file_location("cache_hit_kernel", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    x = np.zeros(1000, np.float32)
    kernel = module.double
    job = build.build_job(kernel, kernel.specialize((x, x, 7)), 0)
    assert build.build(job, assembler="none").source == "compiled"
    script = tmp_path / "hit.py"
    script.write_text(HIT)
    path = os.pathsep.join(p for p in (str(tmp_path), os.environ.get("PYTHONPATH")) if p)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": path})
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().endswith("ok")
