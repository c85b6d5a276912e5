"""Loops that mask their tiles by the loop index (tile-split-masked-loops runs the all-true
iterations without the masks): the results are the same as the kernels as written, for masks
that bound the index from above (keys past the end, the causal diagonal), from below (a
sliding window's start) and both, at sizes that are not multiples of the tiles."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tilelang as ct

ZERO = ct.PaddingMode.ZERO


@ct.kernel(num_warps=4)
def band_sums(x, out, lo: int, hi: int, BM: ct.Constant[int], BN: ct.Constant[int]):
    """out[r] = sum of x[r, c] over lo <= c - r < hi and c < x.shape[1], block by block."""
    i = ct.bid(0)
    rows = i * BM + ct.arange(BM, dtype=ct.int32)[:, None]
    acc = ct.zeros((BM, BN), ct.int32)
    for j in range(ct.cdiv(x.shape[1], BN)):
        t = ct.load(x, (i, j), (BM, BN), padding_mode=ZERO)
        cols = j * BN + ct.arange(BN, dtype=ct.int32)[None, :]
        keep = (cols < x.shape[1]) & (cols - rows >= lo) & (cols - rows < hi)
        acc = acc + ct.where(keep, t, 0)
    ct.store(out, (i,), ct.sum(acc, axis=1))


@pytest.mark.parametrize(("m", "n", "lo", "hi"), [(70, 150, -20, 5), (64, 200, 0, 1000),
                                                   (33, 97, -1000, -10), (100, 64, 50, 60)])
def test_band_sums_match(it, rng, m, n, lo, hi):
    x = rng.integers(-100, 100, (m, n)).astype(np.int32)
    out = it.poison((m,), "int32")
    it.launch(band_sums, (-(-m // 16),), x, out, lo, hi, 16, 32)
    r, c = np.arange(m)[:, None], np.arange(n)[None, :]
    want = np.where((c - r >= lo) & (c - r < hi), x, 0).sum(axis=1)
    np.testing.assert_array_equal(out, want)


@ct.kernel(num_warps=4)
def window_attention(q, k, v, out, scale: float, W: int, BM: ct.Constant[int],
                     BN: ct.Constant[int], D: ct.Constant[int]):
    """Causal attention over the last W keys of each query (rows - W < cols <= rows), every
    key block masked as written."""
    i = ct.bid(0)
    rows = i * BM + ct.arange(BM, dtype=ct.int32)[:, None]
    x = ct.load(q, (i, 0), (BM, D), padding_mode=ZERO)
    acc = ct.zeros((BM, D), ct.float32)
    m = ct.full((BM, 1), -math.inf, ct.float32)
    total = ct.zeros((BM, 1), ct.float32)
    for j in range(ct.cdiv(k.shape[0], BN)):
        keys = ct.load(k, (j, 0), (BN, D), padding_mode=ZERO)
        values = ct.load(v, (j, 0), (BN, D), padding_mode=ZERO)
        s = ct.mma(x, ct.transpose(keys), ct.zeros((BM, BN), ct.float32)) * scale
        cols = j * BN + ct.arange(BN, dtype=ct.int32)[None, :]
        keep = (cols < k.shape[0]) & (cols <= rows) & (cols > rows - W)
        s = s + ct.where(keep, 0.0, -math.inf)
        mn = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        base = ct.where(mn == -math.inf, 0.0, mn)  # rows whose keys are all still masked
        p = ct.exp(s - base)
        alpha = ct.exp(m - base)
        total = total * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(v.dtype), values, acc * alpha)
        m = mn
    ct.store(out, (i, 0), (acc / total).astype(out.dtype))


@pytest.mark.parametrize(("seq", "window"), [(200, 70), (130, 1000), (96, 1)])
def test_window_attention_matches(it, rng, seq, window):
    d = 64
    q, k, v = (it.rand(rng, (seq, d), "bfloat16", low=-1, high=1) for _ in range(3))
    out = it.poison((seq, d), "bfloat16")
    it.launch(window_attention, (-(-seq // 64),), q, k, v, out, 1 / math.sqrt(d), window,
              64, 64, d)
    qf, kf, vf = (t.astype(np.float64) for t in (q, k, v))
    s = qf @ kf.T / math.sqrt(d)
    r, c = np.arange(seq)[:, None], np.arange(seq)[None, :]
    s = np.where((c <= r) & (c > r - window), s, -np.inf)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    want = (p / p.sum(axis=1, keepdims=True)) @ vf
    np.testing.assert_allclose(out.astype(np.float64), want, atol=2e-2, rtol=2e-2)


@ct.kernel(num_warps=4)
def causal_attention_if(q, k, v, out, scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                        D: ct.Constant[int]):
    """cuTile's attention loop: the mask added under `if j >= mask_start:` (a uniform branch
    on the index), the loop to the last key block a query block sees. The selects inside the
    branch are not directly in the loop's body: the loop is left whole."""
    i = ct.bid(0)
    rows = i * BM + ct.arange(BM, dtype=ct.int32)[:, None]
    x = ct.load(q, (i, 0), (BM, D), padding_mode=ZERO)
    acc = ct.zeros((BM, D), ct.float32)
    m = ct.full((BM, 1), -math.inf, ct.float32)
    total = ct.zeros((BM, 1), ct.float32)
    keys_len = k.shape[0]
    mask_start = ct.minimum((i * BM) // BN, keys_len // BN)
    for j in range(ct.cdiv(ct.minimum((i + 1) * BM, keys_len), BN)):
        keys = ct.load(k, (j, 0), (BN, D), padding_mode=ZERO)
        values = ct.load(v, (j, 0), (BN, D), padding_mode=ZERO)
        s = ct.mma(x, ct.transpose(keys), ct.zeros((BM, BN), ct.float32)) * scale
        if j >= mask_start:
            cols = j * BN + ct.arange(BN, dtype=ct.int32)[None, :]
            s = s + ct.where((cols < keys_len) & (cols <= rows), 0.0, -math.inf)
        mn = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - mn)
        alpha = ct.exp(m - mn)
        total = total * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(v.dtype), values, acc * alpha)
        m = mn
    ct.store(out, (i, 0), (acc / total).astype(out.dtype))


@pytest.mark.parametrize("seq", [200, 256, 67])
def test_causal_attention_with_an_if_matches(it, rng, seq):
    d = 64
    q, k, v = (it.rand(rng, (seq, d), "bfloat16", low=-1, high=1) for _ in range(3))
    out = it.poison((seq, d), "bfloat16")
    it.launch(causal_attention_if, (-(-seq // 64),), q, k, v, out, 1 / math.sqrt(d), 64, 32, d)
    qf, kf, vf = (t.astype(np.float64) for t in (q, k, v))
    s = np.where(np.tri(seq, seq, dtype=bool), qf @ kf.T / math.sqrt(d), -np.inf)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    want = (p / p.sum(axis=1, keepdims=True)) @ vf
    np.testing.assert_allclose(out.astype(np.float64), want, atol=2e-2, rtol=2e-2)


def test_a_loop_masking_under_an_if_stays_whole():
    """The branch costs nothing where it is not taken; splitting there would add a pipeline
    drain (cuTile's causal attention: 1.133 ms split, 1.105 whole), so the loop stays one,
    staged."""
    import ml_dtypes

    x = np.zeros((1024, 64), ml_dtypes.bfloat16)
    report = ct.explain(causal_attention_if, (x, x, x, x, 0.125, 128, 64, 64), num_warps=8)
    assert len(report.loops) == 1, str(report)
    assert report.loops[0].path == "staged products", str(report)


def test_the_masked_loop_is_split():
    """The band sums' loop becomes three: masked, clean, masked (explain lists each loop)."""
    x = np.zeros((256, 256), np.int32)
    report = ct.explain(band_sums, (x, np.zeros(256, np.int32), -20, 5, 16, 32))
    assert len(report.loops) == 3, str(report)
