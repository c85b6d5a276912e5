"""Kernels the autotuning tests share: importable by name, so compile workers can load them."""

from __future__ import annotations

import tilelang as ct


@ct.kernel
def scaled_copy(x, out, alpha, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, (i,), (BLOCK,))
    ct.store(out, (i,), t * alpha)


@ct.kernel
def add_one_in_place(x, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, (i,), (BLOCK,))
    ct.store(x, (i,), t + 1)


@ct.kernel
def row_sums(x, out, ROWS: ct.Constant[int], COLS: ct.Constant[int]):
    i = ct.bid(0)
    acc = ct.zeros((ROWS,), ct.float32)
    for j in range(ct.cdiv(x.shape[1], COLS)):
        t = ct.load(x, (i, j), (ROWS, COLS), padding_mode=ct.PaddingMode.ZERO)
        acc += ct.sum(t, axis=1)
    ct.store(out, (i,), acc)
