"""Front end to PTX on the CPU: the GEMM samples compile at their GPU sizes, assemble for sm_80
and sm_90 with tensor-core instructions, and keep their accumulators in registers."""

from __future__ import annotations

import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "samples"))
import batched_gemm
import gemm

BF16, F16 = ml_dtypes.bfloat16, np.float16
M = N = K = 4000  # not a multiple of the tiles: the masked edge paths are compiled too


def gemm_args():
    return (np.zeros((M, K), BF16), np.zeros((K, N), BF16), np.zeros(N, BF16),
            np.zeros((M, N), BF16), 128, 128, 32)


def batched_args(shared: bool):
    b = np.zeros((K // 4, N // 4) if shared else (6, K // 4, N // 4), F16)
    return (np.zeros((6, M // 4, K // 4), F16), b, np.zeros((6, M // 4, N // 4), F16),
            2, 64, 64, 32)


CASES = {
    "gemm": (gemm.gemm_bias_gelu, gemm_args, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16"),
    "batched": (batched_gemm.batched_gemm, lambda: batched_args(False),
                "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16"),
    "shared_weight": (batched_gemm.batched_gemm, lambda: batched_args(True),
                      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16"),
}


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_gemm_sample_assembles_with_tensor_cores(name: str, arch: str) -> None:
    kernel, args, instruction = CASES[name]
    compiled = ct.compile(kernel, args(), arch=arch)
    assert f".target {arch}" in compiled.ptx
    assert instruction in compiled.ptx
    resources = compiled.resources()  # assembles with ptxas (or nvJitLink)
    assert resources.spill_stores == 0 and resources.spill_loads == 0, resources
