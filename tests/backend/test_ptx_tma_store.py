"""TMA stores on the CPU (passes/tma_stores.py, simt/tma_store.py): which stores write their
tile in TMA boxes, and the code they take (PTX through ptxas)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct
from tilelang.testing.kernels import make_accumulating_matmul, make_batched_matmul, make_matmul

BF16 = ml_dtypes.bfloat16
STORE = "cp.async.bulk.tensor.{}d.global.shared::cta"


def gemm_args(m=300, n=1000, k=520, c_dtype=BF16, tile=(128, 256, 64)):
    return (np.zeros((m, k), BF16), np.zeros((k, n), BF16), np.zeros((m, n), c_dtype), *tile)


@pytest.mark.parametrize(("c_dtype", "tile", "boxes", "rounds"), [
    (BF16, (128, 256, 64), 4, 4), (np.float16, (64, 128, 64), 2, 1),
    (np.float32, (128, 128, 64), 4, 4)])
def test_a_gemm_epilogue_stores_its_accumulator_in_boxes(c_dtype, tile, boxes, rounds):
    """One box per 128-byte panel of columns, issued by one thread after the block wrote the
    tile in the swizzled boxes (fenced for the async proxy); no per-thread global stores and
    no conversion of the accumulator's layout (nothing read back from shared memory). Tiles
    over 32 KB go a 16 KB box at a time through two slots, waiting for the store two rounds
    back; nothing makes ptxas serialize the products."""
    compiled = ct.compile(make_matmul(8 if tile[1] == 256 else 4), gemm_args(c_dtype=c_dtype,
                                                                           tile=tile),
                          arch="sm_90")
    ptx = compiled.ptx
    assert ptx.count(STORE.format(2)) == boxes
    assert ptx.count("cp.async.bulk.commit_group") == rounds
    assert ptx.count("cp.async.bulk.wait_group.read \t0") == 1
    assert ptx.count("cp.async.bulk.wait_group.read \t1") == max(0, rounds - 2)
    assert "st.global" not in ptx and "ld.shared" not in ptx.split("wgmma.wait_group")[-1]
    before_store = ptx.split(STORE.format(2))[0].split("bar.sync")[-2]
    assert "fence.proxy.async.shared::cta" in before_store  # then the barrier, then the boxes
    store_map = compiled.metadata["tensor_maps"][-1]
    itemsize = np.dtype(c_dtype).itemsize
    assert (store_map["array_param"], store_map["box_cols"], store_map["box_rows"]) == \
        (10, 128 // itemsize, tile[0])
    resources = compiled.resources()
    assert resources.spill_stores == 0 and not resources.wgmma_serialized


@pytest.mark.parametrize(("case", "arch", "env", "args"), [
    ("sm_80", "sm_80", "1", gemm_args()),
    ("TMA switched off", "sm_90", "0", gemm_args()),
    ("c's rows not 16-byte aligned", "sm_90", "1", gemm_args(n=1001)),
    ("tile rows of 64 bytes", "sm_90", "1", gemm_args(tile=(64, 32, 64))),
])
def test_stores_that_keep_the_general_path(monkeypatch, case, arch, env, args):
    monkeypatch.setenv("TILELANG_TMA", env)
    ptx = ct.compile(make_matmul(4 if args[-2] == 32 else 8), args, arch=arch).ptx
    assert "cp.async.bulk.tensor.2d.global" not in ptx and "st.global" in ptx, case


def test_an_array_the_kernel_also_loads_keeps_plain_stores():
    """TMA writes through the async proxy: a kernel reading the same array through the
    generic one keeps its plain stores."""
    ptx = ct.compile(make_accumulating_matmul(8), gemm_args(), arch="sm_90").ptx
    assert "cp.async.bulk.tensor.2d.global" not in ptx and "st.global" in ptx


@ct.kernel(num_warps=4)
def _copy_rows(x, y, BM: ct.Constant[int], BN: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    ct.store(y, (i, j), ct.load(x, (i, j), (BM, BN)))


def test_a_tile_already_in_its_memory_layout_keeps_plain_stores():
    x = np.zeros((300, 1000), BF16)
    ptx = ct.compile(_copy_rows, (x, x.copy(), 64, 64), arch="sm_90").ptx
    assert "cp.async.bulk" not in ptx and "st.global" in ptx


def test_a_batched_tile_is_stored_in_three_dimensional_boxes():
    a, b, c = np.zeros((3, 100, 72), BF16), np.zeros((3, 72, 200), BF16), \
        np.zeros((3, 100, 200), BF16)
    ptx = ct.compile(make_batched_matmul(4), (a, b, c, 64, 128, 64), arch="sm_90").ptx
    assert ptx.count(STORE.format(3)) == 2
