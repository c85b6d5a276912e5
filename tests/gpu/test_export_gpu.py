"""Ahead-of-time export on the GPU: C programs with no Python load the exported cubin with the
driver API, launch it through the generated header (and through the JSON's parameter offsets)
on awkward sizes, and check the results against the same computation on the CPU."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import tilelang as ct
from tilelang.export import Array, Scalar

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "export"))
from c_programs import AFFINE2D_MAIN, VECTOR_ADD_MAIN, build_program, c_compiler, libcuda_flags
from export_kernels import affine2d, vector_add

pytestmark = pytest.mark.skipif(c_compiler() is None, reason="no C compiler (cc, gcc, clang) "
                                "to build the C program that launches the exported kernel")




def run(*command: object) -> list[str]:
    result = subprocess.run([str(c) for c in command], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.splitlines()


A16 = Array(ct.float32, 1, align=16)


def test_vector_add_from_c(tmp_path: Path) -> None:
    from tilelang.runtime import binary

    done = vector_add.export(tmp_path, A16, A16, A16, 1024)
    assert done.description["arch"] == binary.device_arch(binary.current_ordinal())  # default
    exe = build_program(done, VECTOR_ADD_MAIN, libcuda_flags())
    for n in (1, 1000, 1_000_003):
        lines = run(exe, done.cubin, n)
        assert lines[:3] == [f"round {r}: 0 wrong of {n}" for r in range(3)]
        assert lines[3] == "misaligned: 1 vector_add: a must be 16-byte aligned"


def test_vector_add_from_ptx(tmp_path: Path) -> None:
    done = vector_add.export(tmp_path, A16, A16, A16, 256, cubin=False)
    exe = build_program(done, VECTOR_ADD_MAIN, libcuda_flags())
    lines = run(exe, done.ptx, 4099)  # the driver compiles the PTX when it loads it
    assert lines[:3] == [f"round {r}: 0 wrong of 4099" for r in range(3)]


@pytest.mark.parametrize(("rows", "cols", "pitch"), [(77, 133, 141), (16, 64, 64), (1, 5, 7)])
def test_2d_kernel_from_c(tmp_path: Path, rows: int, cols: int, pitch: int) -> None:
    done = affine2d.export(tmp_path, Array(ct.float32, 2), Array(ct.float32, 1),
                           Array(ct.float32, 2), Scalar(ct.float32), 16, 64)
    exe = build_program(done, AFFINE2D_MAIN, libcuda_flags())
    lines = run(exe, done.cubin, rows, cols, pitch)
    assert [line.split(",")[0] for line in lines] == \
        [f"round {r}: 0 wrong of {rows * cols}" for r in range(2)]
