"""float8_e5m3fnu on the GPU path, checked on the CPU: its registers are bytes whose conversions
are integer and float32 work on any target (cuTile needs sm_107), and mma_scaled of fp4 operands
with its scales runs on the tensor cores (bfloat16 mma.sync) for sm_90 and sm_80, as the kernels
of tests/interpreter/test_float8_e5m3.py."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import tilelang as ct

sys.path.insert(0, str(Path(__file__).parents[1] / "interpreter"))
from test_float8_e5m3 import from_bytes, from_bytes_rounded, gemm, to_bytes

MMA_BF16 = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"


def count(ptx: str, opcode: str) -> int:
    return sum(1 for line in ptx.splitlines() if line.split()[:1] == [opcode])


@pytest.mark.parametrize(("block", "arch"), [(16, "sm_90"), (32, "sm_90"), (16, "sm_80")])
def test_products_run_on_the_tensor_cores(block, arch):
    bm, bn, bk = 64, 64, 64
    m, n, k = 1000, 1000, 1024
    args = (np.zeros((m, k // 2), np.uint8), np.zeros((m, k // block), np.uint8),
            np.zeros((k, n // 2), np.uint8), np.zeros((k // block, n), np.uint8),
            np.zeros((m, n), np.float32), bm, bn, bk, block)
    compiled = ct.compile(gemm, args, arch=arch)
    ptx = compiled.ptx
    assert count(ptx, MMA_BF16) >= bm * bn * bk // (16 * 8 * 16) // 4
    assert "fma.rn.f32" not in ptx
    assert "e5m3" not in ptx and "e2m1" not in ptx  # no sm_100+ conversion
    compiled.resources()  # assembles


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_conversions_assemble(arch):
    for dtype in (np.float32, np.float64, np.float16, np.int32):
        ct.compile(to_bytes, (np.zeros(64, dtype), np.zeros(64, np.uint8), 64),
                   arch=arch).resources()
    for dtype in (np.float32, np.float64, np.float16, np.uint8):
        ct.compile(from_bytes, (np.zeros(64, np.uint8), np.zeros(64, dtype), 64),
                   arch=arch).resources()
    ptx = ct.compile(from_bytes_rounded, (np.zeros(64, np.uint8), np.zeros(64, np.float16), 64,
                                          ct.RoundingMode.RZ), arch=arch).ptx
    assert "cvt.rz.f16.f32" in ptx
