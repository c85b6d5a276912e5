"""`x ** 2` compiles to a product, not to libdevice's pow (tile-reduce-strength)."""

from __future__ import annotations

import numpy as np

import tilelang as ct


@ct.kernel
def variance_terms(x, out, n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(n,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(ct.bid(0),), tile=(t - 1.5) ** 2 + t ** 2.0)


def test_square_is_a_product_in_the_ptx():
    x = np.zeros(1000, np.float32)
    ck = ct.compile(variance_terms, (x, x, 256))
    assert "tile.pow" in ck.asm["tile"]
    assert "tile.pow" not in ck.asm["tile-opt"]
    assert "ex2" not in ck.asm["ptx"] and "lg2" not in ck.asm["ptx"]  # no pow's exp and log
