"""Counting `while` loops (`while k < n: ...; k += step`), which tile-uplift-while-loops makes
`scf.for` loops, against NumPy on both backends: starts and steps that leave a partial last
tile, and a loop whose counter is read after it (left a `while`)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tilelang as ct


@ct.kernel
def counted_sums(x, out, START: ct.Constant[int], STEP: ct.Constant[int], T: ct.Constant[int]):
    """out[0] = the sum of x's tiles START, START + STEP, ... below its tile count; out[1] the
    same from a loop whose counter is read after it (left a while loop)."""
    n = ct.num_tiles(x, axis=0, shape=(T,))
    total = ct.zeros((T,), ct.float32)
    k = START
    while k < n:
        total = total + ct.load(x, (k,), (T,), padding_mode=ct.PaddingMode.ZERO)
        k += STEP
    ct.store(out, (0, 0), total.reshape((1, T)))
    again = ct.zeros((T,), ct.float32)
    m = START
    while m < n:
        again = again + ct.load(x, (m,), (T,), padding_mode=ct.PaddingMode.ZERO)
        m = m + STEP
    ct.store(out, (1, 0), (again + m).reshape((1, T)))


@pytest.mark.parametrize(("start", "step"), [(0, 1), (1, 3), (9, 2)])
def test_counting_loops_on_both_backends(it, start, step):
    rng = np.random.default_rng(start + step)
    t = 16
    x = rng.standard_normal(140).astype(np.float32)  # 9 tiles, the last partial
    out = it.poison((2, t), np.float32)
    it.launch(counted_sums, (1,), x, out, start, step, t)
    tiles = np.zeros((math.ceil(140 / t) * t,), np.float32)
    tiles[:140] = x
    picked = list(range(start, math.ceil(140 / t), step))
    want = sum((tiles[k * t:(k + 1) * t] for k in picked), np.zeros(t, np.float32))
    last = start + step * len(picked) if picked else start
    np.testing.assert_allclose(out[0], want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out[1], want + last, rtol=1e-5, atol=1e-5)
