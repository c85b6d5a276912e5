"""mma_scaled on the GPU path, checked on the CPU: the block-scaled GEMM loop of
tests/interpreter/test_mma_scaled.py compiles for sm_90 and assembles, its products run on the
tensor cores (bfloat16 mma.sync of the scaled operands, never an fma fallback), and the
scaling is float32 work on registers (fp8 -> f16x2 -> f32, one multiply, f32 pairs -> bf16x2).
Older targets reject the fp8 operands, as for mma (cuTile's rule)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct
from tilelang import TileUnsupportedFeatureError
from tilelang.testing.kernels import scaled_gemm as gemm

E4M3, E5M2 = np.dtype(ml_dtypes.float8_e4m3fn), np.dtype(ml_dtypes.float8_e5m2)
E8M0 = np.dtype(ml_dtypes.float8_e8m0fnu)
MMA_BF16 = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"



def args(dtype: np.dtype, m: int, n: int, k: int, tiles: tuple[int, int, int]) -> tuple:
    return (np.zeros((m, k), dtype), np.zeros((m, k // 32), E8M0), np.zeros((k, n), dtype),
            np.zeros((k // 32, n), E8M0), np.zeros((m, n), np.float32), *tiles)


def count(ptx: str, opcode: str) -> int:
    return sum(1 for line in ptx.splitlines() if line.split()[:1] == [opcode])


@pytest.mark.parametrize("dtype", [E4M3, E5M2])
@pytest.mark.parametrize("tiles", [(64, 64, 64), (32, 32, 64), (64, 64, 128)])
def test_products_run_on_the_tensor_cores(dtype, tiles):
    compiled = ct.compile(gemm, args(dtype, 1000, 1000, 1024, tiles), arch="sm_90")
    ptx = compiled.ptx
    bm, bn, bk = tiles
    assert count(ptx, MMA_BF16) >= bm * bn * bk // (16 * 8 * 16) // 4  # per warp of 4, at least
    assert "fma.rn.f32" not in ptx  # no fma chain in place of the product
    name = "e4m3" if dtype == E4M3 else "e5m2"
    assert count(ptx, f"cvt.rn.f16x2.{name}x2") > 0 and count(ptx, "cvt.rn.bf16x2.f32") > 0
    compiled.resources()  # assembles


def test_fp8_operands_need_sm_90():
    with pytest.raises(TileUnsupportedFeatureError, match="float8_e4m3fn is not supported on "
                       "sm_80"):
        ct.compile(gemm, args(E4M3, 64, 64, 64, (32, 32, 64)), arch="sm_80")
