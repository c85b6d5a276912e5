"""Sample: layer norm forward and backward over rows, y = (x - mean) * rstd * w + b.

Forward: a block normalizes ROWS whole rows (a (ROWS, BLOCK) tile, zero-padded past the row's
end) and saves each row's mean and 1/std for the backward pass; a row longer than
LOOPED_ABOVE is split across a group of blocks exchanging partial sums on the GPU
(`layer_norm_fwd_split`, _split_rows.py) and swept twice by one block on the interpreter
(`layer_norm_fwd_looped`). Backward (default_backward): up to 4096 columns, a fixed number of
blocks walk the rows ROWS at a time (the next rows loaded ahead), writing dx and summing dw and
db over their rows; wider float32 rows are split across blocks on the GPU
(`layer_norm_bwd_split`, one pass), other wide rows take two passes (per-row statistics, then
a grid over column chunks). A last kernel adds up the per-block partial sums of dw and db
column-wise.
Statistics and math in float32 whatever the storage dtype.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import _split_rows
import ml_dtypes
import numpy as np
from _common import Backend, check, persistent_grid, row_sample_args
from _split_rows import claim_chunk, column, row_partials

import tilelang as ct

ZERO = ct.PaddingMode.ZERO


@ct.kernel
def layer_norm_fwd(x, w, b, y, mean, rstd, eps, ROWS: ct.Constant[int], BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    n = x.shape[1]
    t = ct.load(x, index=(i, 0), shape=(ROWS, BLOCK), padding_mode=ZERO).astype(ct.float32)
    mu = ct.sum(t, axis=1, keepdims=True) / n
    inside = ct.arange(BLOCK, dtype=ct.int32)[None, :] < n
    d = ct.where(inside, t - mu, 0.0)
    r = ct.rsqrt(ct.sum(d * d, axis=1, keepdims=True) / n + eps)
    # w and b are loaded where they are used, each while one row-sized tile is live (d * r,
    # then its product with w): loaded together and converted at once, they held the registers
    # of four (bf16, 16384 columns, 8 warps: 174 registers against 128, one block per SM)
    out = d * r * ct.load(w, index=(0,), shape=(BLOCK,)).astype(ct.float32)[None, :]
    out = out + ct.load(b, index=(0,), shape=(BLOCK,)).astype(ct.float32)[None, :]
    ct.store(y, index=(i, 0), tile=out.astype(y.dtype))
    ct.store(mean, index=(i,), tile=ct.reshape(mu, (ROWS,)))
    ct.store(rstd, index=(i,), tile=ct.reshape(r, (ROWS,)))


@ct.kernel
def layer_norm_fwd_looped(x, w, b, y, mean, rstd, eps, BLOCK: ct.Constant[int]):
    """Rows longer than a tile, two sweeps of BLOCK-wide chunks per row.

    The first sweep accumulates element-wise (no block-wide reduction per chunk) sums of x - k
    and (x - k)^2, shifted by the row's first element k so that the variance does not cancel
    when the mean is large; the second normalizes. Each sweep loads its next chunk before it
    uses the current one, so two chunks are in flight. The chunks inside the row need no mask:
    only a last partial chunk takes the second loop, which masks. Blocks stride over the rows,
    so a grid of a few blocks per SM lets the second sweep read from L2.
    """
    n = x.shape[1]
    cols = ct.arange(BLOCK, dtype=ct.int32)[None, :]
    for i in range(ct.bid(0), x.shape[0], ct.num_blocks(0)):
        tiles = ct.num_tiles(x, axis=1, shape=(1, BLOCK))
        k = ct.load(x, index=(i, 0), shape=(1, 1)).astype(ct.float32)
        s1 = ct.zeros((1, BLOCK), ct.float32)
        s2 = ct.zeros((1, BLOCK), ct.float32)
        t = ct.load(x, index=(i, 0), shape=(1, BLOCK), padding_mode=ZERO)
        for j in range(n // BLOCK):
            following = ct.load(x, index=(i, j + 1), shape=(1, BLOCK), padding_mode=ZERO)
            d = t.astype(ct.float32) - k
            s1 += d
            s2 += d * d
            t = following
        for j in range(n // BLOCK, tiles):  # the partial chunk, if any
            d = ct.where(cols + j * BLOCK < n, t.astype(ct.float32) - k, 0.0)
            s1 += d
            s2 += d * d
        shift = ct.sum(s1, axis=1, keepdims=True) / n
        mu = k + shift
        r = ct.rsqrt(ct.sum(s2, axis=1, keepdims=True) / n - shift * shift + eps)
        t = ct.load(x, index=(i, 0), shape=(1, BLOCK), padding_mode=ZERO)
        for j in range(tiles):
            following = ct.load(x, index=(i, j + 1), shape=(1, BLOCK), padding_mode=ZERO)
            wt = ct.load(w, index=(j,), shape=(BLOCK,), padding_mode=ZERO).astype(ct.float32)
            bt = ct.load(b, index=(j,), shape=(BLOCK,), padding_mode=ZERO).astype(ct.float32)
            out = (t.astype(ct.float32) - mu) * r * wt[None, :] + bt[None, :]
            ct.store(y, index=(i, j), tile=out.astype(y.dtype))
            t = following
        ct.store(mean, index=(i,), tile=ct.reshape(mu, (1,)))
        ct.store(rstd, index=(i,), tile=ct.reshape(r, (1,)))


@ct.kernel
def layer_norm_fwd_split(x, w, b, y, mean, rstd, eps, partials, tickets,
                         BLOCK: ct.Constant[int], SLOTS: ct.Constant[int]):
    """Rows split across blocks (_split_rows.py): each block keeps its chunk in registers and
    publishes the sums of d and d^2, d = x - k (k the row's first element, the shift of the
    looped kernel); their totals give the mean and variance. The chunk-0 block writes the
    row's statistics. Only a row's last chunk can pass its end: its block takes the loop
    that masks (a mask held for the whole loop costs a register per element)."""
    group, chunk, groups, chunks, tag = claim_chunk(x, tickets, BLOCK)
    place = (group, chunk, groups, chunks, tag)
    if (chunk + 1) * BLOCK <= x.shape[1]:
        _split_rows_fwd(x, w, b, y, mean, rstd, eps, partials, place, BLOCK, SLOTS, False)
    else:
        _split_rows_fwd(x, w, b, y, mean, rstd, eps, partials, place, BLOCK, SLOTS, True)


def _split_rows_fwd(x, w, b, y, mean, rstd, eps, partials, place, BLOCK, SLOTS, MASKED):
    group, chunk, groups, chunks, tag = place
    n = x.shape[1]
    zero = ct.PaddingMode.ZERO
    inside = ct.arange(BLOCK, dtype=ct.int32)[None, :] + chunk * BLOCK < n
    # the masking loop loads each row's chunk as it starts it, the other ahead of time: the
    # kernel's registers are the larger loop's, and the mask with two chunks made it larger
    following = ct.load(x, index=(group, chunk), shape=(1, BLOCK), padding_mode=zero)
    k = ct.load(x, index=(group, 0), shape=(1, 1), padding_mode=zero)
    for row in range(group, x.shape[0], groups):
        if MASKED:
            t = ct.load(x, index=(row, chunk), shape=(1, BLOCK), padding_mode=zero)
        else:
            t = following
            following = ct.load(x, index=(row + groups, chunk), shape=(1, BLOCK),
                                padding_mode=zero)
        k_next = ct.load(x, index=(row + groups, 0), shape=(1, 1), padding_mode=zero)
        d = t.astype(ct.float32) - k.astype(ct.float32)
        if MASKED:
            d = ct.where(inside, d, 0.0)
        sums = ct.cat((ct.sum(d, axis=1, keepdims=True), ct.sum(d * d, axis=1, keepdims=True)),
                      axis=1)
        totals = ct.sum(row_partials(partials, row, chunk, chunks, tag, sums, SLOTS),
                        axis=0, keepdims=True)
        shift = column(totals, 0) / n
        mu = k.astype(ct.float32) + shift
        r = ct.rsqrt(column(totals, 1) / n - shift * shift + eps)
        # w, then b, loaded where used: one chunk-sized tile live with each (as layer_norm_fwd)
        out = (t.astype(ct.float32) - mu) * r * ct.load(
            w, index=(chunk,), shape=(BLOCK,), padding_mode=zero).astype(ct.float32)[None, :]
        out = out + ct.load(b, index=(chunk,), shape=(BLOCK,), padding_mode=zero).astype(
            ct.float32)[None, :]
        ct.store(y, index=(row, chunk), tile=out.astype(y.dtype))
        if chunk == 0:
            ct.store(mean, index=(row,), tile=ct.reshape(mu, (1,)))
            ct.store(rstd, index=(row,), tile=ct.reshape(r, (1,)))
        k = k_next


def _row_grads(t, g, wt, mu, r, inside, n):
    """dx of rows t (x) and g (dy), and the rows' dw and db terms (g * x-hat, g), in float32."""
    xhat = ct.where(inside, (t.astype(ct.float32) - mu) * r, 0.0)
    g = g.astype(ct.float32)
    gw = g * wt
    c1 = ct.sum(xhat * gw, axis=1, keepdims=True) / n
    c2 = ct.sum(gw, axis=1, keepdims=True) / n
    return (gw - (xhat * c1 + c2)) * r, g * xhat, g


@ct.kernel
def layer_norm_bwd(dy, x, w, mean, rstd, dx, dw_part, db_part, ROWS: ct.Constant[int],
                   BLOCK: ct.Constant[int]):
    """Whole rows, ROWS at a time: a fixed number of blocks stride over the rows, each loading
    its next rows (x, dy and their statistics) before it works on the current ones, so that a
    block has two tiles of each in flight. dw and db are summed element-wise over the block's
    tiles (no reduction across the rows of a tile per step: that went through shared memory)
    and over the tile's rows once at the end: one partial row of each per block."""
    p, blocks = ct.bid(0), ct.num_blocks(0)
    n = x.shape[1]
    wt = ct.load(w, index=(0,), shape=(BLOCK,), padding_mode=ZERO).astype(ct.float32)[None, :]
    inside = ct.arange(BLOCK, dtype=ct.int32)[None, :] < n
    dw = ct.zeros((ROWS, BLOCK), ct.float32)
    db = ct.zeros((ROWS, BLOCK), ct.float32)
    t = ct.load(x, index=(p, 0), shape=(ROWS, BLOCK), padding_mode=ZERO)
    g = ct.load(dy, index=(p, 0), shape=(ROWS, BLOCK), padding_mode=ZERO)
    mu = ct.load(mean, index=(p,), shape=(ROWS,), padding_mode=ZERO)
    r = ct.load(rstd, index=(p,), shape=(ROWS,), padding_mode=ZERO)
    for i in range(p, ct.num_tiles(x, axis=0, shape=(ROWS, BLOCK)), blocks):
        k = i + blocks  # past the last tile these load zeros (padding), never used
        t_next = ct.load(x, index=(k, 0), shape=(ROWS, BLOCK), padding_mode=ZERO)
        g_next = ct.load(dy, index=(k, 0), shape=(ROWS, BLOCK), padding_mode=ZERO)
        mu_next = ct.load(mean, index=(k,), shape=(ROWS,), padding_mode=ZERO)
        r_next = ct.load(rstd, index=(k,), shape=(ROWS,), padding_mode=ZERO)
        d, dw_i, db_i = _row_grads(t, g, wt, mu[:, None], r[:, None], inside, n)
        ct.store(dx, index=(i, 0), tile=d.astype(dx.dtype))
        dw += dw_i
        db += db_i
        t, g, mu, r = t_next, g_next, mu_next, r_next
    ct.store(dw_part, index=(p, 0), tile=ct.sum(dw, axis=0, keepdims=True))
    ct.store(db_part, index=(p, 0), tile=ct.sum(db, axis=0, keepdims=True))


@ct.kernel
def layer_norm_bwd_split(dy, x, w, mean, rstd, dx, dw_part, db_part, partials, tickets,
                         BLOCK: ct.Constant[int], SLOTS: ct.Constant[int]):
    """Rows split across blocks (_split_rows.py), one pass: each block holds its chunk of x and
    dy for a row, publishes its sums of x-hat * dy * w and dy * w, and with the row's totals
    (c1, c2) writes dx; it sums dw and db of its columns over its group's rows (one partial row
    of each per group). No mask: past the row's end dy is zero-padded, and every term there is
    a product with it."""
    group, chunk, groups, chunks, tag = claim_chunk(x, tickets, BLOCK)
    n = x.shape[1]
    zero = ct.PaddingMode.ZERO
    dw = ct.zeros((1, BLOCK), ct.float32)
    db = ct.zeros((1, BLOCK), ct.float32)
    t = ct.load(x, index=(group, chunk), shape=(1, BLOCK), padding_mode=zero)
    g = ct.load(dy, index=(group, chunk), shape=(1, BLOCK), padding_mode=zero)
    for row in range(group, x.shape[0], groups):
        t_next = ct.load(x, index=(row + groups, chunk), shape=(1, BLOCK), padding_mode=zero)
        g_next = ct.load(dy, index=(row + groups, chunk), shape=(1, BLOCK), padding_mode=zero)
        r = ct.load(rstd, index=(row,), shape=(1,))[:, None]
        xhat = (t.astype(ct.float32) - ct.load(mean, index=(row,), shape=(1,))[:, None]) * r
        gf = g.astype(ct.float32)
        dw += gf * xhat  # before the exchange: fewer tiles live across it
        db += gf
        gw = gf * ct.load(w, index=(chunk,), shape=(BLOCK,), padding_mode=zero).astype(
            ct.float32)[None, :]
        sums = ct.cat((ct.sum(xhat * gw, axis=1, keepdims=True),
                       ct.sum(gw, axis=1, keepdims=True)), axis=1)
        totals = ct.sum(row_partials(partials, row, chunk, chunks, tag, sums, SLOTS), axis=0,
                        keepdims=True) / n
        d = (gw - (xhat * column(totals, 0) + column(totals, 1))) * r
        ct.store(dx, index=(row, chunk), tile=d.astype(dx.dtype))
        t, g = t_next, g_next
    ct.store(dw_part, index=(group, chunk), tile=dw)
    ct.store(db_part, index=(group, chunk), tile=db)


@ct.kernel
def layer_norm_bwd_stats(dy, x, w, mean, rstd, c1, c2, BLOCK: ct.Constant[int]):
    """Rows longer than a block holds, first of two passes: per row, the means of
    x-hat * dy * w (c1) and of dy * w (c2), summed element-wise over BLOCK-wide chunks (the
    next chunk loaded before the current one is used) and reduced once per row."""
    n = x.shape[1]
    cols = ct.arange(BLOCK, dtype=ct.int32)[None, :]
    for i in range(ct.bid(0), x.shape[0], ct.num_blocks(0)):
        mu = ct.load(mean, index=(i,), shape=(1,))[:, None]
        r = ct.load(rstd, index=(i,), shape=(1,))[:, None]
        s1 = ct.zeros((1, BLOCK), ct.float32)
        s2 = ct.zeros((1, BLOCK), ct.float32)
        t = ct.load(x, index=(i, 0), shape=(1, BLOCK), padding_mode=ZERO)
        g = ct.load(dy, index=(i, 0), shape=(1, BLOCK), padding_mode=ZERO)
        for j in range(ct.num_tiles(x, axis=1, shape=(1, BLOCK))):
            t_next = ct.load(x, index=(i, j + 1), shape=(1, BLOCK), padding_mode=ZERO)
            g_next = ct.load(dy, index=(i, j + 1), shape=(1, BLOCK), padding_mode=ZERO)
            gw = g.astype(ct.float32) * ct.load(w, index=(j,), shape=(BLOCK,),
                                                padding_mode=ZERO).astype(ct.float32)[None, :]
            s1 += ct.where(cols + j * BLOCK < n, (t.astype(ct.float32) - mu) * r, 0.0) * gw
            s2 += gw
            t, g = t_next, g_next
        ct.store(c1, index=(i,), tile=ct.reshape(ct.sum(s1, axis=1) / n, (1,)))
        ct.store(c2, index=(i,), tile=ct.reshape(ct.sum(s2, axis=1) / n, (1,)))


@ct.kernel
def layer_norm_bwd_columns(dy, x, w, mean, rstd, c1, c2, dx, dw_part, db_part,
                           ROWS: ct.Constant[int], BLOCK: ct.Constant[int]):
    """Second pass: dx = (dy * w - (x-hat * c1 + c2)) * rstd over a grid of (column chunk,
    row walker) blocks; each block strides over the rows of its BLOCK columns, ROWS at a
    time (the next rows loaded first), and sums its dw and db for those columns."""
    j, p, blocks = ct.bid(0), ct.bid(1), ct.num_blocks(1)
    n = x.shape[1]
    wt = ct.load(w, index=(j,), shape=(BLOCK,), padding_mode=ZERO).astype(ct.float32)[None, :]
    inside = ct.arange(BLOCK, dtype=ct.int32)[None, :] + j * BLOCK < n
    dw = ct.zeros((ROWS, BLOCK), ct.float32)
    db = ct.zeros((ROWS, BLOCK), ct.float32)
    t = ct.load(x, index=(p, j), shape=(ROWS, BLOCK), padding_mode=ZERO)
    g = ct.load(dy, index=(p, j), shape=(ROWS, BLOCK), padding_mode=ZERO)
    for i in range(p, ct.num_tiles(x, axis=0, shape=(ROWS, BLOCK)), blocks):
        k = i + blocks
        t_next = ct.load(x, index=(k, j), shape=(ROWS, BLOCK), padding_mode=ZERO)
        g_next = ct.load(dy, index=(k, j), shape=(ROWS, BLOCK), padding_mode=ZERO)
        r = ct.load(rstd, index=(i,), shape=(ROWS,), padding_mode=ZERO)[:, None]
        xhat = ct.where(inside, (t.astype(ct.float32) - ct.load(
            mean, index=(i,), shape=(ROWS,), padding_mode=ZERO)[:, None]) * r, 0.0)
        gf = g.astype(ct.float32)
        a = ct.load(c1, index=(i,), shape=(ROWS,), padding_mode=ZERO)[:, None]
        c = ct.load(c2, index=(i,), shape=(ROWS,), padding_mode=ZERO)[:, None]
        ct.store(dx, index=(i, j), tile=((gf * wt - (xhat * a + c)) * r).astype(dx.dtype))
        dw += gf * xhat
        db += gf
        t, g = t_next, g_next
    ct.store(dw_part, index=(p, j), tile=ct.sum(dw, axis=0, keepdims=True))
    ct.store(db_part, index=(p, j), tile=ct.sum(db, axis=0, keepdims=True))


@ct.kernel
def column_sums(part, out, ROWS: ct.Constant[int], BLOCK: ct.Constant[int]):
    j = ct.bid(0)
    acc = ct.zeros((BLOCK,), ct.float32)
    for i in range(ct.num_tiles(part, axis=0, shape=(ROWS, BLOCK))):
        acc += ct.sum(ct.load(part, index=(i, j), shape=(ROWS, BLOCK), padding_mode=ZERO), axis=0)
    ct.store(out, index=(j,), tile=acc.astype(out.dtype))


def config(n: int) -> tuple[int, int, int]:
    """(ROWS, BLOCK, num_warps): whole rows, about 4096 elements per block."""
    block = 1 << (n - 1).bit_length()
    return max(1, 4096 // block), block, 8 if block >= 4096 else 4


@dataclass(frozen=True)
class Backward:
    """How the backward pass runs. kind "rows": layer_norm_bwd over tiles of (a, b) = (ROWS,
    BLOCK); "two_pass": layer_norm_bwd_stats (chunks of STATS_BLOCK) then
    layer_norm_bwd_columns over (ROWS, BLOCK) = (a, b) tiles; "split" (GPU only):
    layer_norm_bwd_split over chunks of a = BLOCK columns (b: the blocks per SM it was sized
    for). `blocks` is the number of row walkers (per column chunk)."""

    kind: str
    a: int
    b: int
    warps: int
    blocks: int

    def label(self) -> str:
        names = {"rows": "R={},B={}", "two_pass": "2-pass R={},B={}", "split": "split B={},{}/SM"}
        return f"{names[self.kind].format(self.a, self.b)},w={self.warps},blocks={self.blocks}"

    def kernel(self):
        """The pass's main kernel, with this plan's warps (one object per plan kind and warps,
        so that its compiled forms are kept)."""
        main = {"rows": layer_norm_bwd, "two_pass": layer_norm_bwd_columns,
                "split": layer_norm_bwd_split}[self.kind]
        return _hinted(main, self.warps)

    def scratch(self, rows: int, n: int) -> dict[str, tuple[int, ...]]:
        """Float32 work arrays the pass needs: dw and db partial sums (and c1, c2)."""
        shapes = {"dw_part": (self.blocks, n), "db_part": (self.blocks, n)}
        if self.kind == "two_pass":
            shapes.update(c1=(rows,), c2=(rows,))
        return shapes


@cache
def _hinted(kernel, warps: int):
    return kernel.replace_hints(num_warps=warps)


STATS_BLOCK = 8192  # chunk of layer_norm_bwd_stats, at 16 warps: 126 registers, no spills


# (BLOCK, warps, blocks per SM) of layer_norm_bwd_split for float32 rows up to 16384 columns
# and beyond: 16 chunks a row. H100, 2^28 elements: 0.75 and 0.63 of copy bandwidth at 16384 and
# 65536 columns, against 0.52 and 0.56 for two passes; bf16 rows keep the two passes (0.48 /
# 0.51, split 0.43 / 0.39 at best)
SPLIT_BACKWARD = {16384: (1024, 2, 8), 65536: (4096, 8, 1)}


def split_backward(rows: int, n: int, config: tuple[int, int, int] | None = None,
                   sms: int = 132) -> Backward:
    """The "split" plan of `config` (by default SPLIT_BACKWARD's for n): as many groups of a
    block per chunk as fit config's blocks per SM, at most one per row."""
    block, warps, per_sm = config or SPLIT_BACKWARD[16384 if n <= 16384 else 65536]
    return Backward("split", block, per_sm, warps, _split_rows.grid(rows, n, block, per_sm, sms)
                    // ct.cdiv(n, block))


def default_backward(rows: int, n: int, sms: int = 132, split: bool = False,
                     float32: bool = False) -> Backward:
    """Whole rows up to 4096 columns (tiles of 2048 elements, two blocks per SM; H100: 0.96 of
    copy bandwidth in fp32, 0.82 in bf16). Beyond, the row's dw and db (128 KB at 16384
    columns) do not fit in registers next to the row: float32 rows split across blocks on the
    GPU (`split`), else two passes, about one block per SM."""
    block = 1 << (n - 1).bit_length()
    if block <= 4096:
        r = max(1, 2048 // block)
        return Backward("rows", r, block, 4 if block < 4096 else 8,
                        max(1, min(ct.cdiv(rows, r), 2 * sms)))
    if split and float32:
        plan = split_backward(rows, n, sms=sms)
        if _split_rows.fits(n, sms, plan.a):
            return plan
    return Backward("two_pass", 1, 4096, 8, max(1, min(rows, sms // ct.cdiv(n, 4096))))


def backward(stream, dy, x, w, mean, rstd, dx, dw, db, plan: Backward, scratch) -> None:
    """dx, dw and db (dw and db in w's dtype) with `plan`; `scratch` holds float32 arrays of
    the shapes plan.scratch(rows, n) names (and for a "split" plan, under "exchange", a
    _split_rows.Workspace of K = 2, made here when missing)."""
    rows, n = x.shape
    parts = (scratch["dw_part"], scratch["db_part"])
    if plan.kind == "rows":
        ct.launch(stream, (plan.blocks,), plan.kernel(),
                  (dy, x, w, mean, rstd, dx, *parts, plan.a, plan.b))
    elif plan.kind == "split":
        ws = scratch.get("exchange") or _split_rows.Workspace.for_rows(rows, n, plan.a, 2)
        ct.launch(stream, (plan.blocks * ct.cdiv(n, plan.a),), plan.kernel(),
                  (dy, x, w, mean, rstd, dx, *parts, *ws.args(rows, n, plan.a, 2), plan.a,
                   _split_rows.slots(n, plan.a)))
    else:
        c1, c2 = scratch["c1"], scratch["c2"]
        ct.launch(stream, (persistent_grid(rows, 1),), _hinted(layer_norm_bwd_stats, 16),
                  (dy, x, w, mean, rstd, c1, c2, STATS_BLOCK))
        ct.launch(stream, (ct.cdiv(n, plan.b), plan.blocks), plan.kernel(),
                  (dy, x, w, mean, rstd, c1, c2, dx, *parts, plan.a, plan.b))
    for part, out in zip(parts, (dw, db)):
        ct.launch(stream, (ct.cdiv(n, 128),), column_sums, (part, out, 32, 128))


LOOPED_ABOVE = 16384  # row length above which the forward pass sweeps the row in chunks


# (BLOCK, warps, blocks per SM, occupancy hint) of layer_norm_fwd_split by dtype. At 4096 x
# 65536 on the H100: 0.848 ms in fp32 (0.85 of copy bandwidth; 224 B of spills; the looped
# kernel 1.06 at best), 0.491 in bf16 (0.73; 256 B of spills; looped 0.537)
SPLIT = {"float32": (16384, 16, 1, None), "bfloat16": (8192, 8, 2, 2)}


def forward(stream, x, w, b, y, mean, rstd, rows: int, n: int, eps: float = 1e-5,
            looped_block: int | None = None, split: bool = False) -> None:
    """Whole rows up to LOOPED_ABOVE columns; longer ones split across blocks when `split`
    (the GPU) allows it, else swept twice by the looped kernel."""
    chunks = _split_rows.config_for(SPLIT, x, n) if split else None
    if looped_block is None and n > LOOPED_ABOVE and chunks is not None:
        _split_rows.launch(stream, layer_norm_fwd_split, rows, n, 2,
                           (x, w, b, y, mean, rstd, eps), chunks)
        return
    if looped_block is not None or n > LOOPED_ABOVE:
        ct.launch(stream, (persistent_grid(rows),),
                  layer_norm_fwd_looped.replace_hints(num_warps=32),
                  (x, w, b, y, mean, rstd, eps, looped_block or 8192))
        return
    r, block, warps = config(n)
    ct.launch(stream, (ct.cdiv(rows, r),), layer_norm_fwd.replace_hints(num_warps=warps),
              (x, w, b, y, mean, rstd, eps, r, block))


def reference(x, w, b, dy, eps=1e-5):
    x64, w64, dy64 = (a.astype(np.float64) for a in (x, w, dy))
    mu = x64.mean(1, keepdims=True)
    rstd = 1 / np.sqrt(((x64 - mu) ** 2).mean(1, keepdims=True) + eps)
    xhat = (x64 - mu) * rstd
    y = xhat * w64 + b.astype(np.float64)
    gw = dy64 * w64
    dx = (gw - xhat * (xhat * gw).mean(1, keepdims=True) - gw.mean(1, keepdims=True)) * rstd
    return y, mu[:, 0], rstd[:, 0], dx, (dy64 * xhat).sum(0), dy64.sum(0)


def run(rows: int, n: int, dtype: str = "float32", backend: Backend | None = None,
        looped_block: int | None = None, offset: float = 0.0,
        backward_plan: Backward | None = None, split_block: int | None = None) -> None:
    """Forward and backward, checked against NumPy in float64. Rows longer than LOOPED_ABOVE
    are split across blocks on the GPU (any row, given split_block), else (and given
    looped_block) swept twice by the looped forward pass; the backward runs as
    `backward_plan` says (default_backward's choice by default). `offset` shifts x (a large
    mean tests that the variance does not cancel)."""
    backend = backend or Backend()
    np_dtype = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
    host = [backend.rng.standard_normal(s).astype(np_dtype) for s in ((rows, n), (n,), (n,),
                                                                        (rows, n))]
    host[0] = (host[0].astype(np.float64) + offset).astype(np_dtype)
    x, w, b, dy = map(backend.array, host)
    f32 = np.float32
    y, dx = backend.empty_like(host[0]), backend.empty_like(host[0])
    mean, rstd = backend.empty_like(np.empty(rows, f32)), backend.empty_like(np.empty(rows, f32))
    stream = backend.stream()
    if split_block is not None and backend.gpu:
        _split_rows.launch(stream, layer_norm_fwd_split, rows, n, 2,
                           (x, w, b, y, mean, rstd, 1e-5), (split_block, 4, 1))
    else:
        forward(stream, x, w, b, y, mean, rstd, rows, n, looped_block=looped_block or (
            split_block and 1024), split=backend.gpu)
    dw, db = backend.empty_like(host[1]), backend.empty_like(host[1])
    plan = backward_plan or default_backward(rows, n, split=backend.gpu,
                                             float32=dtype == "float32")
    if plan.kind == "split" and not backend.gpu:  # its blocks wait for each other
        plan = Backward("two_pass", 1, plan.a, 4, 2)
    scratch = {name: backend.empty_like(np.empty(shape, f32))
               for name, shape in plan.scratch(rows, n).items()}
    backward(stream, dy, x, w, mean, rstd, dx, dw, db, plan, scratch)
    backend.synchronize()
    want = reference(*host[:3], host[3])
    tol = 2e-2 if dtype in ("bfloat16", "float16") else 1e-4
    names = ("y", "mean", "rstd", "dx", "dw", "db")
    for name, got, expected in zip(names, (y, mean, rstd, dx, dw, db), want):
        scale = max(1.0, float(np.abs(expected).max()))
        check(f"layer_norm {name}[{dtype}]", backend.numpy(got), expected, rtol=tol,
              atol=tol * scale)


def main() -> None:
    backend, rows, n, dtype = row_sample_args(__doc__, "layer norm")
    run(rows, n, dtype, backend)


if __name__ == "__main__":
    main()
