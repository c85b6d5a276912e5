"""Reductions: sum, prod, max, min, argmax, argmin and reduce, against NumPy."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct

OPS = {"sum": ct.sum, "prod": ct.prod, "max": ct.max, "min": ct.min, "argmax": ct.argmax,
       "argmin": ct.argmin}


def make_rows_kernel(op):
    """Reduce (BM, BN) tiles of a 2-d array along axis 1 into out[m] (or out[m, 1])."""
    fn = OPS[op]

    @ct.kernel
    def rows(x, out, BM: ct.Constant[int], BN: ct.Constant[int], KEEP: ct.Constant[bool]):
        i = ct.bid(0)
        t = ct.load(x, (i, 0), (BM, BN), padding_mode=ct.PaddingMode.ZERO)
        if KEEP:
            ct.store(out, (i, 0), fn(t, axis=1, keepdims=True))
        else:
            ct.store(out, (i,), fn(t, axis=1))

    return rows


def make_cols_kernel(op):
    """Reduce (BM, BN) tiles along axis 0 into out[n] (tiles cover all rows)."""
    fn = OPS[op]

    @ct.kernel
    def cols(x, out, BM: ct.Constant[int], BN: ct.Constant[int]):
        j = ct.bid(0)
        ct.store(out, (j,), fn(ct.load(x, (0, j), (BM, BN)), axis=0))

    return cols


KERNELS = {op: (make_rows_kernel(op), make_cols_kernel(op)) for op in OPS}


def reference(op: str, x: np.ndarray, axis, keepdims=False) -> np.ndarray:
    wide = x.astype(np.float32) if x.dtype in (np.float16, ml_dtypes.bfloat16) else x
    if op in ("argmax", "argmin"):
        r = getattr(np, op)(x.astype(np.float64) if x.dtype.kind == "V" or x.dtype ==
                            ml_dtypes.bfloat16 else x, axis=axis, keepdims=keepdims)
        return r.astype(np.int32)
    fn = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}[op]
    r = fn(wide, axis=axis, keepdims=keepdims)
    return np.asarray(r).astype(x.dtype) if x.dtype.kind != "b" else np.asarray(r)


def data(it, rng, shape, dtype, op):
    if op == "prod":
        if it.is_float(dtype):
            return it.rand(rng, shape, dtype, low=0.9, high=1.1)
        return it.rand(rng, shape, dtype, low=0 if np.dtype(dtype).kind == "u" else -2, high=3)
    if op in ("argmax", "argmin") and not it.is_float(dtype):
        return it.rand(rng, shape, dtype, low=0, high=5)  # many ties: the first index wins
    if it.is_float(dtype):
        return it.rand(rng, shape, dtype)
    return it.rand(rng, shape, dtype, low=-50, high=50) if np.dtype(dtype).kind == "i" else \
        it.rand(rng, shape, dtype, low=0, high=50)


def check(it, op, got, want):
    if op in ("sum", "prod") and it.is_float(want.dtype):
        it.assert_close(got, want, ulps=64, atol=1e-3 if want.dtype == np.float32 else 1e-2)
    else:
        it.assert_same(got, want)


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "int32", "int8", "uint16"])
@pytest.mark.parametrize(("m", "n", "bm", "bn"), [(37, 50, 8, 64), (5, 300, 4, 512)])
def test_rows(it, rng, op, dtype, m, n, bm, bn):
    x = data(it, rng, (m, n), dtype, op)
    # the tile's elements past the array's end are zeros (PaddingMode.ZERO) and take part
    want = reference(op, np.pad(x, ((0, 0), (0, bn - n))), 1)
    out = it.poison(m, want.dtype)
    rows, _ = KERNELS[op]
    it.launch(rows, (ct.cdiv(m, bm),), x, out, bm, bn, False)
    check(it, op, out, want)


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dtype", ["float32", "int16"])
def test_columns_and_keepdims(it, rng, op, dtype):
    m, n = 16, 200  # the tile covers all 16 rows; 200 columns in tiles of 64 (the last partial)
    x = data(it, rng, (m, n), dtype, op)
    out = it.poison(n, reference(op, x, 0).dtype)
    _, cols = KERNELS[op]
    it.launch(cols, (ct.cdiv(n, 64),), x, out, m, 64)
    check(it, op, out, reference(op, x, 0))
    kept = it.poison((m, 1), out.dtype)
    rows, _ = KERNELS[op]
    it.launch(rows, (2,), x[:, :128].copy(), kept, 8, 128, True)
    check(it, op, kept, reference(op, x[:, :128], 1, keepdims=True))


@ct.kernel
def all_axes(x, s, mx, am, BM: ct.Constant[int], BN: ct.Constant[int]):
    t = ct.load(x, (0, 0), (BM, BN), padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(mx, (0,), ct.max(t))
    ct.store(am, (0, 0), ct.argmax(t, keepdims=True))
    ct.store(s, (0,), ct.sum(ct.where(t > -1e30, t, 0.0), axis=(0, 1)))


@pytest.mark.parametrize(("m", "n", "warps"), [(3, 5, 4), (16, 256, 4), (64, 64, 8), (1, 4096, 8)])
def test_all_axes(it, rng, m, n, warps):
    x = it.rand(rng, (m, n), "float32")
    s, mx, am = it.poison(1, "float32"), it.poison(1, "float32"), it.poison((1, 1), "int32")
    bm, bn = 1 << (m - 1).bit_length(), 1 << (n - 1).bit_length()
    it.launch(all_axes.replace_hints(num_warps=warps), (1,), x, s, mx, am, bm, bn)
    it.assert_close(s, np.array([x.sum()], np.float32), ulps=256, atol=1e-3)
    it.assert_same(mx, np.array([x.max()], np.float32))
    flat = int(np.argmax(np.pad(x, ((0, bm - m), (0, bn - n)), constant_values=-np.inf)))
    it.assert_same(am, np.array([[flat]], np.int32))


@ct.kernel
def middle_axes(x, out, B: ct.Constant[int]):
    t = ct.load(x, (0, 0, 0), (B, 8, 16))
    ct.store(out, (0, 0), ct.reshape(ct.sum(t, axis=(0, 2), keepdims=True), (8, 1)))


def test_tuple_of_axes_3d(it, rng):
    x = it.rand(rng, (4, 8, 16), "int32", low=-100, high=100)
    out = it.poison((8, 1), "int32")
    it.launch(middle_axes, (1,), x, out, 4)
    it.assert_same(out, x.sum(axis=(0, 2), keepdims=True)[0].astype(np.int32))


@ct.kernel
def bool_sum(x, out, N: ct.Constant[int]):
    t = ct.load(x, (0,), (N,))
    ct.store(out, (0,), ct.sum(t > 0.0, axis=0))


def test_bool_sum_counts(it, rng):
    x = it.rand(rng, 700, "float32")
    out = it.poison(1, "int32")
    it.launch(bool_sum, (1,), x, out, 1024)
    it.assert_same(out, np.array([(x > 0).sum()], np.int32))


@ct.kernel
def nan_rows(x, mx, mn, amx, amn, PROPAGATE: ct.Constant[bool]):
    t = ct.load(x, (0, 0), (4, 8))
    ct.store(mx, (0,), ct.max(t, axis=1, propagate_nan=PROPAGATE))
    ct.store(mn, (0,), ct.min(t, axis=1, propagate_nan=PROPAGATE))
    ct.store(amx, (0,), ct.argmax(t, axis=1, propagate_nan=PROPAGATE))
    ct.store(amn, (0,), ct.argmin(t, axis=1, propagate_nan=PROPAGATE))


@pytest.mark.parametrize("propagate", [False, True])
def test_nan_handling(it, propagate):
    nan, inf = np.nan, np.inf
    x = np.array([[3, inf, nan, 1.5, 5, -2, 2, 6], [nan, nan, 7, 1, nan, 8, nan, 0.5],
                  [5, -3, 2, nan, 4, 0, -inf, 1], [nan] * 8], np.float32)
    outs = [it.poison(4, "float32"), it.poison(4, "float32"), it.poison(4, "int32"),
            it.poison(4, "int32")]
    it.launch(nan_rows, (1,), x, *outs, propagate)
    if propagate:  # torch's amax / amin, and the first NaN's index
        want = [np.max(x, 1), np.min(x, 1), np.argmax(x, 1), np.argmin(x, 1)]
    else:
        want = [np.nanmax(np.where(np.isnan(x).all(1, keepdims=True), 0, x), 1),
                np.nanmin(np.where(np.isnan(x).all(1, keepdims=True), 0, x), 1),
                np.array([1, 5, 0, 0]), np.array([5, 7, 6, 0])]
        want[0][3] = want[1][3] = nan
    for got, w in zip(outs, want):
        it.assert_same(got, np.asarray(w).astype(got.dtype))


def add_pairs(a, b):
    return a + b


def max_with_count(va, ca, vb, cb):
    bigger = vb > va
    same = vb == va
    return ct.where(bigger, vb, va), ct.where(bigger, cb, ct.where(same, ca + cb, ca))


@ct.kernel
def custom(x, total, best, count, BN: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, (i, 0), (1, BN), padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(total, (i,), ct.reduce(ct.where(t > -1e30, t, 0.0), 1, add_pairs, 0.0))
    ones = ct.full((1, BN), 1, ct.int32)
    v, c = ct.reduce((t, ones), 1, max_with_count, (-3.0e38, 0))
    ct.store(best, (i,), v)
    ct.store(count, (i,), c)


def test_user_combiners(it, rng):
    x = np.round(it.rand(rng, (6, 100), "float32"))  # rounded: the maximum repeats
    total, best, count = it.poison(6, "float32"), it.poison(6, "float32"), it.poison(6, "int32")
    it.launch(custom, (6,), x, total, best, count, 128)
    it.assert_close(total, x.sum(1), ulps=64, atol=1e-3)
    it.assert_same(best, x.max(1))
    it.assert_same(count, (x == x.max(1, keepdims=True)).sum(1).astype(np.int32))
