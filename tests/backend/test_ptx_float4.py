"""float4_e2m1fn on the GPU path, checked on the CPU: fp4 tiles are bytes holding codes, whose
conversions are integer and float32 work on any target (PTX's e2m1 conversions need sm_100), and
mma_scaled of fp4 operands runs its products on the tensor cores (bfloat16 mma.sync of the scaled
operands) for sm_90 and sm_80, as the kernels of tests/interpreter/test_mma_scaled_fp4.py and
test_float4_e2m1.py. float8_e4m3fn scales still need sm_90 (cuTile's rule for the fp8 dtypes)."""

from __future__ import annotations

import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct
from tilelang import TileUnsupportedFeatureError

sys.path.insert(0, str(Path(__file__).parents[1] / "interpreter"))
from test_float4_e2m1 import convert_and_pack, unpack_to
from test_mma_scaled_fp4 import gemm

E4M3, E8M0 = np.dtype(ml_dtypes.float8_e4m3fn), np.dtype(ml_dtypes.float8_e8m0fnu)
MMA_BF16 = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"


def args(scale: np.dtype, block: int, m: int, n: int, k: int, tiles: tuple[int, int, int]):
    return (np.zeros((m, k // 2), np.uint8), np.zeros((m, k // block), scale),
            np.zeros((k, n // 2), np.uint8), np.zeros((k // block, n), scale),
            np.zeros((m, n), np.float32), *tiles, block)


def count(ptx: str, opcode: str) -> int:
    return sum(1 for line in ptx.splitlines() if line.split()[:1] == [opcode])


@pytest.mark.parametrize(("scale", "block", "arch"), [(E8M0, 32, "sm_90"), (E4M3, 16, "sm_90"),
                                                      (E8M0, 16, "sm_80")])
def test_products_run_on_the_tensor_cores(scale, block, arch):
    bm, bn, bk = tiles = (64, 64, 64)
    compiled = ct.compile(gemm, args(scale, block, 1000, 1000, 1024, tiles), arch=arch)
    ptx = compiled.ptx
    assert count(ptx, MMA_BF16) >= bm * bn * bk // (16 * 8 * 16) // 4  # per warp of 4, at least
    assert "fma.rn.f32" not in ptx  # no fma chain in place of the product
    assert "e2m1" not in ptx  # no sm_100 conversion
    assert count(ptx, "cvt.rn.bf16x2.f32") > 0
    compiled.resources()  # assembles


def test_e4m3_scales_need_sm_90():
    with pytest.raises(TileUnsupportedFeatureError,
                       match="float8_e4m3fn is not supported on sm_80"):
        ct.compile(gemm, args(E4M3, 16, 64, 64, 64, (32, 32, 64)), arch="sm_80")


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_conversions_assemble(arch):
    for dtype in (np.float32, np.float64, np.int32):
        ct.compile(convert_and_pack, (np.zeros(64, dtype), np.zeros(32, np.uint8), 16),
                   arch=arch).resources()
    for dtype in (np.float16, E8M0, np.uint8):
        ct.compile(unpack_to, (np.zeros(64, np.uint8), np.zeros(128, dtype), 32),
                   arch=arch).resources()
