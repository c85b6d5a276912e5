"""Spellings of one attention loop and of one GEMM take the same fast path (issue 24: what a
kernel means should decide its speed, not how it is written). Each is compiled for sm_90 (no
GPU needed) and `ct.explain` must report the staged path: keys transposed by `ct.transpose` or
loaded with `order=`, the mask applied by `ct.where` at every step, `exp` or `exp2`, `ct.matmul`
or `ct.mma`; a GEMM's B given (K, N) or (N, K) (transposed or loaded with `order=`), and
Triton's `acc += dot(a, b)` (tests/interpreter/test_accumulate_spellings.py). A spelling that
falls off the path fails here first."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct

BF = ml_dtypes.bfloat16
ZERO = ct.PaddingMode.ZERO
S, D = 4096, 128


def masked(s, j, BN, keys):
    """Scores of key block j with the columns past the last key at -inf (every block)."""
    cols = j * BN + ct.arange(BN, dtype=ct.int32)[None, :]
    return ct.where(cols < keys, s, -math.inf)


def fold_exp2(s, vt, acc, m, total, qk_scale):
    """The online softmax's step in exp2 units: (acc, max, sum) after one key block."""
    mn = ct.maximum(m, ct.max(s, axis=1, keepdims=True) * qk_scale)
    p = ct.exp2(s * qk_scale - mn)
    a = ct.exp2(m - mn)
    total = total * a + ct.sum(p, axis=1, keepdims=True)
    return ct.mma(p.astype(vt.dtype), vt, acc * a), mn, total


@ct.kernel(num_warps=8)
def attn_transpose(q, k, v, out, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
        D: ct.Constant[int]):
    i = ct.bid(0)
    qt = ct.load(q, (i, 0), (BM, D), padding_mode=ZERO)
    acc = ct.zeros((BM, D), ct.float32)
    m = ct.full((BM, 1), -math.inf, ct.float32)
    total = ct.zeros((BM, 1), ct.float32)
    for j in range(ct.cdiv(k.shape[0], BN)):
        kt = ct.load(k, (j, 0), (BN, D), padding_mode=ZERO)
        vt = ct.load(v, (j, 0), (BN, D), padding_mode=ZERO)
        s = ct.mma(qt, ct.transpose(kt), ct.zeros((BM, BN), ct.float32))
        s = masked(s, j, BN, k.shape[0])
        acc, m, total = fold_exp2(s, vt, acc, m, total, qk_scale)
    ct.store(out, (i, 0), (acc / total).astype(out.dtype))

@ct.kernel(num_warps=8)
def attn_order(q, k, v, out, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
        D: ct.Constant[int]):
    i = ct.bid(0)
    qt = ct.load(q, (i, 0), (BM, D), padding_mode=ZERO)
    acc = ct.zeros((BM, D), ct.float32)
    m = ct.full((BM, 1), -math.inf, ct.float32)
    total = ct.zeros((BM, 1), ct.float32)
    for j in range(ct.cdiv(k.shape[0], BN)):
        kt = ct.load(k, (0, j), (D, BN), order=(1, 0), padding_mode=ZERO)
        vt = ct.load(v, (j, 0), (BN, D), padding_mode=ZERO)
        s = ct.mma(qt, kt, ct.zeros((BM, BN), ct.float32))
        s = masked(s, j, BN, k.shape[0])
        acc, m, total = fold_exp2(s, vt, acc, m, total, qk_scale)
    ct.store(out, (i, 0), (acc / total).astype(out.dtype))

@ct.kernel(num_warps=8)
def attn_matmul_exp(q, k, v, out, scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
        D: ct.Constant[int]):
    """exp (not exp2), ct.matmul with a transposed tile, the scale applied to q first."""
    i = ct.bid(0)
    qt = ct.load(q, (i, 0), (BM, D), padding_mode=ZERO)
    acc = ct.zeros((BM, D), ct.float32)
    m = ct.full((BM, 1), -math.inf, ct.float32)
    total = ct.zeros((BM, 1), ct.float32)
    for j in range(ct.cdiv(k.shape[0], BN)):
        kt = ct.load(k, (j, 0), (BN, D), padding_mode=ZERO)
        vt = ct.load(v, (j, 0), (BN, D), padding_mode=ZERO)
        s = ct.matmul(qt, ct.transpose(kt)) * scale
        s = masked(s, j, BN, k.shape[0])
        mn = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - mn)
        a = ct.exp(m - mn)
        total = total * a + ct.sum(p, axis=1, keepdims=True)
        acc = acc * a + ct.matmul(p.astype(v.dtype), vt)
        m = mn
    ct.store(out, (i, 0), (acc / total).astype(out.dtype))

@ct.kernel(num_warps=8)
def gemm_plain(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, 1, (BM, BK))):
        x = ct.load(a, (i, k), (BM, BK), padding_mode=ZERO)
        w = ct.load(b, (k, j), (BK, BN), padding_mode=ZERO)
        acc = ct.mma(x, w, acc)
    ct.store(c, (i, j), acc.astype(c.dtype))

@ct.kernel(num_warps=8)
def gemm_bias_relu(a, b, bias, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, 1, (BM, BK))):
        x = ct.load(a, (i, k), (BM, BK), padding_mode=ZERO)
        w = ct.load(b, (k, j), (BK, BN), padding_mode=ZERO)
        acc = ct.mma(x, w, acc)
    row = ct.load(bias, (j,), (BN,), padding_mode=ZERO).astype(ct.float32)
    acc = ct.maximum(acc + row[None, :], 0.0)
    ct.store(c, (i, j), acc.astype(c.dtype))

@ct.kernel(num_warps=8)
def gemm_nk_transpose(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, 1, (BM, BK))):
        x = ct.load(a, (i, k), (BM, BK), padding_mode=ZERO)
        w = ct.load(b, (j, k), (BN, BK), padding_mode=ZERO)
        acc = ct.mma(x, ct.transpose(w), acc)
    ct.store(c, (i, j), acc.astype(c.dtype))

@ct.kernel(num_warps=8)
def gemm_nk_order(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, 1, (BM, BK))):
        x = ct.load(a, (i, k), (BM, BK), padding_mode=ZERO)
        w = ct.load(b, (k, j), (BK, BN), order=(1, 0), padding_mode=ZERO)
        acc = ct.mma(x, w, acc)
    ct.store(c, (i, j), acc.astype(c.dtype))

@ct.kernel(num_warps=8)
def gemm_batched_reshape(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    """cuTile's batch_matmul: 3-d tiles of unit batch reshaped to 2-d for the product."""
    z, i, j = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.cdiv(a.shape[2], BK)):
        x = ct.reshape(ct.load(a, (z, i, k), (1, BM, BK), padding_mode=ZERO), (BM, BK))
        w = ct.reshape(ct.load(b, (z, k, j), (1, BK, BN), padding_mode=ZERO), (BK, BN))
        acc = ct.mma(x, w, acc)
    ct.store(c, (z, i, j), ct.reshape(acc.astype(c.dtype), (1, BM, BN)))


def _attention_args(kernel):
    q, o = np.zeros((S, D), BF), np.zeros((S, D), BF)
    keys = np.zeros((D, S), BF) if kernel is attn_order else q
    return (q, keys, q, o, 0.1, 128, 128, D)


@pytest.mark.parametrize("kernel", [attn_transpose, attn_order, attn_matmul_exp],
                         ids=lambda k: k.name)
def test_attention_spellings_are_staged_on_wgmma(kernel):
    report = ct.explain(kernel, _attention_args(kernel))
    # every key block masked as written: tile-split-masked-loops runs the blocks before the
    # last one without the mask, so the loop is two, both staged
    assert len(report.loops) == 2, str(report)
    assert all(loop.fast and loop.path == "staged products" for loop in report.loops), \
        str(report)
    assert report.instructions["wgmma"] > 0
    # ct.matmul returns bfloat16: `acc * a + ct.matmul(p, v)` rounds each block's product
    # before adding it, which explain reports (the other spellings accumulate in float32)
    rounded = [r for r in report.fallbacks if getattr(r, "engine", "") ==
               "rounded, then accumulated"]
    assert len(rounded) == (2 if kernel is attn_matmul_exp else 0), str(report)
    assert len(report.fallbacks) == len(rounded), str(report)


@pytest.mark.parametrize("kernel", [gemm_plain, gemm_bias_relu, gemm_nk_transpose, gemm_nk_order,
                                    gemm_batched_reshape], ids=lambda k: k.name)
def test_gemm_spellings_take_the_staged_k_loop(kernel):
    a = np.zeros((4096, 4096), BF)
    args = (a, a, np.zeros(4096, BF), a) if kernel is gemm_bias_relu else (a, a, a)
    if kernel is gemm_batched_reshape:
        args = (np.zeros((2, 4096, 4096), BF),) * 3
    report = ct.explain(kernel, (*args, 128, 256, 64))
    (loop,) = report.loops
    assert loop.path == "staged K loop", str(report)
