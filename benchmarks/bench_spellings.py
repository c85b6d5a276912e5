"""Benchmark: one computation, several spellings (issue 24's idiom test). What a kernel means
should decide its speed, not how it is written: each spelling below is timed with the same
tile configurations, and the table gives each one's ratio to the best spelling of its case
(target: every spelling within 10%, >= 0.90) and to the best peer.

GEMM + bias + GELU (tanh form), bf16 in and out, float32 accumulation; peers: cuBLASLt's fused
epilogue (`torch._addmm_activation(bias, a, b, use_gelu=True)`), unfused `addmm` then
`gelu(approximate="tanh")`, and `torch.matmul` alone (what the epilogue costs). Spellings:
  plain     no epilogue (the GEMM alone; not a spelling of the fused math, the floor)
  inline    the epilogue written out after the K loop, `x * x * x`
  helper    bias and GELU in helper functions, `x ** 3`
  sigmoid   GELU as x * sigmoid(2u) = x / (1 + exp(-2u)), the same function by another formula
  linear    weights (N, K) as nn.Linear stores them, `ct.transpose` of each tile, and the
            accumulation spelled `acc = acc + ct.mma(x, w, 0)` (Triton's `acc += dot`)
  persistent  one block an SM walking the output tiles (8 block rows at a time), the
            epilogue inline
  weights_t the inline kernel given B as `w.t()` (nn.Linear's (N, K) weights, transposed by
            PyTorch: a column-major B, read through a row-major view)
  a_t       A stored (K, M) (a weight gradient's `dy`), its (BK, BM) tiles `ct.transpose`d
  approx    the inline epilogue with `ct.tanh(..., rounding_mode=APPROX)` (tanh.approx): not a
            spelling but the precision cuBLASLt's fused epilogue has (its output differs from
            the correctly rounded GELU exactly as often: 0.98% of elements at 4096^3, against
            0.39% for the precise tanh): compared with the peers, not with the spellings
(Not `acc + ct.matmul(x, w)`: matmul returns bfloat16 for bfloat16 inputs, so that spelling
rounds every K tile's product to bfloat16, another and less precise computation.)
Shapes (M x N x K): 4096^3, 8192^3, 256x14336x4096 (the issue's).

Flash attention forward, bf16 (batch, heads, seq, 128), causal and full; peers: torch SDPA on
cuDNN and on flash. Spellings:
  sample       samples/attention.py as it stands (split loop, and a block order of its own: heads
               in groups that share L2, the longest causal blocks first): not a spelling of
               the others' block order, so listed beside them, not in their best
  split        key loop split in unmasked blocks and masked ones, keys by `ct.transpose`,
               mask by `ct.where`, exp2 with the scale folded
  where        one key loop, every block masked by `ct.where`
  order_add    one key loop, keys loaded transposed (`order=`), the mask added as a tile of 0
               and -inf, the rescale written `acc * alpha + ct.mma(p, v, 0)` (Triton's
               `acc = acc * alpha; acc += dot`)
  helper       split loop, the online-softmax step in a helper function
  scaled_if    the query scaled before the loop (the product's A a computed tile), one loop,
               the mask applied under a runtime `if` from the first masked block
Every spelling takes exp2 with flush_to_zero=True, as the sample and cuTile's FMHA kernel do
(the bare ex2 instruction; without it, three more instructions an element keep subnormal
probabilities): that is a choice of precision, not of spelling.
Shapes: seq 1024 and 8192 at 16384 tokens per batch, 16 heads of 128.

Every implementation is checked first on fresh random inputs against a float32 reference, with
its output poisoned (NaN); a wrong one is a row saying so. Timing: CUDA-graph replays, event
medians (common.timed); then each case's chosen implementations (every spelling's two best
configurations, every peer) again, 5 rounds in shuffled orders, each keeping its best median:
the GPU's clocks drift with power and temperature during the sweep, and a kernel timed right
after a hungrier one runs at the clocks the power limit left it. JSON and PNG:
results/spellings.json, .png.

    python benchmarks/bench_spellings.py [--cases gemm,attention] [--quick]
    python benchmarks/bench_spellings.py --dry-run   # no GPU: explain every spelling for sm_90
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

import ml_dtypes
import numpy as np
import sweep
from common import bar_plot, save, table, timed

import tilelang as ct

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "samples"))
import attention  # the sample's kernel is one of the spellings

ZERO = ct.PaddingMode.ZERO
LOG2_E = 1.4426950408889634
SQRT_2_OVER_PI = 0.7978845608028654
TOLERANCE = dict(rtol=2e-2, atol=2e-2, norm=1e-2)
ROUNDS = 5  # the final, interleaved timing of each case's chosen implementations (retime)

# ----- GEMM + bias + GELU ------------------------------------------------------------------------


def gelu_tanh(x):
    """GELU, tanh form: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))."""
    return 0.5 * x * (1.0 + ct.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x ** 3)))


def add_bias(acc, bias, j, BN):
    return acc + ct.load(bias, (j,), (BN,), padding_mode=ZERO).astype(ct.float32)[None, :]


@ct.kernel(num_warps=8)
def gemm_plain(a, b, bias, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, 1, (BM, BK))):
        x = ct.load(a, (i, k), (BM, BK), padding_mode=ZERO)
        w = ct.load(b, (k, j), (BK, BN), padding_mode=ZERO)
        acc = ct.mma(x, w, acc)
    ct.store(c, (i, j), acc.astype(c.dtype))


@ct.kernel(num_warps=8)
def gemm_inline(a, b, bias, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, 1, (BM, BK))):
        x = ct.load(a, (i, k), (BM, BK), padding_mode=ZERO)
        w = ct.load(b, (k, j), (BK, BN), padding_mode=ZERO)
        acc = ct.mma(x, w, acc)
    row = ct.load(bias, (j,), (BN,), padding_mode=ZERO).astype(ct.float32)
    x = acc + row[None, :]
    y = 0.5 * x * (1.0 + ct.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
    ct.store(c, (i, j), y.astype(c.dtype))


@ct.kernel(num_warps=8)
def gemm_helper(a, b, bias, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, 1, (BM, BK))):
        x = ct.load(a, (i, k), (BM, BK), padding_mode=ZERO)
        w = ct.load(b, (k, j), (BK, BN), padding_mode=ZERO)
        acc = ct.mma(x, w, acc)
    ct.store(c, (i, j), gelu_tanh(add_bias(acc, bias, j, BN)).astype(c.dtype))


@ct.kernel(num_warps=8)
def gemm_sigmoid(a, b, bias, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, 1, (BM, BK))):
        x = ct.load(a, (i, k), (BM, BK), padding_mode=ZERO)
        w = ct.load(b, (k, j), (BK, BN), padding_mode=ZERO)
        acc = ct.mma(x, w, acc)
    x = add_bias(acc, bias, j, BN)
    u = SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)
    ct.store(c, (i, j), (x / (1.0 + ct.exp(-2.0 * u))).astype(c.dtype))


@ct.kernel(num_warps=8)
def linear_gelu(a, w, bias, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    """w is (N, K), nn.Linear's layout."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.cdiv(a.shape[1], BK)):
        x = ct.load(a, (i, k), (BM, BK), padding_mode=ZERO)
        wt = ct.load(w, (j, k), (BN, BK), padding_mode=ZERO)
        acc = acc + ct.mma(x, ct.transpose(wt), ct.zeros((BM, BN), ct.float32))
    ct.store(c, (i, j), gelu_tanh(add_bias(acc, bias, j, BN)).astype(c.dtype))


@ct.kernel(num_warps=8)
def gemm_persistent(a, b, bias, c, BM: ct.Constant[int], BN: ct.Constant[int],
                    BK: ct.Constant[int]):
    """A grid of any size walking c's tiles (tile t, t + num_blocks, ...), 8 block rows at a
    time for L2 reuse, the epilogue inline."""
    tiles_m, tiles_n = ct.cdiv(c.shape[0], BM), ct.cdiv(c.shape[1], BN)
    for t in range(ct.bid(0), tiles_m * tiles_n, ct.num_blocks(0)):
        first = (t // (8 * tiles_n)) * 8
        rows = ct.minimum(tiles_m - first, 8)
        i = first + (t % (8 * tiles_n)) % rows
        j = (t % (8 * tiles_n)) // rows
        acc = ct.zeros((BM, BN), ct.float32)
        for k in range(ct.num_tiles(a, 1, (BM, BK))):
            x = ct.load(a, (i, k), (BM, BK), padding_mode=ZERO)
            w = ct.load(b, (k, j), (BK, BN), padding_mode=ZERO)
            acc = ct.mma(x, w, acc)
        ct.store(c, (i, j), gelu_tanh(add_bias(acc, bias, j, BN)).astype(c.dtype))


@ct.kernel(num_warps=8)
def gemm_approx(a, b, bias, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    """The inline spelling with tanh.approx (`rounding_mode=APPROX`): another precision."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, 1, (BM, BK))):
        x = ct.load(a, (i, k), (BM, BK), padding_mode=ZERO)
        w = ct.load(b, (k, j), (BK, BN), padding_mode=ZERO)
        acc = ct.mma(x, w, acc)
    x = add_bias(acc, bias, j, BN)
    u = SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)
    y = 0.5 * x * (1.0 + ct.tanh(u, rounding_mode=ct.RoundingMode.APPROX))
    ct.store(c, (i, j), y.astype(c.dtype))


@ct.kernel(num_warps=8)
def gemm_a_t(at, b, bias, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    """at is (K, M): A's tiles loaded (BK, BM) and transposed."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(at, 0, (BK, BM))):
        x = ct.load(at, (k, i), (BK, BM), padding_mode=ZERO)
        w = ct.load(b, (k, j), (BK, BN), padding_mode=ZERO)
        acc = ct.mma(ct.transpose(x), w, acc)
    ct.store(c, (i, j), gelu_tanh(add_bias(acc, bias, j, BN)).astype(c.dtype))


GEMMS = {"plain": gemm_plain, "inline": gemm_inline, "helper": gemm_helper,
         "sigmoid": gemm_sigmoid, "linear": linear_gelu, "persistent": gemm_persistent,
         "approx": gemm_approx, "weights_t": gemm_inline, "a_t": gemm_a_t}
GEMM_SHAPES = ((4096, 4096, 4096), (8192, 8192, 8192), (256, 14336, 4096))
# (BM, BN, BK, warps, occupancy): two blocks an SM let one block's epilogue overlap the other's
# K loop (without warp specialization: tile-specialize-warps keeps to one block an SM)
GEMM_CONFIGS = ((128, 256, 64, 8, 1), (128, 128, 64, 8, 1), (128, 128, 64, 4, 1),
                (128, 128, 64, 8, 2), (128, 128, 64, 4, 2))
QUICK_GEMM_SHAPES, QUICK_GEMM_CONFIGS = GEMM_SHAPES[:1] + GEMM_SHAPES[2:], GEMM_CONFIGS[:2]

# ----- flash attention ---------------------------------------------------------------------------


def load_kv(k, v, batch, head, j, BN, D):
    keys = ct.load(k, (batch, head, j, 0), (1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
    values = ct.load(v, (batch, head, j, 0), (1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
    return keys, values


def keep_mask(j, BN, rows, seq_k, CAUSAL):
    cols = j * BN + ct.arange(BN, dtype=ct.int32)[None, :]
    keep = cols < seq_k
    if CAUSAL:
        keep = keep & (cols <= rows)
    return keep


@ct.kernel(num_warps=8)
def attn_split(q, k, v, out, scale: float, CAUSAL: ct.Constant[bool], BM: ct.Constant[int],
               BN: ct.Constant[int], D: ct.Constant[int]):
    i, bh = ct.bid(0), ct.bid(1)
    batch, head = bh // q.shape[1], bh % q.shape[1]
    rows = i * BM + ct.arange(BM, dtype=ct.int32)[:, None]
    x = ct.load(q, (batch, head, i, 0), (1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qk_scale = scale * LOG2_E
    acc = ct.zeros((BM, D), ct.float32)
    m = ct.full((BM, 1), -math.inf, ct.float32)
    total = ct.zeros((BM, 1), ct.float32)
    seq_k = k.shape[2]
    seen = ct.minimum(seq_k, (i + 1) * BM) if CAUSAL else seq_k
    full = (ct.minimum(seq_k, i * BM) if CAUSAL else seq_k) // BN
    for j in range(full):
        keys, values = load_kv(k, v, batch, head, j, BN, D)
        s = ct.mma(x, ct.transpose(keys), ct.zeros((BM, BN), ct.float32))
        mn = ct.maximum(m, ct.max(s, axis=1, keepdims=True) * qk_scale)
        p = ct.exp2(s * qk_scale - mn, flush_to_zero=True)
        alpha = ct.exp2(m - mn, flush_to_zero=True)
        total = total * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(v.dtype), values, acc * alpha)
        m = mn
    for j in range(full, ct.cdiv(seen, BN)):
        keys, values = load_kv(k, v, batch, head, j, BN, D)
        s = ct.mma(x, ct.transpose(keys), ct.zeros((BM, BN), ct.float32))
        s = ct.where(keep_mask(j, BN, rows, seq_k, CAUSAL), s, -math.inf)
        mn = ct.maximum(m, ct.max(s, axis=1, keepdims=True) * qk_scale)
        p = ct.exp2(s * qk_scale - mn, flush_to_zero=True)
        alpha = ct.exp2(m - mn, flush_to_zero=True)
        total = total * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(v.dtype), values, acc * alpha)
        m = mn
    ct.store(out, (batch, head, i, 0), (acc / total).astype(out.dtype).reshape((1, 1, BM, D)))


@ct.kernel(num_warps=8)
def attn_where(q, k, v, out, scale: float, CAUSAL: ct.Constant[bool], BM: ct.Constant[int],
               BN: ct.Constant[int], D: ct.Constant[int]):
    i, bh = ct.bid(0), ct.bid(1)
    batch, head = bh // q.shape[1], bh % q.shape[1]
    rows = i * BM + ct.arange(BM, dtype=ct.int32)[:, None]
    x = ct.load(q, (batch, head, i, 0), (1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qk_scale = scale * LOG2_E
    acc = ct.zeros((BM, D), ct.float32)
    m = ct.full((BM, 1), -math.inf, ct.float32)
    total = ct.zeros((BM, 1), ct.float32)
    seq_k = k.shape[2]
    seen = ct.minimum(seq_k, (i + 1) * BM) if CAUSAL else seq_k
    for j in range(ct.cdiv(seen, BN)):
        keys, values = load_kv(k, v, batch, head, j, BN, D)
        s = ct.mma(x, ct.transpose(keys), ct.zeros((BM, BN), ct.float32))
        s = ct.where(keep_mask(j, BN, rows, seq_k, CAUSAL), s, -math.inf)
        mn = ct.maximum(m, ct.max(s, axis=1, keepdims=True) * qk_scale)
        p = ct.exp2(s * qk_scale - mn, flush_to_zero=True)
        alpha = ct.exp2(m - mn, flush_to_zero=True)
        total = total * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(v.dtype), values, acc * alpha)
        m = mn
    ct.store(out, (batch, head, i, 0), (acc / total).astype(out.dtype).reshape((1, 1, BM, D)))


@ct.kernel(num_warps=8)
def attn_order_add(q, k, v, out, scale: float, CAUSAL: ct.Constant[bool], BM: ct.Constant[int],
                   BN: ct.Constant[int], D: ct.Constant[int]):
    i, bh = ct.bid(0), ct.bid(1)
    batch, head = bh // q.shape[1], bh % q.shape[1]
    rows = i * BM + ct.arange(BM, dtype=ct.int32)[:, None]
    x = ct.load(q, (batch, head, i, 0), (1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qk_scale = scale * LOG2_E
    acc = ct.zeros((BM, D), ct.float32)
    m = ct.full((BM, 1), -math.inf, ct.float32)
    total = ct.zeros((BM, 1), ct.float32)
    seq_k = k.shape[2]
    seen = ct.minimum(seq_k, (i + 1) * BM) if CAUSAL else seq_k
    for j in range(ct.cdiv(seen, BN)):
        kt = ct.load(k, (batch, head, 0, j), (1, 1, D, BN), order=(0, 1, 3, 2),
                     padding_mode=ZERO).reshape((D, BN))
        values = ct.load(v, (batch, head, j, 0), (1, 1, BN, D), padding_mode=ZERO)
        s = ct.mma(x, kt, ct.zeros((BM, BN), ct.float32))
        s = s + ct.where(keep_mask(j, BN, rows, seq_k, CAUSAL), 0.0, -math.inf)
        mn = ct.maximum(m, ct.max(s, axis=1, keepdims=True) * qk_scale)
        p = ct.exp2(s * qk_scale - mn, flush_to_zero=True)
        alpha = ct.exp2(m - mn, flush_to_zero=True)
        total = total * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = acc * alpha + ct.mma(p.astype(v.dtype), values.reshape((BN, D)),
                                   ct.zeros((BM, D), ct.float32))
        m = mn
    ct.store(out, (batch, head, i, 0), (acc / total).astype(out.dtype).reshape((1, 1, BM, D)))


def softmax_step(x, keys, values, acc, m, total, qk_scale, keep):
    """One key block folded into (acc, max, sum); `keep` is None for blocks without a mask."""
    s = ct.mma(x, ct.transpose(keys), ct.zeros((x.shape[0], keys.shape[0]), ct.float32))
    if keep is not None:
        s = ct.where(keep, s, -math.inf)
    mn = ct.maximum(m, ct.max(s, axis=1, keepdims=True) * qk_scale)
    p = ct.exp2(s * qk_scale - mn, flush_to_zero=True)
    alpha = ct.exp2(m - mn, flush_to_zero=True)
    total = total * alpha + ct.sum(p, axis=1, keepdims=True)
    return ct.mma(p.astype(values.dtype), values, acc * alpha), mn, total


@ct.kernel(num_warps=8)
def attn_helper(q, k, v, out, scale: float, CAUSAL: ct.Constant[bool], BM: ct.Constant[int],
                BN: ct.Constant[int], D: ct.Constant[int]):
    i, bh = ct.bid(0), ct.bid(1)
    batch, head = bh // q.shape[1], bh % q.shape[1]
    rows = i * BM + ct.arange(BM, dtype=ct.int32)[:, None]
    x = ct.load(q, (batch, head, i, 0), (1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qk_scale = scale * LOG2_E
    acc = ct.zeros((BM, D), ct.float32)
    m = ct.full((BM, 1), -math.inf, ct.float32)
    total = ct.zeros((BM, 1), ct.float32)
    seq_k = k.shape[2]
    seen = ct.minimum(seq_k, (i + 1) * BM) if CAUSAL else seq_k
    full = (ct.minimum(seq_k, i * BM) if CAUSAL else seq_k) // BN
    for j in range(full):
        keys, values = load_kv(k, v, batch, head, j, BN, D)
        acc, m, total = softmax_step(x, keys, values, acc, m, total, qk_scale, None)
    for j in range(full, ct.cdiv(seen, BN)):
        keys, values = load_kv(k, v, batch, head, j, BN, D)
        keep = keep_mask(j, BN, rows, seq_k, CAUSAL)
        acc, m, total = softmax_step(x, keys, values, acc, m, total, qk_scale, keep)
    ct.store(out, (batch, head, i, 0), (acc / total).astype(out.dtype).reshape((1, 1, BM, D)))


@ct.kernel(num_warps=8)
def attn_scaled_if(q, k, v, out, scale: float, CAUSAL: ct.Constant[bool], BM: ct.Constant[int],
                   BN: ct.Constant[int], D: ct.Constant[int]):
    """The query scaled before the loop (the product's A a computed tile, not a load), one
    loop, the mask applied by a runtime `if` from the first masked block on."""
    i, bh = ct.bid(0), ct.bid(1)
    batch, head = bh // q.shape[1], bh % q.shape[1]
    rows = i * BM + ct.arange(BM, dtype=ct.int32)[:, None]
    x = ct.load(q, (batch, head, i, 0), (1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    x = (x.astype(ct.float32) * (scale * LOG2_E)).astype(q.dtype)
    acc = ct.zeros((BM, D), ct.float32)
    m = ct.full((BM, 1), -math.inf, ct.float32)
    total = ct.zeros((BM, 1), ct.float32)
    seq_k = k.shape[2]
    seen = ct.minimum(seq_k, (i + 1) * BM) if CAUSAL else seq_k
    full = (ct.minimum(seq_k, i * BM) if CAUSAL else seq_k) // BN
    for j in range(ct.cdiv(seen, BN)):
        keys, values = load_kv(k, v, batch, head, j, BN, D)
        s = ct.mma(x, ct.transpose(keys), ct.zeros((BM, BN), ct.float32))
        if j >= full:
            s = ct.where(keep_mask(j, BN, rows, seq_k, CAUSAL), s, -math.inf)
        mn = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - mn, flush_to_zero=True)
        alpha = ct.exp2(m - mn, flush_to_zero=True)
        total = total * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(v.dtype), values, acc * alpha)
        m = mn
    ct.store(out, (batch, head, i, 0), (acc / total).astype(out.dtype).reshape((1, 1, BM, D)))


ATTENTIONS = {"split": attn_split, "where": attn_where, "order_add": attn_order_add,
              "helper": attn_helper, "scaled_if": attn_scaled_if}
ATTN_SEQS, ATTN_MODES, HEADS, HEAD_DIM, TOKENS = (1024, 8192), ("causal", "full"), 16, 128, 16384
ATTN_BLOCK = (128, 128)  # the sample's configuration for d = 128 (8 warps)


# ----- running -----------------------------------------------------------------------------------


def gemm_flops(m: int, n: int, k: int) -> float:
    return 2.0 * m * n * k


def attn_flops(batch: int, heads: int, seq: int, causal: bool) -> float:
    return 4.0 * batch * heads * seq * seq * HEAD_DIM / (2 if causal else 1)


def measurer(out, want, flops: float) -> Callable[[str, Callable[[], object]], dict]:
    """measure(name, run): checked (output poisoned first) against `want`, then timed."""
    import torch

    def measure(name: str, run: Callable[[], object]) -> dict:
        def check():
            out.fill_(float("nan"))
            got = run()
            torch.cuda.synchronize()
            return sweep.mismatch((out if got is None else got).float(), want, TOLERANCE)

        return sweep.measure(name, check, lambda: timed(lambda i: run(), 1, 200), flops)

    return measure


def best(results: dict[str, dict]) -> tuple[str | None, dict | None]:
    ok = {k: r for k, r in results.items() if "TFLOP/s" in r}
    if not ok:
        return None, None
    name = max(ok, key=lambda k: ok[k]["TFLOP/s"])
    return name, ok[name]


def summarize(case: str, spellings: dict[str, dict], peers: dict[str, dict],
              apart: dict[str, str | None], other_math: set[str] = frozenset()) -> list[dict]:
    """A row per spelling (its best configuration): TFLOP/s, ratio to the best spelling and to
    the best peer. `apart` names rows that are not spellings of the case (left out of the best
    spelling), each with the peer it is compared with instead (or None); `other_math` names
    peers that compute something else (the GEMM alone), left out of the best peer."""
    _, top = best({k: r for k, r in spellings.items() if k not in apart and k != "approx"})
    peer_name, peer = best({k: r for k, r in peers.items() if k not in other_math})
    rows = []
    for name, r in {**spellings, **peers}.items():
        row = {"case": case, "impl": name, "TFLOP/s": sweep.shown(r), "config": r.get("config")}
        if name in apart:
            if apart[name] is not None:
                row[f"/{apart[name]}"] = sweep.ratio(r, peers[apart[name]])
        elif name in spellings:
            if name != "approx":  # another precision: compared with the peers only
                row["/best spelling"] = sweep.ratio(r, top)
            row[f"/{peer_name}"] = sweep.ratio(r, peer)
        rows.append(row)
    return rows


def launcher(grid: tuple[int, ...], kernel, args: tuple) -> Callable[[], None]:
    """A launch on the stream current when it runs (a CUDA graph's capture stream when timed:
    a stream fixed beforehand would leave the captured graph empty)."""
    import torch

    def run() -> None:
        ct.launch(torch.cuda.current_stream(), grid, kernel, args)

    return run


def bench_gemm(shapes, configs) -> list[dict]:
    rows = []
    for m, n, k in shapes:
        rows += gemm_case(m, n, k, configs)
    return rows


def gemm_case(m: int, n: int, k: int, configs) -> list[dict]:
    import torch
    import torch.nn.functional as F

    case = f"gemm+bias+gelu {m}x{n}x{k}"
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    a = torch.randn(m, k, device="cuda").bfloat16()
    b = (torch.randn(k, n, device="cuda") / k**0.5).bfloat16()
    w = b.T.contiguous()
    at = a.T.contiguous()
    operands = {"linear": (a, w), "weights_t": (a, w.t()), "a_t": (at, b)}
    bias = torch.randn(n, device="cuda").bfloat16()
    c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    product = a.float() @ b.float()
    fused = F.gelu(product + bias.float(), approximate="tanh")
    flops = gemm_flops(m, n, k)
    spellings: dict[str, dict] = {}
    chosen: dict[str, dict[str | None, Callable[[], object]]] = {}
    for name, kernel in GEMMS.items():
        measure = measurer(c, product if name == "plain" else fused, flops)
        results, runs = {}, {}
        for bm, bn, bk, warps, occupancy in configs:
            label = f"{bm}x{bn}x{bk}w{warps}" + (f"o{occupancy}" if occupancy > 1 else "")
            kern = kernel.replace_hints(num_warps=warps, occupancy=occupancy)
            args = (*operands.get(name, (a, b)), bias, c, bm, bn, bk)
            grid = ((sms * occupancy,) if name == "persistent"
                    else (ct.cdiv(m, bm), ct.cdiv(n, bn)))
            runs[label] = launcher(grid, kern, args)
            results[label] = measure(f"{name} {label}", runs[label])
            print(f"    {name} {label}: {sweep.brief(sweep.shown(results[label]))}", flush=True)
        label, top = best(results)
        spellings[name] = {**(top or next(iter(results.values()))), "config": label}
        ranked = sorted((k for k in results if "TFLOP/s" in results[k]),
                        key=lambda k: -results[k]["TFLOP/s"])
        chosen[name] = {k: runs[k] for k in ranked[:2]}  # the sweep's order is noisy too
    peer_runs = {
        "cuBLASLt fused": (fused, lambda: torch._addmm_activation(bias, a, b, use_gelu=True)),
        "addmm+gelu": (fused, lambda: F.gelu(torch.addmm(bias, a, b), approximate="tanh")),
        "cuBLAS matmul": (product, lambda: a @ b),
    }
    peers = {label: measurer(c, want, flops)(label, run)
             for label, (want, run) in peer_runs.items()}
    chosen.update({label: {None: run} for label, (_, run) in peer_runs.items()})
    retime(chosen, {**spellings, **peers}, flops)
    for name in GEMMS:
        print(f"  {case} {name}: {sweep.brief(sweep.shown(spellings[name]))} "
              f"({spellings[name]['config']})", flush=True)
    return summarize(case, spellings, peers, apart={"plain": "cuBLAS matmul"},
                     other_math={"cuBLAS matmul"})


def retime(candidates: dict[str, dict[str | None, Callable[[], object]]],
           results: dict[str, dict], flops: float) -> None:
    """Time each checked implementation's candidates (its best configurations, or None: the
    one) again, round-robin, ROUNDS times; each keeps its best candidate's median over the
    rounds. The GPU's clocks drift with its power and temperature over a case's minutes of
    sweeping, so the ratios come from interleaved timings."""
    runs = {(name, label): run for name, by_label in candidates.items()
            if "TFLOP/s" in results[name] for label, run in by_label.items()}
    times: dict[tuple, list[float]] = {key: [] for key in runs}
    for round_ in range(ROUNDS):
        # a new order each round: a kernel timed right after a hungrier one runs at the
        # clocks the power limit left it (two spellings with the same SASS but for the order
        # of a few instructions measured 5-8% apart, the slower one always after the GEMM
        # without epilogue)
        order = list(runs)
        random.Random(round_).shuffle(order)
        for key in order:
            run = runs[key]
            times[key].append(timed(lambda i, run=run: run(), 1, 200)[0])
    for (name, label), ms in times.items():
        median = statistics.median(ms)
        if results[name].get("retimed") is None or median < results[name]["ms"]:
            results[name].update(ms=median, retimed=True, **{"TFLOP/s": flops / median / 1e9})
            if label is not None:
                results[name]["config"] = label


def bench_attention(seqs, modes) -> list[dict]:
    import torch

    rows = []
    for seq in seqs:
        batch = max(1, TOKENS // seq)
        shape = (batch, HEADS, seq, HEAD_DIM)
        q, k, v = (torch.randn(shape, device="cuda").bfloat16() for _ in range(3))
        for mode in modes:
            rows += attention_case(q, k, v, mode == "causal")
    return rows


def attention_case(q, k, v, causal: bool) -> list[dict]:
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    batch, heads, seq, d = q.shape
    o = torch.empty_like(q)
    case = f"attention {'causal' if causal else 'full'} b{batch} h{heads} s{seq} d{d}"
    with sdpa_kernel([SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]):
        want = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal)
    measure = measurer(o, want, attn_flops(batch, heads, seq, causal))
    bm, bn = ATTN_BLOCK
    runs = {"sample": lambda: attention.launch_attention(
        torch.cuda.current_stream(), q, k, v, o, causal, block=ATTN_BLOCK, warps=8)}
    for name, kernel in ATTENTIONS.items():
        args = (q, k, v, o, 1 / math.sqrt(d), causal, bm, bn, d)
        runs[name] = launcher((ct.cdiv(seq, bm), batch * heads), kernel, args)
    spellings = {name: measure(name, run) for name, run in runs.items()}
    for result in spellings.values():
        result["config"] = f"{bm}x{bn}w8"

    def sdpa(backend) -> Callable[[], object]:
        def run():
            with sdpa_kernel([backend]):
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        return run

    peer_runs = {label: sdpa(backend) for label, backend in (
        ("SDPA cuDNN", SDPBackend.CUDNN_ATTENTION), ("SDPA flash", SDPBackend.FLASH_ATTENTION))}
    peers = {label: measure(label, run) for label, run in peer_runs.items()}
    retime({name: {None: run} for name, run in {**runs, **peer_runs}.items()},
           {**spellings, **peers}, attn_flops(batch, heads, seq, causal))
    for name, result in spellings.items():
        print(f"  {case} {name}: {sweep.brief(sweep.shown(result))}", flush=True)
    return summarize(case, spellings, peers, apart={"sample": None})


# ----- no GPU: what each spelling compiles to -----------------------------------------------------


def dry_run() -> None:
    """explain every spelling for sm_90: the path each K loop and product takes."""
    bf = ml_dtypes.bfloat16
    a, bias = np.zeros((512, 512), bf), np.zeros(512, bf)
    for name, kernel in GEMMS.items():
        b = a.T if name == "weights_t" else a  # a column-major B
        for bm, bn, bk, warps, occupancy in GEMM_CONFIGS[:1]:
            report = ct.explain(kernel.replace_hints(num_warps=warps, occupancy=occupancy),
                                (a, b, bias, a, bm, bn, bk))
            print(f"gemm {name}: {[loop.path for loop in report.loops]} "
                  f"fallbacks={report.fallbacks}")
    x = np.zeros((1, 2, 512, HEAD_DIM), bf)
    for causal in (True, False):
        for name, kernel in ATTENTIONS.items():
            report = ct.explain(kernel, (x, x, x, x, 0.1, causal, *ATTN_BLOCK, HEAD_DIM))
            print(f"attention {name} causal={causal}: {[loop.path for loop in report.loops]} "
                  f"fallbacks={report.fallbacks}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", default="gemm,attention")
    parser.add_argument("--quick", action="store_true",
                        help="GEMM 4096^3 and 256x14336x4096, two configurations; seq 8192")
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args()
    if args.dry_run:
        dry_run()
        return
    cases = args.cases.split(",")
    rows = []
    if "gemm" in cases:
        rows += bench_gemm(*(QUICK_GEMM_SHAPES, QUICK_GEMM_CONFIGS) if args.quick
                           else (GEMM_SHAPES, GEMM_CONFIGS))
    if "attention" in cases:
        rows += bench_attention(ATTN_SEQS[1:] if args.quick else ATTN_SEQS, ATTN_MODES)
    columns = ["case", "impl", "TFLOP/s", "config", "/best spelling"]
    columns += sorted({c for r in rows for c in r if c.startswith("/") and c not in columns})
    print(table(rows, columns))
    save("spellings", {"rows": rows})
    bar_plot("spellings", [f"{r['case'].split()[0]} {r['case'].split()[-1]} {r['impl']}"
                           for r in rows],
             [r["TFLOP/s"] if isinstance(r["TFLOP/s"], float) else 0.0 for r in rows],
             "TFLOP/s", "one computation, several spellings (H200)")


if __name__ == "__main__":
    main()
