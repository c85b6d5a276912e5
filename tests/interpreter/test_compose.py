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


@ct.kernel
def astile_conversions(b, f, i, x):
    ct.store(b, (0,), ct.astile((2.5, 0.0, 4, 0, -1, True, 0.0, x), dtype=ct.bool_))
    ct.store(f, (0, 0), ct.astile(((ct.int8(-3), x), (7, 1.25)), dtype=ct.float16))
    q, r = divmod(7.5, -2.0)  # constants fold as Python's divmod, floats included
    ct.store(i, (0,), ct.astile((-7.9, 300, q, r), dtype=ct.int8))  # astype: truncate, wrap


def test_astile_converts_as_astype(it):
    b, f, i = it.poison(8, "bool_"), it.poison((2, 2), "float16"), it.poison(4, "int8")
    it.launch(astile_conversions, (1,), b, f, i, 0.5)
    it.assert_same(b, np.array([1, 0, 1, 0, 1, 1, 0, 1], bool))
    it.assert_same(f, np.array([[-3, 0.5], [7, 1.25]], np.float16))
    it.assert_same(i, np.array([-7, 44, -4, -0.5], np.float64).astype(np.int8))
