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


@ct.kernel
def grouped_matmul(As, Bs, Cs, TM: ct.Constant[int], TN: ct.Constant[int],
                   TK: ct.Constant[int]):
    """Cs[g] = As[g] @ Bs[g] for the group g = bid(1) picked at run time from the lists, tile
    bid(0) of its product (blocks past the group's tiles do nothing): the K loop's TMA ring
    picks each operand's tensor map as it picks the array (simt/tma.tensor_map)."""
    g, t = ct.bid(1), ct.bid(0)
    a, b, c = As[g], Bs[g], Cs[g]
    tiles_n = ct.num_tiles(b, 1, (TK, TN))
    if t < ct.num_tiles(a, 0, (TM, TK)) * tiles_n:
        acc = ct.full((TM, TN), 0.0, dtype=ct.float32)
        for k in range(ct.num_tiles(a, 1, (TM, TK))):
            x = ct.load(a, (t // tiles_n, k), shape=(TM, TK), padding_mode=ZERO)
            w = ct.load(b, (k, t % tiles_n), shape=(TK, TN), padding_mode=ZERO)
            acc = ct.mma(x, w, acc)
        ct.store(c, (t // tiles_n, t % tiles_n), tile=acc.astype(c.dtype))


@ct.kernel
def row_copy(table, ids, dest, out, TOKENS: ct.Constant[int], DIM: ct.Constant[int],
             SHIFT: ct.Constant[int]):
    """out[dest[t], c] = 2 * table[ids[t], c] for the TOKENS tokens of block bid(0) and the
    DIM columns c = bid(1) * DIM + SHIFT + arange(DIM): a gather and a scatter of runs along
    the row (simt/gather.py moves each thread's run as one vector where it lies inside the
    array; SHIFT = 0 aligns the runs, another value not). Ids outside the table read zeros;
    destinations outside `out` are dropped (`ids` and `dest` hold whole blocks of TOKENS)."""
    i, j = ct.bid(0), ct.bid(1)
    rows = ct.load(ids, index=(i,), shape=(TOKENS,))
    to = ct.load(dest, index=(i,), shape=(TOKENS,))
    cols = ct.arange(DIM, dtype=ct.int32) + (j * DIM + SHIFT)
    vectors = ct.gather(table, (rows[:, None], cols[None, :]))
    ct.scatter(out, (to[:, None], cols[None, :]), vectors * 2)
