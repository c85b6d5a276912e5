"""Flash attention written plainly: the query scaled before the key loop (so the product's A
operand is a tile computed before the loop, not a load), the last key blocks masked by a
runtime `if` in the loop. Shared by the CPU and GPU tests of the tile written to shared memory
once from its registers (passes/staged_loops.py)."""

from __future__ import annotations

import numpy as np

import tilelang as ct

LOG2E = 1.4426950408889634


@ct.kernel
def scaled_query_attention(q, k, v, out, scale: float, BM: ct.Constant[int],
                           BN: ct.Constant[int], D: ct.Constant[int],
                           CAUSAL: ct.Constant[bool]):
    """q, out: (heads, queries, D); k, v: (heads, keys, D). Causal: top-left aligned."""
    head, block = ct.bid(0), ct.bid(1)
    keys = k.shape[1]
    query = ct.load(q, index=(head, block, 0), shape=(1, BM, D),
                    padding_mode=ct.PaddingMode.ZERO).reshape((BM, D))
    query = (query.astype(np.float32) * (scale * LOG2E)).astype(q.dtype)
    rows = block * BM + ct.arange(BM, dtype=np.int32)
    best = ct.full((BM, 1), -np.inf, dtype=np.float32)
    total = ct.full((BM, 1), 0.0, dtype=np.float32)
    acc = ct.full((BM, D), 0.0, dtype=np.float32)
    seen = min(keys, (block + 1) * BM) if CAUSAL else keys
    mask_from = min(keys, block * BM) // BN if CAUSAL else keys // BN
    for j in range(ct.cdiv(seen, BN)):
        kt = ct.load(k, index=(head, j, 0), shape=(1, BN, D),
                     padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        s = ct.mma(query, ct.transpose(kt), ct.full((BM, BN), 0.0, dtype=np.float32))
        if j >= mask_from:  # blocks past the end of the keys, or across the diagonal
            cols = j * BN + ct.arange(BN, dtype=np.int32)
            keep = cols[None, :] < keys
            if CAUSAL:
                keep = keep & (cols[None, :] <= rows[:, None])
            s = ct.where(keep, s, -np.inf)  # type: ignore[assignment]
        new_best = ct.maximum(best, ct.max(s, axis=-1, keepdims=True))
        p = ct.exp2(s - new_best)
        alpha = ct.exp2(best - new_best)
        total = total * alpha + ct.sum(p, axis=-1, keepdims=True)  # type: ignore[arg-type]
        vt = ct.load(v, index=(head, j, 0), shape=(1, BN, D),
                     padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(q.dtype), vt, acc * alpha)  # type: ignore[union-attr]
        best = new_best  # type: ignore[assignment]
    acc = acc / total
    ct.store(out, index=(head, block, 0), tile=acc.reshape((1, BM, D)).astype(out.dtype))
