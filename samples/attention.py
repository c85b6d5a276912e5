"""Sample: flash-attention forward, out = softmax(q @ k.T * scale [+ causal mask]) @ v, bf16.

Each block owns BM query rows of one (batch, head) and walks the keys and values BN at a time,
never forming the (seq_q, seq_k) score matrix. It keeps, per query row, the running maximum `m`
of the scores seen so far, the running sum `l` of their exponentials and the running weighted
sum `acc` of the value rows; when a new key block raises the maximum, `l` and `acc` are rescaled
by exp(old max - new max) (the "online" softmax). After the last block, out = acc / l.

Scores and sums are float32; the probabilities are rounded to bf16 for the second product, as
every flash-attention kernel does. The scale is folded together with log2(e) so that the
exponentials are `exp2`. Key blocks that may hold masked scores (past the end of the sequence,
or, with `causal`, above the diagonal) are taken by a second loop that masks with
`ct.where(..., -inf)`; the blocks before them need no mask. With `causal`, query row r sees keys
0..r (top-left aligned, as torch's `is_causal`), so a block stops at its last row's diagonal.

Arrays are (batch, heads, seq, head_dim); the grid is one-dimensional, a block per query block
of each head (`grid()`), in an order that keeps keys and values in L2 and, with `causal`, starts
the longest blocks first (`_tile`).
"""

from __future__ import annotations

import argparse
import math

import ml_dtypes
import numpy as np
from _common import Backend, check

import tilelang as ct

LOG2_E = 1.4426950408889634
ZERO = ct.PaddingMode.ZERO
# (BM, BN) and warps per head dimension on the GPU: 128 query rows over two warpgroups, whose key
# loop runs on wgmma with q and the key/value tiles in shared memory (passes/staged_loops.py);
# the fastest measured on the H100 (benchmarks/README.md)
GPU_CONFIGS = {64: ((128, 128), 8), 128: ((128, 128), 8)}
HEAD_GROUP = 8  # heads whose blocks run together (see _tile)


def attend(q, k, v, acc, row_max, row_sum, batch, head, j, rows, qk_scale, CAUSAL, MASK, BN):
    """Key/value block j folded into the running (acc, row_max, row_sum) of the query tile q."""
    BM, D = q.shape
    keys = ct.load(k, index=(batch, head, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO)
    values = ct.load(v, index=(batch, head, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO)
    s = ct.mma(q, ct.transpose(keys.reshape((BN, D))), ct.zeros((BM, BN), ct.float32))
    if MASK:
        cols = j * BN + ct.arange(BN, dtype=ct.int32)[None, :]  # the key of each column
        keep = cols < k.shape[2]
        if CAUSAL:
            keep = keep & (cols <= rows)
        s = ct.where(keep, s, -math.inf)
    # in log2 units (exp2(x * qk_scale) = exp(x * scale)); the scale is positive, so the
    # largest scaled score is the largest score scaled, and each exponent is one fma
    new_max = ct.maximum(row_max, ct.max(s, axis=1, keepdims=True) * qk_scale)
    # flush_to_zero: the bare ex2 instruction (a probability below 2**-126 counts as 0)
    p = ct.exp2(s * qk_scale - new_max, flush_to_zero=True)  # masked scores give 0
    alpha = ct.exp2(row_max - new_max, flush_to_zero=True)  # rescales the old maximum's sums
    row_sum = row_sum * alpha + ct.sum(p, axis=1, keepdims=True)
    acc = ct.mma(p.astype(v.dtype), values.reshape((BN, D)), acc * alpha)
    return acc, new_max, row_sum


def _tile(t, batch, heads, blocks):
    """(head, batch, query block) of block t of a one-dimensional grid. Blocks go over the
    heads in groups of HEAD_GROUP (their keys and values, 2 MB a head at 4096 x 128, stay in L2
    while the group's blocks read them); within a group, the last query blocks first and the
    heads fastest: with CAUSAL the last blocks see the most keys, and the longest starting first
    leaves the shortest for the end (less idle time at the tail)."""
    group_tiles = HEAD_GROUP * blocks
    g = t // group_tiles
    size = ct.minimum(HEAD_GROUP, batch * heads - g * HEAD_GROUP)  # the last group: the rest
    r = t - g * group_tiles
    bh = g * HEAD_GROUP + r % size
    return bh % heads, bh // heads, blocks - 1 - r // size


@ct.kernel(num_warps=4)
def flash_attention(q, k, v, out, scale, CAUSAL: ct.Constant[bool], BM: ct.Constant[int],
                    BN: ct.Constant[int], D: ct.Constant[int]):
    head, batch, i = _tile(ct.bid(0), q.shape[0], q.shape[1], ct.cdiv(q.shape[2], BM))
    rows = i * BM + ct.arange(BM, dtype=ct.int32)[:, None]  # the query of each row
    x = ct.load(q, index=(batch, head, i, 0), shape=(1, 1, BM, D), padding_mode=ZERO)
    x = x.reshape((BM, D))
    qk_scale = scale * LOG2_E
    acc = ct.zeros((BM, D), ct.float32)
    row_max = ct.full((BM, 1), -math.inf, ct.float32)
    row_sum = ct.zeros((BM, 1), ct.float32)
    # This block's rows see keys [0, seen). Key blocks [0, full) lie inside the sequence and,
    # with CAUSAL, left of the first row's diagonal: they need no mask; the rest do.
    seq_k = k.shape[2]
    seen = ct.minimum(seq_k, (i + 1) * BM) if CAUSAL else seq_k
    full = (ct.minimum(seq_k, i * BM) if CAUSAL else seq_k) // BN
    for j in range(full):
        acc, row_max, row_sum = attend(x, k, v, acc, row_max, row_sum, batch, head, j, rows,
                                       qk_scale, CAUSAL, False, BN)
    for j in range(full, ct.cdiv(seen, BN)):
        acc, row_max, row_sum = attend(x, k, v, acc, row_max, row_sum, batch, head, j, rows,
                                       qk_scale, CAUSAL, True, BN)
    o = acc * (1.0 / row_sum)
    ct.store(out, index=(batch, head, i, 0), tile=o.astype(out.dtype).reshape((1, 1, BM, D)))


def reference(q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: float,
              causal: bool) -> np.ndarray:
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    s = q @ k.swapaxes(-1, -2) * scale
    if causal:  # top-left aligned: row r sees keys 0..r
        s = np.where(np.tri(s.shape[-2], s.shape[-1], dtype=bool), s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return (p / p.sum(axis=-1, keepdims=True)) @ v


def launch_attention(stream, q, k, v, out, causal: bool, block: tuple[int, int] = (64, 64),
                     warps: int = 4, scale: float | None = None) -> None:
    """q, k, v, out: (batch, heads, seq, head_dim); keys and values share their length; the
    scale (1 / sqrt(head_dim) by default) must be positive."""
    d = q.shape[-1]
    bm, bn = block
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    if not scale > 0:
        raise ValueError(f"the attention scale must be positive, got {scale}")
    kernel = flash_attention.replace_hints(num_warps=warps)
    ct.launch(stream, grid(q.shape, bm), kernel, (q, k, v, out, scale, causal, bm, bn, d))


def grid(shape: tuple[int, ...], bm: int) -> tuple[int]:
    """One block per (query block, head, batch) of q of `shape` (batch, heads, seq, head_dim),
    in one dimension (the kernel's _tile orders them)."""
    batch, heads, seq_q, _ = shape
    return (batch * heads * ct.cdiv(seq_q, bm),)


def run(batch: int, heads: int, seq_q: int, seq_k: int, d: int, causal: bool = False,
        backend: Backend | None = None, block: tuple[int, int] = (64, 64), warps: int = 4,
        ) -> None:
    backend = backend or Backend()
    bf16 = ml_dtypes.bfloat16
    rng = backend.rng
    q_host = rng.standard_normal((batch, heads, seq_q, d)).astype(bf16)
    k_host = rng.standard_normal((batch, heads, seq_k, d)).astype(bf16)
    v_host = rng.standard_normal((batch, heads, seq_k, d)).astype(bf16)
    q, k, v = (backend.array(x) for x in (q_host, k_host, v_host))
    out = backend.empty_like(q_host)
    launch_attention(backend.stream(), q, k, v, out, causal, block, warps)
    backend.synchronize()
    name = f"attention[{batch}x{heads}, {seq_q}x{seq_k}, d={d}{', causal' if causal else ''}]"
    # one bf16 rounding of the output, and of the probabilities (2**-9 relative) in p @ v
    check(name, backend.numpy(out), reference(q_host, k_host, v_host, 1 / math.sqrt(d), causal),
          rtol=1e-2, atol=1e-2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=None)
    parser.add_argument("--heads", type=int, default=None)
    parser.add_argument("--seq", type=int, default=None, help="query and key length")
    parser.add_argument("-d", type=int, default=None, choices=(64, 128), help="head dimension")
    parser.add_argument("--causal", action="store_true")
    parser.add_argument("--interpret", action="store_true", help="run on the CPU interpreter")
    args = parser.parse_args()
    backend = Backend(force_interpreter=args.interpret)
    sizes = (4, 16, 4000, 128) if backend.gpu else (1, 2, 100, 64)
    batch, heads, seq, d = (given or default for given, default in
                            zip((args.batch, args.heads, args.seq, args.d), sizes, strict=True))
    print(f"{'causal ' if args.causal else ''}attention, batch {batch}, {heads} heads, "
          f"sequence {seq}, head dim {d}, bfloat16 on {backend.describe()}")
    block, warps = GPU_CONFIGS[d] if backend.gpu else ((32, 16), 4)
    run(batch, heads, seq, seq, d, args.causal, backend, block, warps)


if __name__ == "__main__":
    main()
