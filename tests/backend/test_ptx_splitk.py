"""Front end to PTX on the CPU: samples/splitk_gemm.py's kernels at the split-K configurations
benchmarks/bench_matmul.py sweeps. The partial products keep the fast K loop (a range of K
tiles as the loop's bounds: wgmma on sm_90, cp.async + mma.sync on sm_80) without spills; the
sum of the partial tiles keeps its one warp's rows in registers (no shared memory)."""

from __future__ import annotations

import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "samples"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import bench_matmul
import splitk_gemm

SPLIT_CONFIGS = [c for c in bench_matmul.CONFIGS if c.split > 1]
# not a multiple of the tiles: the masked edge paths are compiled too
M, N, K = 100, 4000, 4000


def test_the_bench_sweeps_split_k():
    assert len(SPLIT_CONFIGS) >= 4


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("config", SPLIT_CONFIGS, ids=lambda c: c.label)
def test_partial_products_stay_on_the_staged_k_loop(config, arch: str) -> None:
    a, b = np.zeros((M, K), ml_dtypes.bfloat16), np.zeros((K, N), ml_dtypes.bfloat16)
    ws = np.zeros((config.split, M, N), np.float32)
    compiled = ct.compile(splitk_gemm.partial_products,
                          (a, b, ws, config.bm, config.bn, config.bk, config.split),
                          arch=arch, num_warps=config.warps)
    ptx = compiled.ptx
    assert "cp.async" in ptx
    if arch == "sm_90":
        assert "wgmma.mma_async.sync.aligned.m64n" in ptx
    else:
        assert "ldmatrix" in ptx and "mma.sync.aligned.m16n8k16" in ptx
    resources = compiled.resources()  # assembles
    assert resources.spill_stores == 0 and resources.spill_loads == 0, resources


@pytest.mark.parametrize("dtype", [ml_dtypes.bfloat16, np.float16])
@pytest.mark.parametrize("split", sorted({c.split for c in SPLIT_CONFIGS}))
def test_sum_of_partials_stays_in_registers(split: int, dtype) -> None:
    ws = np.zeros((split, M, N), np.float32)
    compiled = ct.compile(splitk_gemm.sum_partials,
                          (ws, np.zeros((M, N), dtype), *splitk_gemm.REDUCE_TILE, split),
                          arch="sm_90")
    resources = compiled.resources()
    assert resources.spill_stores == 0 and resources.spill_loads == 0, resources
    assert resources.shared_bytes == 0, resources
    assert compiled.ptx.count("ld.global") >= split  # each slab read
