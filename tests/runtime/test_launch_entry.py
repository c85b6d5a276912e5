"""The C entry (runtime/native/launch.c) on the CPU: after the first launch that finds a C entry,
`tilelang.launch` is the C function, launches without Python, and hands every other launch to
the Python `launch`. The driver is a stand-in libcuda whose cuLaunchKernel counts its calls; it
runs in a subprocess, away from cuda.bindings (which would load the stand-in too)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FAKE_DRIVER = r"""
int launches = 0, last_gx = 0;
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                   unsigned bz, unsigned shared, void *stream, void **params, void **extra) {
    launches++; last_gx = (int)gx; return 0;
}
int cuCtxPushCurrent_v2(void *context) { return 0; }
int cuCtxPopCurrent_v2(void **context) { return 0; }
int cuDriverGetVersion(int *version) { *version = 12080; return 0; }
"""

SCRIPT = r"""
import ctypes, os
import tilelang as ct
from tilelang import launch as bound_early
from tilelang.runtime import launch as launch_module
from tilelang.runtime.native_launch import native_module

driver = ctypes.CDLL("libcuda.so.1")
count = lambda: ctypes.c_int.in_dll(driver, "launches").value

@ct.kernel
def k(n, x, B: ct.Constant[int]):
    pass

python_calls = []
k.fast_launch = lambda stream, grid, args: python_calls.append(args)  # the Python GPU path
# what runtime/gpu_launch.py registers for (int32, float32, constant 64), function 0x1000
plan = b"I" + bytes(7) + b"F" + bytes(7) + b"C" + bytes(7)
k.native_entry = (0x1000, 128, plan, (64,), 0, 0, b"")

assert native_module() is not None and ct.launch is launch_module.launch
ct.launch(0, (3,), k, (5, 1.5, 64))  # the Python launch takes the C hot path, and binds the entry
assert ct.launch is native_module().entry and (count(), python_calls) == (1, [])
class Stream:  # a torch.cuda.Stream as far as the C entry reads it
    cuda_stream = 0

ct.launch(Stream(), (7, 2), k, (-2, 0.25, 64))
assert count() == 2 and ctypes.c_int.in_dll(driver, "last_gx").value == 7 and python_calls == []
ct.launch(0, (3,), k, (5, 1.5, 32))  # another constant: not this entry, the Python path's
ct.launch(0, 3, k, (5, 1.5, 64))  # a grid that is not a tuple: Python too
assert count() == 2 and len(python_calls) == 2
bound_early(0, (1,), k, (5, 1.5, 64))  # bound before: the Python launch, same hot path
assert count() == 3 and len(python_calls) == 2
os.environ["TILELANG_INTERPRET"] = "1"  # the interpreter runs it: no driver call
ct.launch(0, (1,), k, (5, 1.5, 64))
assert count() == 3 and len(python_calls) == 2
# a keyword argument goes to the Python launch (which runs the interpreter here)
ct.launch(0, (1,), k, (5, 1.5, 64), programmatic_dependent_launch=True)
assert ct.launch is native_module().entry and count() == 3 and len(python_calls) == 2
print("ok")
"""


def test_c_entry_becomes_tilelang_launch(tmp_path: Path) -> None:
    compiler = os.environ.get("CC") or shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler")
    source = tmp_path / "fake_driver.c"
    source.write_text(FAKE_DRIVER)
    driver = tmp_path / "libcuda.so.1"
    subprocess.run([compiler, "-shared", "-fPIC", str(source), "-o", str(driver)], check=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ("TILELANG_INTERPRET", "TILELANG_NO_NATIVE_LAUNCH")}
    env["LD_LIBRARY_PATH"] = f"{tmp_path}:{env.get('LD_LIBRARY_PATH', '')}"
    script = tmp_path / "launches.py"  # a file: the interpreter reads the kernel's source
    script.write_text(SCRIPT)
    run = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip() == "ok"
