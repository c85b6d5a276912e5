"""Sample: layer norm forward and backward over rows, y = (x - mean) * rstd * w + b.

Forward: a block normalizes ROWS whole rows (a (ROWS, BLOCK) tile, zero-padded past the row's
end) and saves each row's mean and 1/std for the backward pass. Backward: a fixed number of
blocks walk the rows ROWS at a time, writing dx and summing dw and db over their rows; a second
kernel adds up those per-block partial sums column-wise.
Statistics and math in float32 whatever the storage dtype.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
from _common import Backend, check, persistent_grid, row_sample_args

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
    uses the current one, so two chunks are in flight. Blocks stride over the rows, so a grid
    of a few blocks per SM lets the second sweep read from L2.
    """
    n = x.shape[1]
    cols = ct.arange(BLOCK, dtype=ct.int32)[None, :]
    for i in range(ct.bid(0), x.shape[0], ct.num_blocks(0)):
        tiles = ct.num_tiles(x, axis=1, shape=(1, BLOCK))
        k = ct.load(x, index=(i, 0), shape=(1, 1)).astype(ct.float32)
        s1 = ct.zeros((1, BLOCK), ct.float32)
        s2 = ct.zeros((1, BLOCK), ct.float32)
        t = ct.load(x, index=(i, 0), shape=(1, BLOCK), padding_mode=ZERO)
        for j in range(tiles):
            following = ct.load(x, index=(i, j + 1), shape=(1, BLOCK), padding_mode=ZERO)
            d = ct.where(cols + j * BLOCK < n, t.astype(ct.float32) - k, 0.0)
            s1 += d
            s2 += d * d
            t = following
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
def layer_norm_bwd(dy, x, w, mean, rstd, dx, dw_part, db_part, ROWS: ct.Constant[int],
                   BLOCK: ct.Constant[int]):
    p, blocks = ct.bid(0), ct.num_blocks(0)
    n = x.shape[1]
    wt = ct.load(w, index=(0,), shape=(BLOCK,)).astype(ct.float32)[None, :]
    inside = ct.arange(BLOCK, dtype=ct.int32)[None, :] < n
    dw = ct.zeros((1, BLOCK), ct.float32)
    db = ct.zeros((1, BLOCK), ct.float32)
    for i in range(p, ct.num_tiles(x, axis=0, shape=(ROWS, BLOCK)), blocks):
        t = ct.load(x, index=(i, 0), shape=(ROWS, BLOCK), padding_mode=ZERO).astype(ct.float32)
        g = ct.load(dy, index=(i, 0), shape=(ROWS, BLOCK), padding_mode=ZERO).astype(ct.float32)
        r = ct.load(rstd, index=(i,), shape=(ROWS,))[:, None]
        xhat = ct.where(inside, (t - ct.load(mean, index=(i,), shape=(ROWS,))[:, None]) * r, 0.0)
        gw = g * wt
        c1 = ct.sum(xhat * gw, axis=1, keepdims=True) / n
        c2 = ct.sum(gw, axis=1, keepdims=True) / n
        ct.store(dx, index=(i, 0), tile=((gw - (xhat * c1 + c2)) * r).astype(dx.dtype))
        dw += ct.sum(g * xhat, axis=0, keepdims=True)
        db += ct.sum(g, axis=0, keepdims=True)
    ct.store(dw_part, index=(p, 0), tile=dw)
    ct.store(db_part, index=(p, 0), tile=db)


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


def backward_blocks(rows: int, rows_per_tile: int, per_sm: int = 4, sms: int = 132) -> int:
    """Blocks of the backward pass: enough to fill the GPU, few enough that the dw/db partial
    sums (one row of each per block) stay small."""
    return max(1, min(ct.cdiv(rows, rows_per_tile), per_sm * sms))


LOOPED_ABOVE = 16384  # row length above which the forward pass sweeps the row in chunks


def forward(stream, x, w, b, y, mean, rstd, rows: int, n: int, eps: float = 1e-5,
            looped_block: int | None = None) -> None:
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
        looped_block: int | None = None, offset: float = 0.0) -> None:
    """Forward and backward, checked against NumPy in float64. Rows longer than LOOPED_ABOVE
    (or any row, given looped_block) take the looped forward pass and skip the backward, whose
    dw/db partial sums are held as whole rows. `offset` shifts x (a large mean tests that the
    variance does not cancel)."""
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
    forward(stream, x, w, b, y, mean, rstd, rows, n, looped_block=looped_block)
    looped = looped_block is not None or n > LOOPED_ABOVE
    dw, db = backend.empty_like(host[1]), backend.empty_like(host[1])
    if not looped:
        r, block, warps = config(n)
        blocks = backward_blocks(rows, r)
        dw_part = backend.empty_like(np.empty((blocks, n), f32))
        db_part = backend.empty_like(np.empty((blocks, n), f32))
        ct.launch(stream, (blocks,), layer_norm_bwd.replace_hints(num_warps=warps),
                  (dy, x, w, mean, rstd, dx, dw_part, db_part, r, block))
        for part, out in ((dw_part, dw), (db_part, db)):
            ct.launch(stream, (ct.cdiv(n, 128),), column_sums, (part, out, 32, 128))
    backend.synchronize()
    want = reference(*host[:3], host[3])
    tol = 2e-2 if dtype in ("bfloat16", "float16") else 1e-4
    names = ("y", "mean", "rstd") if looped else ("y", "mean", "rstd", "dx", "dw", "db")
    for name, got, expected in zip(names, (y, mean, rstd, dx, dw, db), want):
        scale = max(1.0, float(np.abs(expected).max()))
        check(f"layer_norm {name}[{dtype}]", backend.numpy(got), expected, rtol=tol,
              atol=tol * scale)


def main() -> None:
    backend, rows, n, dtype = row_sample_args(__doc__, "layer norm")
    run(rows, n, dtype, backend)


if __name__ == "__main__":
    main()
