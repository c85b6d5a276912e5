"""Two spellings of a GEMM's accumulation give the same result: `acc = ct.mma(x, y, acc)` and
Triton's `acc += dot(a, b)`, written `acc = acc + ct.mma(x, y, zeros)` (which
tile-fold-accumulations makes the first on the GPU)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct

ZERO = ct.PaddingMode.ZERO


@ct.kernel(num_warps=4)
def gemm_added(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, 1, (BM, BK))):
        x = ct.load(a, (i, k), (BM, BK), padding_mode=ZERO)
        y = ct.load(b, (k, j), (BK, BN), padding_mode=ZERO)
        acc = acc + ct.mma(x, y, ct.zeros((BM, BN), ct.float32))
    ct.store(c, (i, j), acc)


@pytest.mark.parametrize(("m", "n", "k"), [(70, 50, 100), (128, 64, 256)])
def test_added_products(it, rng, m, n, k):
    a = it.rand(rng, (m, k), "bfloat16", low=-1, high=1)
    b = it.rand(rng, (k, n), "bfloat16", low=-1, high=1)
    c = it.poison((m, n), "float32")
    it.launch(gemm_added, (-(-m // 64), -(-n // 32)), a, b, c, 64, 32, 32)
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5 * k)


def test_the_added_spelling_takes_the_staged_k_loop():
    a = np.zeros((4096, 4096), ml_dtypes.bfloat16)
    (loop,) = ct.explain(gemm_added, (a, a, np.zeros((4096, 4096), np.float32), 128, 128, 64),
                         num_warps=8).loops
    assert loop.path == "staged K loop", loop
