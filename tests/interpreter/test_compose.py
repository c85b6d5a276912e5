"""astile (tiles from scalars) and divmod (builtin and ct.divmod), against NumPy."""

from __future__ import annotations

import numpy as np

import tilelang as ct


@ct.kernel
def compose(x, y, q, r, n):
    ct.store(x, (0, 0), ct.astile(((1, 2), (3, n), (n + 1, -4), (0, 5)), dtype=ct.int16))
    ct.store(y, (0,), ct.astile(2.5, dtype=ct.float32).reshape((1,)))
    a = ct.load(q, (0,), (64,))
    d, m = divmod(a, -7)
    d2, m2 = ct.divmod(a, 5)
    ct.store(q, (0,), d * 1000 + d2)
    ct.store(r, (0,), m * 1000 + m2)


def test_astile_and_divmod(it, rng):
    x, y = it.poison((4, 2), "int16"), it.poison(1, "float32")
    q = it.rand(rng, 64, "int32", low=-500, high=500)
    r = it.poison(64, "int32")
    a = q.copy()
    it.launch(compose, (1,), x, y, q, r, 9)
    it.assert_same(x, np.array([[1, 2], [3, 9], [10, -4], [0, 5]], np.int16))
    it.assert_same(y, np.array([2.5], np.float32))
    it.assert_same(q, (a // -7 * 1000 + a // 5).astype(np.int32))
    it.assert_same(r, (a % -7 * 1000 + a % 5).astype(np.int32))
