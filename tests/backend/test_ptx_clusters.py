"""Clusters of two blocks sharing a K loop's tiles by TMA multicast (passes/pair_blocks.py,
simt/cluster.py), compiled on the CPU: which kernels get them, and the PTX they take: the
run-time check of the cluster's size, the multicast copies of half a tile, the remote releases
of the ring's stages, and the cluster barriers after the barriers' init and after the loop,
with nothing spilled and no wgmma serialized."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct
from tilelang.testing.kernels import make_linear, make_matmul, make_persistent_matmul

BF16 = ml_dtypes.bfloat16
F8 = ml_dtypes.float8_e4m3fn


def gemm_args(dtype=BF16, tile=(128, 128, 64), out=np.float32):
    x = np.zeros((1024, 1024), dtype)
    return (x, x, np.zeros((1024, 1024), out), *tile)


@pytest.mark.parametrize(("maker", "dtype", "tile"), [
    (make_matmul, BF16, (128, 128, 64)), (make_linear, F8, (128, 128, 128)),
    (make_matmul, F8, (128, 128, 128))], ids=["bf16", "fp8 b n-by-k", "fp8 b k-by-n"])
def test_a_warp_specialized_k_loop_runs_as_clusters_of_two(maker, dtype, tile):
    compiled = ct.compile(maker(8), gemm_args(dtype, tile), arch="sm_90")
    assert compiled.metadata["cluster"] == 2
    ptx = compiled.ptx
    assert "%cluster_nctarank" in ptx and "%cluster_ctarank" in ptx
    assert ".multicast::cluster" in ptx  # half a tile into both blocks
    assert "mapa.shared::cluster" in ptx  # the peer's empty barrier
    assert "mbarrier.arrive.shared::cluster.b64" in ptx
    # after the barriers' init, the producer's end, the consumers' end
    assert ptx.count("barrier.cluster.arrive;") == 3 == ptx.count("barrier.cluster.wait;")
    # the halves' maps: 64 rows of each operand's 128
    boxes = [(m["box_cols"], m["box_rows"]) for m in compiled.metadata["tensor_maps"]]
    assert (128 // np.dtype(dtype).itemsize, 64) in boxes
    resources = compiled.resources()
    assert resources.spill_stores == 0 and not resources.wgmma_serialized
    assert not resources.wgmma_waits_added


@pytest.mark.parametrize("case", ["num_ctas=1", "TILELANG_CLUSTERS=0", "sm_80",
                                  "no producer warpgroup", "persistent", "128x256 tiles"])
def test_kernels_that_keep_their_blocks_apart(monkeypatch, case):
    kernel, args, arch = make_matmul(8), gemm_args(), "sm_90"
    if case == "num_ctas=1":
        kernel = kernel.replace_hints(num_ctas=1)
    elif case == "TILELANG_CLUSTERS=0":
        monkeypatch.setenv("TILELANG_CLUSTERS", "0")
    elif case == "sm_80":
        arch = "sm_80"
    elif case == "no producer warpgroup":
        monkeypatch.setenv("TILELANG_WARP_SPECIALIZE", "0")
    elif case == "persistent":  # its blocks would have to walk their tiles in step
        kernel, args = make_persistent_matmul(8), (*gemm_args(), 8)
    else:  # 128 accumulator registers a thread leave no room for a producer warpgroup
        args = gemm_args(tile=(128, 256, 64))
    compiled = ct.compile(kernel, args, arch=arch)
    assert compiled.metadata["cluster"] == 1
    ptx = compiled.ptx
    assert ".multicast::cluster" not in ptx and "barrier.cluster" not in ptx
    assert "%cluster_nctarank" not in ptx
