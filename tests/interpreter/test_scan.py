"""Scans: cumsum, cumprod and scan (forward and reverse), against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct


@ct.kernel
def running(x, s, p, BM: ct.Constant[int], BN: ct.Constant[int], AXIS: ct.Constant[int],
            REVERSE: ct.Constant[bool]):
    i = ct.bid(0)
    t = ct.load(x, (i, 0), (BM, BN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(s, (i, 0), ct.cumsum(t, axis=AXIS, reverse=REVERSE))
    ct.store(p, (i, 0), ct.cumprod(t, axis=AXIS, reverse=REVERSE))


def reference(x, axis, reverse, fn):
    if reverse:
        return np.flip(fn(np.flip(x, axis), axis=axis), axis)
    return fn(x, axis=axis)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize(("m", "n", "bm", "bn", "warps"),
                         [(37, 50, 8, 64, 4), (4, 1000, 4, 1024, 4), (64, 300, 64, 512, 8),
                          (1, 4096, 1, 4096, 4), (256, 3, 256, 4, 4)])
def test_int_scans(it, rng, reverse, axis, m, n, bm, bn, warps):
    x = it.rand(rng, (m, n), "int32", low=-3, high=4)
    s, p = it.poison((m, n), "int32"), it.poison((m, n), "int32")
    kernel = running.replace_hints(num_warps=warps)
    it.launch(kernel, (ct.cdiv(m, bm),), x, s, p, bm, bn, axis, reverse)
    # the zero padding of a partial tile comes first in a reverse scan along the padded axis:
    # zeros change nothing in a sum but zero a product, so build the reference on the tile
    pad = np.pad(x, ((0, (-m) % bm), (0, bn - n)))
    tiles = pad.reshape(-1, bm, bn)
    want_s = np.concatenate([reference(t, axis, reverse, np.cumsum) for t in tiles])
    with np.errstate(over="ignore"):
        want_p = np.concatenate([reference(t, axis, reverse, np.cumprod) for t in tiles])
    it.assert_same(s, want_s[:m, :n].astype(np.int32))
    it.assert_same(p, want_p[:m, :n].astype(np.int32))


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
@pytest.mark.parametrize("reverse", [False, True])
def test_float_cumsum(it, rng, dtype, reverse):
    m, n = 6, 700
    x = it.rand(rng, (m, n), dtype)
    s, p = it.poison((m, n), dtype), it.poison((m, n), dtype)
    it.launch(running, (ct.cdiv(m, 2),), x, s, p, 2, 1024, 1, reverse)
    wide = x.astype(np.float64)
    want = reference(wide, 1, reverse, np.cumsum)
    tol = 1e-3 if dtype in ("float32", "float64") else 0.1
    it.assert_close(s, want.astype(x.dtype), ulps=2048, atol=tol)


def second_wins(a, b):
    return b


def running_max(va, ia, vb, ib):
    take = vb >= va
    return ct.where(take, vb, va), ct.where(take, ib, ia)


@ct.kernel
def custom_scans(x, last, best, where, N: ct.Constant[int]):
    t = ct.load(x, (0,), (N,))
    ct.store(last, (0,), ct.scan(t, 0, second_wins, 0.0))
    idx = ct.arange(N, dtype=ct.int32)
    v, i = ct.scan((t, idx), 0, running_max, (-3.0e38, 0))
    ct.store(best, (0,), v)
    ct.store(where, (0,), i)


def test_user_scans(it, rng):
    n = 512
    x = np.round(it.rand(rng, n, "float32"))
    last, best, where = it.poison(n, "float32"), it.poison(n, "float32"), it.poison(n, "int32")
    it.launch(custom_scans, (1,), x, last, best, where, n)
    it.assert_same(last, x)  # a non-commutative combiner keeps its operands' order
    it.assert_same(best, np.maximum.accumulate(x))
    idx = np.array([max(j for j in range(k + 1) if x[j] == np.maximum.accumulate(x)[k])
                    for k in range(n)], np.int32)
    it.assert_same(where, idx)


@ct.kernel
def bool_scans(x, s, p, N: ct.Constant[int]):
    t = ct.load(x, (0,), (N,)) > 0.0
    ct.store(s, (0,), ct.cumsum(t))
    ct.store(p, (0,), ct.cumprod(t, reverse=True))


def test_bool_scans_count_in_int32(it, rng):
    x = it.rand(rng, 300, "float32")
    s, p = it.poison(300, "int32"), it.poison(300, "int32")
    it.launch(bool_scans, (1,), x, s, p, 512)
    positive = (x > 0).astype(np.int32)
    it.assert_same(s, np.cumsum(positive).astype(np.int32))
    # the padding past the array's end is zero (PaddingMode default): a reverse product sees it
    tile = np.concatenate([positive, np.zeros(212, np.int32)])
    it.assert_same(p, np.flip(np.cumprod(np.flip(tile)))[:300].astype(np.int32))
