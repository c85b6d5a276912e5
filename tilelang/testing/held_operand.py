"""A decoding attention kernel (one query row) whose loop branches to mask the keys past the
end. With HELD the query is scaled before the loop, so it stays in registers across it: the
case where ptxas gave the probabilities the query's registers (passes/staged_loops.py refuses
to stage it). Without, the loaded query is copied to shared memory once (its array's row
dimension has size 1, which is not taken for the contiguous one). Shared by the CPU and GPU
tests."""

from __future__ import annotations

import numpy as np

import tilelang as ct


@ct.kernel
def decode_attention(q, k, v, out, scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                     D: ct.Constant[int], HELD: ct.Constant[bool]):
    """q, out: (heads, 1, D); k, v: (heads, keys, D)."""
    head = ct.bid(0)
    keys = k.shape[1]
    query = ct.load(q, index=(head, 0, 0), shape=(1, BM, D)).reshape((BM, D))
    if HELD:  # computed before the loop: held in registers across it
        query = (query.astype(np.float32) * scale).astype(q.dtype)
        scale = 1.0
    best = ct.full((BM, 1), -np.inf, dtype=np.float32)
    total = ct.full((BM, 1), 0.0, dtype=np.float32)
    acc = ct.full((BM, D), 0.0, dtype=np.float32)
    full_blocks = keys // BN
    for j in range(ct.cdiv(keys, BN)):
        kt = ct.load(k, index=(head, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(query, ct.transpose(kt), ct.full((BM, BN), 0.0, dtype=np.float32))
        if j >= full_blocks:  # the last, partial block of keys
            cols = j * BN + ct.arange(BN, dtype=np.int32)
            s = s + ct.where(cols[None, :] < keys, 0.0, -np.inf)
        new_best = ct.maximum(best, ct.max(s, axis=-1, keepdims=True) * scale)
        p = ct.exp2(s * scale - new_best)
        alpha = ct.exp2(best - new_best)
        total = total * alpha + ct.sum(p, axis=-1, keepdims=True)  # type: ignore[arg-type]
        acc = acc * alpha
        vt = ct.load(v, index=(head, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(q.dtype), vt, acc)  # type: ignore[union-attr]
        best = new_best  # type: ignore[assignment]
    acc = acc / total
    ct.store(out, index=(head, 0, 0), tile=acc.reshape((1, BM, D)).astype(out.dtype))
