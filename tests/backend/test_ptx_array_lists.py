"""Matrix-product loops over arrays picked at run time (an element of a list of arrays, as in a
grouped GEMM): the host encodes a TMA tensor map for every list element, as for any parameter,
and the kernel picks the map as it picks the array, so these loops copy their tiles by TMA too
(twenty-third session; before, by cp.async), and the products run on wgmma (no GPU: PTX for
sm_90)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct
from tilelang.testing.kernels import make_grouped_matmul

BF16 = ml_dtypes.bfloat16


each_group = make_grouped_matmul()


@ct.kernel(num_warps=4)
def one_array(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, 1, (BM, BK))):
        x = ct.load(a, (ct.bid(0), k), (BM, BK), padding_mode=ct.PaddingMode.ZERO)
        w = ct.load(b, (k, ct.bid(1)), (BK, BN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(x, w, acc)
    ct.store(c, (ct.bid(0), ct.bid(1)), acc.astype(c.dtype))


@pytest.mark.parametrize("tiles", [(64, 64, 32), (128, 128, 64)])
def test_products_over_list_elements_stage_by_tma(tiles) -> None:
    shapes = [(17, 24, 72), (40, 24, 72), (64, 24, 72)]
    a = [np.zeros((m, k), BF16) for m, _, k in shapes]
    b = [np.zeros((k, n), BF16) for _, n, k in shapes]
    c = [np.zeros((m, n), BF16) for m, n, _ in shapes]
    ptx = ct.compile(each_group, (a, b, c, *tiles), arch="sm_90", stop_after="ptx").ptx
    assert "wgmma.mma_async" in ptx and "cp.async.bulk.tensor" in ptx
    assert "cp.async.cg" not in ptx  # each element's map, picked at run time


def test_the_same_loop_over_parameters_copies_by_tma() -> None:
    a, b, c = np.zeros((256, 256), BF16), np.zeros((256, 256), BF16), np.zeros((256, 256), BF16)
    ptx = ct.compile(one_array, (a, b, c, 64, 64, 32), arch="sm_90", stop_after="ptx").ptx
    assert "wgmma.mma_async" in ptx and "cp.async.bulk.tensor" in ptx
