"""Sample: row-wise softmax, out = exp(x - max(x)) / sum(exp(x - max(x))), in three variants.

- `softmax_rows`: a block holds ROWS whole rows as one (ROWS, BLOCK) tile (BLOCK >= the row
  length, padded with -inf, which exp turns into 0): one read and one write of the data.
- `softmax_looped`: for rows longer than a tile. A first loop over the row's column tiles keeps
  a running maximum and a running sum rescaled whenever the maximum grows (the "online" softmax);
  a second loop writes the result. Two reads and one write. The interpreter's kernel for long
  rows.
- `softmax_split`: long rows on the GPU, split across blocks (_split_rows.py): each block holds
  a chunk, the blocks of a row exchange their maxima and sums. One read and one write.

The math runs in float32 whatever the storage dtype, rounded once on the way out. exp(x - m)
is computed as exp2(x * log2(e) - m * log2(e)) with the bare hardware instruction
(`exp2(..., flush_to_zero=True)`: a few ulp of float32, and results below 2**-126 count as 0),
and each row divides once, by its sum, then multiplies: with IEEE exp and a division per
element the bf16 kernels would be bound by arithmetic, not memory, for no difference visible
after rounding to bf16.
"""

from __future__ import annotations

import math

import _split_rows
import ml_dtypes
import numpy as np
from _common import Backend, check, persistent_grid, row_sample_args
from _split_rows import claim_chunk, column, row_partials

import tilelang as ct

NEG_INF = ct.PaddingMode.NEG_INF
LOG2_E = 1.4426950408889634
GROUP = 4  # neighbouring columns softmax_looped sums before its running sums


@ct.kernel
def softmax_rows(x, out, ROWS: ct.Constant[int], BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(ROWS, BLOCK), padding_mode=NEG_INF).astype(ct.float32)
    # in log2 units: exp(x - m) = exp2(x * log2(e) - m * log2(e)); the maximum scaled is the
    # scaled maximum, and each exponent is one fma (the product is used nowhere else)
    m = ct.max(t, axis=1, keepdims=True) * LOG2_E
    e = ct.exp2(t * LOG2_E - m, flush_to_zero=True)
    inverse = 1.0 / ct.sum(e, axis=1, keepdims=True)
    ct.store(out, index=(i, 0), tile=(e * inverse).astype(out.dtype))


@ct.kernel
def softmax_looped(x, out, BLOCK: ct.Constant[int]):
    """Rows longer than a tile, two sweeps of BLOCK-wide chunks per row.

    The first sweep keeps a running row maximum m (one block-wide max per chunk; in log2
    units, as the exponents) and running sums s of exp(x - m) per group of GROUP neighbouring
    columns (summed within each thread first: the sums take a quarter of a chunk's
    registers), rescaled when m grows; one block-wide sum at the end. The second writes
    exp(x - m) / sum. Each sweep loads its next chunk before it uses the current one, so two
    chunks are in flight. Blocks stride
    over the rows, so a grid of a few blocks per SM keeps the rows in flight small enough that
    the second sweep reads from L2.
    """
    for i in range(ct.bid(0), x.shape[0], ct.num_blocks(0)):
        tiles = ct.num_tiles(x, axis=1, shape=(1, BLOCK))
        m = ct.full((1, 1), -math.inf, ct.float32)
        s = ct.zeros((BLOCK // GROUP,), ct.float32)
        t = ct.load(x, index=(i, 0), shape=(1, BLOCK), padding_mode=NEG_INF)
        for j in range(tiles):
            following = ct.load(x, index=(i, j + 1), shape=(1, BLOCK), padding_mode=NEG_INF)
            f = t.astype(ct.float32)
            new_m = ct.maximum(m, ct.max(f, axis=1, keepdims=True) * LOG2_E)
            e = ct.exp2(f * LOG2_E - new_m, flush_to_zero=True)  # one fma, one ex2
            e = ct.reshape(e, (BLOCK // GROUP, GROUP))
            s = s * ct.reshape(ct.exp2(m - new_m, flush_to_zero=True), (1,)) + ct.sum(e, axis=1)
            m = new_m
            t = following
        inverse = 1.0 / ct.sum(s, axis=0, keepdims=True)[None, :]
        t = ct.load(x, index=(i, 0), shape=(1, BLOCK), padding_mode=NEG_INF)
        for j in range(tiles):
            following = ct.load(x, index=(i, j + 1), shape=(1, BLOCK), padding_mode=NEG_INF)
            e = ct.exp2(t.astype(ct.float32) * LOG2_E - m, flush_to_zero=True)
            ct.store(out, index=(i, j), tile=(e * inverse).astype(out.dtype))
            t = following


@ct.kernel
def softmax_split(x, out, partials, tickets, BLOCK: ct.Constant[int],
                  SLOTS: ct.Constant[int]):
    """Rows split across blocks (_split_rows.py): each block computes exp(x - m) of its chunk
    (m its chunk's maximum) and publishes (m, sum); the row's maximum M and sum S combine
    them, S = sum of sum_c * exp(m_c - M), and the block scales its exponents by
    exp(m - M) / S."""
    group, chunk, groups, chunks, tag = claim_chunk(x, tickets, BLOCK)
    t = ct.load(x, index=(group, chunk), shape=(1, BLOCK), padding_mode=NEG_INF)
    for row in range(group, x.shape[0], groups):
        following = ct.load(x, index=(row + groups, chunk), shape=(1, BLOCK),
                            padding_mode=NEG_INF)
        f = t.astype(ct.float32)
        m = ct.max(f, axis=1, keepdims=True) * LOG2_E  # a chunk holds at least one element
        e = ct.exp2(f * LOG2_E - m, flush_to_zero=True)
        parts = row_partials(partials, row, chunk, chunks, tag,
                             ct.cat((m, ct.sum(e, axis=1, keepdims=True)), axis=1), SLOTS)
        inside = ct.arange(SLOTS, dtype=ct.int32)[:, None] < chunks
        ms = ct.where(inside, column(parts, 0), -math.inf)
        top = ct.max(ms, axis=0, keepdims=True)
        total = ct.sum(column(parts, 1) * ct.exp2(ms - top, flush_to_zero=True), axis=0,
                       keepdims=True)
        scale = ct.exp2(m - top, flush_to_zero=True) / total
        ct.store(out, index=(row, chunk), tile=(e * scale).astype(out.dtype))
        t = following


# (BLOCK, warps, blocks per SM) of softmax_split by dtype. At 4096 x 65536 on the H100: 0.745
# ms in fp32 (1.00 of copy bandwidth; softmax_looped 1.06 ms), 0.411 in bf16 (0.90; looped
# 0.46). On an H200 (4.2 TB/s) 0.94 and 0.70, where 4096-column chunks, 4 warps, 4 blocks per
# SM do better in bf16 (0.75)
SPLIT = {"float32": (8192, 8, 2), "bfloat16": (8192, 8, 2)}


def reference(x: np.ndarray) -> np.ndarray:
    wide = x.astype(np.float64)
    e = np.exp(wide - wide.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(x.dtype)


def rows_config(n: int) -> tuple[int, int]:
    """(ROWS, BLOCK) for softmax_rows: whole rows, about 4096-8192 elements per block."""
    block = 1 << (n - 1).bit_length()
    return max(1, 4096 // block), block


def launch_softmax(stream, x, out, rows: int, n: int, looped_block: int | None = None,
                   split: bool = False) -> str:
    """Run the variant that fits and name it: whole rows up to 16384 columns, else rows split
    across blocks when `split` (the GPU) allows it, else the looped one."""
    if looped_block is None and n <= 16384:
        r, block = rows_config(n)
        ct.launch(stream, (ct.cdiv(rows, r),), softmax_rows.replace_hints(
            num_warps=8 if block >= 4096 else 4), (x, out, r, block))
        return "rows"
    config = _split_rows.config_for(SPLIT, x, n) if split else None
    if looped_block is None and config is not None:
        _split_rows.launch(stream, softmax_split, rows, n, 2, (x, out), config)
        return "split"
    ct.launch(stream, (persistent_grid(rows),), softmax_looped.replace_hints(num_warps=32),
              (x, out, looped_block or 8192))
    return "looped"


def run(rows: int, n: int, dtype: str = "float32", backend: Backend | None = None,
        looped_block: int | None = None, split_block: int | None = None) -> None:
    """Checked against NumPy; `looped_block` forces the looped kernel, `split_block` the split
    one (on the GPU; the interpreter takes the looped kernel for it)."""
    backend = backend or Backend()
    np_dtype = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
    x_host = (backend.rng.standard_normal((rows, n)) * 3).astype(np_dtype)
    x = backend.array(x_host)
    out = backend.empty_like(x_host)
    if split_block is not None and backend.gpu:
        _split_rows.launch(backend.stream(), softmax_split, rows, n, 2, (x, out),
                           (split_block, 4, 1))
        variant = "split"
    else:
        variant = launch_softmax(backend.stream(), x, out, rows, n, looped_block or (
            split_block and 1024), split=backend.gpu)
    backend.synchronize()
    tol = 1e-2 if dtype in ("bfloat16", "float16") else 2e-5
    check(f"softmax_{variant}[{dtype}]", backend.numpy(out), reference(x_host), rtol=tol,
          atol=tol * 1e-2)


def main() -> None:
    backend, rows, n, dtype = row_sample_args(__doc__, "softmax", cpu=(37, 1000))
    run(rows, n, dtype, backend)
    run(min(rows, 64), n * 4 + 3, dtype, backend, looped_block=1024)  # long rows


if __name__ == "__main__":
    main()
