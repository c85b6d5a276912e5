"""Products over a K that is not a power of two, of operands whose padding (past K, up to the
power of two the registers hold) is not zero: computed tiles (exp(0) is 1 in the padding) and
reshaped ones (a reshape through shared memory copies real elements there). The padding must
not reach the sum."""

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct


@ct.kernel
def exp_product(X, Y, OUT, M: ct.Constant[int], N: ct.Constant[int], K: ct.Constant[int]):
    x = ct.exp(ct.load(X, (0, 0), (M, K)))
    y = ct.exp(ct.load(Y, (0, 0), (K, N)))
    ct.store(OUT, (0, 0), ct.mma(x, y, ct.zeros((M, N), ct.float32)))


@ct.kernel
def reshaped_product(X, Y, OUT, M: ct.Constant[int], N: ct.Constant[int], K: ct.Constant[int]):
    x = ct.load(X, (0,), (M * K,)).reshape((M, K))
    y = ct.load(Y, (0,), (K * N,)).reshape((K, N))
    ct.store(OUT, (0, 0), ct.mma(x, y, ct.zeros((M, N), ct.float32)))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize(("m", "n", "k"), [(16, 16, 24), (37, 46, 48), (32, 8, 12)])
def test_computed_operands(it, rng, dtype, m, n, k):
    x = it.rand(rng, (m, k), dtype, low=-1, high=1)
    y = it.rand(rng, (k, n), dtype, low=-1, high=1)
    out = it.poison((m, n), "float32")
    it.launch(exp_product, (1,), x, y, out, m, n, k)
    ex, ey = (np.exp(v.astype(np.float32)).astype(v.dtype).astype(np.float64) for v in (x, y))
    np.testing.assert_allclose(out, ex @ ey, rtol=1e-5, atol=1e-5 * k)


@pytest.mark.parametrize(("m", "n", "k"), [(16, 16, 24), (37, 46, 48)])
def test_reshaped_operands(it, rng, m, n, k):
    x = it.rand(rng, m * k, "float16", low=-1, high=1)
    y = it.rand(rng, k * n, "float16", low=-1, high=1)
    out = it.poison((m, n), "float32")
    it.launch(reshaped_product, (1,), x, y, out, m, n, k)
    want = x.astype(np.float64).reshape(m, k) @ y.astype(np.float64).reshape(k, n)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5 * k)
