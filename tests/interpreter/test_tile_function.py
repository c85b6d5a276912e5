"""`@tilelang.function` helpers: inlined in kernels, refused on the host unless host=True."""

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct


@ct.function
def add_one_rows(x, out, B: ct.Constant[int], N: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(out, (i, 0), ct.load(x, (i, 0), (B, N), padding_mode=ct.PaddingMode.ZERO) + 1)


@ct.function()
def twice(t):
    return t * 2


@ct.function(host=True)
def halve(v):
    return v // 2


@ct.kernel
def uses_functions(x, out, doubled, B: ct.Constant[int], N: ct.Constant[int]):
    add_one_rows(x, out, B, N)
    i = ct.bid(0)
    ct.store(doubled, (i,), twice(ct.gather(x, (i, 0))) + halve(4))


def test_functions_are_inlined(it, rng):
    x = it.rand(rng, (10, 24), np.float32)
    out = it.poison((10, 24), np.float32)
    doubled = it.poison(3, np.float32)
    it.launch(uses_functions, (ct.cdiv(10, 4),), x, out, doubled, 4, 24)
    it.assert_same(out, x + 1)
    it.assert_same(doubled, x[:3, 0] * 2 + 2)


def test_host_calls():
    with pytest.raises(RuntimeError, match="Device functions can only be called from device code"):
        twice(3)
    assert halve(9) == 4
    assert twice.__name__ == "twice" and twice.__doc__ is None
