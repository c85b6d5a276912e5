"""Test kernels whose matrix products read A gathered by rows in the K loop, as a mixture of
experts picks its tokens (`ct.gather(x, (rows[:, None], k * TK + ct.arange(TK)[None, :]))`):
staged through the ring by cp.async (passes/staged_loops.GatheredRows). Shared by the CPU
tests (IR, explain) and the GPU tests."""

from __future__ import annotations

import tilelang as ct

ZERO = ct.PaddingMode.ZERO


@ct.kernel
def gathered_matmul(x, w, out, rows, TM: ct.Constant[int], TN: ct.Constant[int],
                    TK: ct.Constant[int]):
    """out[i, :] = x[rows[i], :] @ w for the TM rows of block bid(0) and the TN columns of
    bid(1); a row index outside x (negative, or past its end) gathers a row of zeros."""
    bm, bn = ct.bid(0), ct.bid(1)
    picked = ct.load(rows, index=(bm,), shape=(TM,), padding_mode=ZERO)
    acc = ct.full((TM, TN), 0.0, dtype=ct.float32)
    for k in range(ct.cdiv(x.shape[1], TK)):
        cols = k * TK + ct.arange(TK, dtype=ct.int32)
        a = ct.gather(x, (picked[:, None], cols[None, :]))
        b = ct.load(w, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(out, index=(bm, bn), tile=acc.astype(out.dtype))


@ct.kernel
def gathered_expert_matmul(x, w, out, rows, experts, TM: ct.Constant[int],
                           TN: ct.Constant[int], TK: ct.Constant[int]):
    """MoE's product: out[rows[i], :] = x[rows[i], :] @ w[e].T for the TM rows of block bid(0),
    all of expert e = experts[bid(0)], with w given as (E, N, K) (nn.Linear's weights) and
    read transposed; the rows scattered back, those outside `out` dropped."""
    bm, bn = ct.bid(0), ct.bid(1)
    picked = ct.load(rows, index=(bm,), shape=(TM,), padding_mode=ZERO)
    expert = ct.load(experts, index=bm, shape=())
    acc = ct.full((TM, TN), 0.0, dtype=ct.float32)
    for k in range(ct.cdiv(w.shape[2], TK)):
        a = ct.gather(x, (picked[:, None], (k * TK + ct.arange(TK, dtype=ct.int32))[None, :]))
        b = ct.load(w, index=(expert, bn, k), shape=(1, TN, TK), padding_mode=ZERO)
        acc = ct.mma(a, ct.transpose(b.reshape((TN, TK))), acc)
    cols = bn * TN + ct.arange(TN, dtype=ct.int32)
    ct.scatter(out, (picked[:, None], cols[None, :]), acc.astype(out.dtype))


@ct.kernel
def masked_gather_matmul(x, w, out, rows, TM: ct.Constant[int], TN: ct.Constant[int],
                         TK: ct.Constant[int]):
    """gathered_matmul with the gather masked (rows whose index is negative are skipped): A
    stays in registers (explain says why)."""
    bm, bn = ct.bid(0), ct.bid(1)
    picked = ct.load(rows, index=(bm,), shape=(TM,), padding_mode=ZERO)
    acc = ct.full((TM, TN), 0.0, dtype=ct.float32)
    for k in range(ct.cdiv(x.shape[1], TK)):
        cols = k * TK + ct.arange(TK, dtype=ct.int32)
        keep = (picked >= 0)[:, None] & (cols >= 0)[None, :]
        a = ct.gather(x, (picked[:, None], cols[None, :]), mask=keep)
        b = ct.load(w, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(out, index=(bm, bn), tile=acc.astype(out.dtype))
