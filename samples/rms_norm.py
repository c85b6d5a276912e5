"""Sample: RMS norm over rows, y = x * rsqrt(mean(x^2) + eps) * w, in float32 math.

A block normalizes ROWS whole rows as one (ROWS, BLOCK) tile, zero-padded past the row's end.
Longer rows (above LOOPED_ABOVE columns) are split across blocks on the GPU (`rms_norm_split`,
_split_rows.py: one read of the data); on the interpreter a block sweeps its row twice
(`rms_norm_looped`).
"""

from __future__ import annotations

import _split_rows
import ml_dtypes
import numpy as np
from _common import Backend, check, persistent_grid, row_sample_args
from _split_rows import claim_chunk, row_partials

import tilelang as ct


@ct.kernel
def rms_norm(x, w, y, eps, ROWS: ct.Constant[int], BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(ROWS, BLOCK), padding_mode=ct.PaddingMode.ZERO)
    t = t.astype(ct.float32)
    r = ct.rsqrt(ct.sum(t * t, axis=1, keepdims=True) / x.shape[1] + eps)
    wt = ct.load(w, index=(0,), shape=(BLOCK,)).astype(ct.float32)
    ct.store(y, index=(i, 0), tile=(t * r * wt[None, :]).astype(y.dtype))


@ct.kernel
def rms_norm_looped(x, w, y, eps, BLOCK: ct.Constant[int]):
    """Rows longer than a tile: the first sweep sums squares element-wise (one block-wide
    reduction at the end, not one per chunk), the second scales. Each sweep loads its next
    chunk before it uses the current one, so two chunks are in flight; blocks stride over the
    rows, so a grid of a few blocks per SM lets the second sweep read from L2."""
    zero = ct.PaddingMode.ZERO
    for i in range(ct.bid(0), x.shape[0], ct.num_blocks(0)):
        tiles = ct.num_tiles(x, axis=1, shape=(1, BLOCK))
        acc = ct.zeros((1, BLOCK), ct.float32)
        t = ct.load(x, index=(i, 0), shape=(1, BLOCK), padding_mode=zero)
        for j in range(tiles):
            following = ct.load(x, index=(i, j + 1), shape=(1, BLOCK), padding_mode=zero)
            f = t.astype(ct.float32)
            acc += f * f
            t = following
        r = ct.rsqrt(ct.sum(acc, axis=1, keepdims=True) / x.shape[1] + eps)
        t = ct.load(x, index=(i, 0), shape=(1, BLOCK), padding_mode=zero)
        for j in range(tiles):
            following = ct.load(x, index=(i, j + 1), shape=(1, BLOCK), padding_mode=zero)
            wt = ct.load(w, index=(j,), shape=(BLOCK,), padding_mode=zero)
            out = t.astype(ct.float32) * r * wt.astype(ct.float32)[None, :]
            ct.store(y, index=(i, j), tile=out.astype(y.dtype))
            t = following


@ct.kernel
def rms_norm_split(x, w, y, eps, partials, tickets, BLOCK: ct.Constant[int],
                   SLOTS: ct.Constant[int]):
    """Rows split across blocks (_split_rows.py): a block's BLOCK-column chunk stays in
    registers while the row's sums of squares are added up across its group. w's chunk is
    loaded for each row (from L2), not kept: its registers would leave room for fewer blocks."""
    group, chunk, groups, chunks, tag = claim_chunk(x, tickets, BLOCK)
    zero = ct.PaddingMode.ZERO
    t = ct.load(x, index=(group, chunk), shape=(1, BLOCK), padding_mode=zero)
    for row in range(group, x.shape[0], groups):
        following = ct.load(x, index=(row + groups, chunk), shape=(1, BLOCK), padding_mode=zero)
        f = t.astype(ct.float32)
        parts = row_partials(partials, row, chunk, chunks, tag,
                             ct.sum(f * f, axis=1, keepdims=True), SLOTS)
        r = ct.rsqrt(ct.sum(parts, axis=0, keepdims=True) / x.shape[1] + eps)
        wt = ct.load(w, index=(chunk,), shape=(BLOCK,), padding_mode=zero).astype(ct.float32)
        ct.store(y, index=(row, chunk), tile=(f * r * wt[None, :]).astype(y.dtype))
        t = following


# (BLOCK, warps, blocks per SM) of rms_norm_split by dtype. At 4096 x 65536 on the H100: 0.395
# ms in bf16 (0.94 of copy bandwidth; rms_norm_looped 0.40 at best), 0.779 in fp32 (0.95;
# looped 1.06)
SPLIT = {"bfloat16": (4096, 4, 4), "float32": (4096, 8, 2)}


LOOPED_ABOVE = 16384  # row length above which a block sweeps its row in chunks


def launch_rms_norm(stream, x, w, y, rows: int, n: int, eps: float = 1e-6,
                    looped_block: int | None = None, split: bool = False) -> None:
    """Whole rows up to LOOPED_ABOVE columns; longer ones split across blocks when `split`
    (the GPU) allows it, else swept by the looped kernel."""
    config = _split_rows.config_for(SPLIT, x, n) if split else None
    if looped_block is None and n > LOOPED_ABOVE and config is not None:
        _split_rows.launch(stream, rms_norm_split, rows, n, 1, (x, w, y, eps), config)
        return
    if looped_block is not None or n > LOOPED_ABOVE:
        ct.launch(stream, (persistent_grid(rows),), rms_norm_looped.replace_hints(num_warps=32),
                  (x, w, y, eps, looped_block or 8192))
        return
    block = 1 << (n - 1).bit_length()
    r = max(1, 4096 // block)
    kernel = rms_norm.replace_hints(num_warps=8 if block >= 4096 else 4)
    ct.launch(stream, (ct.cdiv(rows, r),), kernel, (x, w, y, eps, r, block))


def reference(x: np.ndarray, w: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    x64 = x.astype(np.float64)
    y = x64 / np.sqrt((x64 * x64).mean(1, keepdims=True) + eps) * w.astype(np.float64)
    return y.astype(x.dtype)


def run(rows: int, n: int, dtype: str = "float32", backend: Backend | None = None,
        looped_block: int | None = None, split_block: int | None = None) -> None:
    """Checked against NumPy; `looped_block` forces the looped kernel, `split_block` the split
    one (on the GPU; the interpreter takes the looped kernel for it)."""
    backend = backend or Backend()
    np_dtype = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
    x_host = backend.rng.standard_normal((rows, n)).astype(np_dtype)
    w_host = backend.rng.standard_normal(n).astype(np_dtype)
    x, w = backend.array(x_host), backend.array(w_host)
    y = backend.empty_like(x_host)
    if split_block is not None and backend.gpu:
        _split_rows.launch(backend.stream(), rms_norm_split, rows, n, 1, (x, w, y, 1e-6),
                           (split_block, 4, 1))
    else:
        launch_rms_norm(backend.stream(), x, w, y, rows, n, looped_block=looped_block or (
            split_block and 1024), split=backend.gpu)
    backend.synchronize()
    tol = 2e-2 if dtype in ("bfloat16", "float16") else 1e-5
    check(f"rms_norm[{dtype}]", backend.numpy(y), reference(x_host, w_host), rtol=tol, atol=tol)


def main() -> None:
    backend, rows, n, dtype = row_sample_args(__doc__, "rms norm")
    run(rows, n, dtype, backend)


if __name__ == "__main__":
    main()
