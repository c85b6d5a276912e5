"""A square by a constant exponent (`x ** 2`, a product after tile-reduce-strength on the GPU)
gives NumPy's square exactly, special values included."""

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct

FLOATS = ["float16", "bfloat16", "float32", "float64"]
N, TILE = 1000, 256


@ct.kernel
def squares(x, out, n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(n,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(ct.bid(0),), tile=(t - 1.5) ** 2 + t ** 2.0)


@pytest.mark.parametrize("dtype", FLOATS)
def test_square_by_constant(it, rng, dtype):
    x = it.rand(rng, N, dtype) * np.asarray(rng.choice([1e-3, 1.0, 50.0], N), it.np_dtype(dtype))
    x[:5] = [np.inf, -np.inf, np.nan, -0.0, 0.0]
    out = it.poison(N, dtype)
    it.launch(squares, (-(-N // TILE),), x, out, TILE)
    d = it.np_dtype(dtype)
    with np.errstate(all="ignore"):
        shifted = (x.astype(np.float64) - 1.5).astype(d).astype(np.float64)
        want = ((shifted * shifted).astype(d).astype(np.float64)
                + (x.astype(np.float64) ** 2).astype(d).astype(np.float64)).astype(d)
    it.assert_same(out, want)
