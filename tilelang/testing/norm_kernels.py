"""Test kernels written as cuTile's norms are (chunk loops over a row whose trip count is a
constant), shared by the CPU and GPU tests of tile-unroll-single-iterations and the load
merging of tile-eliminate-common-subexpressions."""

from __future__ import annotations

import tilelang as ct


@ct.kernel
def chunked_rms_norm(x, w, y, N: ct.Constant[int], ROWS: ct.Constant[int],
                     T: ct.Constant[int]):
    """Two passes over a row's chunks (N / T of them: one when T covers the row), the second
    loading the same tiles again."""
    row = ct.bid(0)
    total = ct.full((ROWS, 1), 0.0, dtype=ct.float32)
    for j in range(ct.cdiv(N, T)):
        t = ct.load(x, index=(row, j), shape=(ROWS, T), padding_mode=ct.PaddingMode.ZERO)
        t = t.astype(ct.float32)
        total += ct.sum(t * t, axis=1, keepdims=True)
    scale = ct.rsqrt(total / N + 1e-6)
    for j in range(ct.cdiv(N, T)):
        t = ct.load(x, index=(row, j), shape=(ROWS, T), padding_mode=ct.PaddingMode.ZERO)
        v = ct.load(w, index=(j,), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
        out = t.astype(ct.float32) * scale * v.astype(ct.float32)
        ct.store(y, index=(row, j), tile=out.astype(y.dtype))


@ct.kernel
def reload_after_store(x, y, z, T: ct.Constant[int]):
    """z = 2 x + 1 read back through x after a store to y: with y the same array as x, the
    second load must see the store."""
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    ct.store(y, index=(ct.bid(0),), tile=t * 2.0)
    u = ct.load(x, index=(ct.bid(0),), shape=(T,))
    ct.store(z, index=(ct.bid(0),), tile=u + 1.0)


@ct.kernel
def persistent_rms_norm(x, w, y, ROWS: ct.Constant[int], N: ct.Constant[int]):
    """cuTile's static persistent RMS norm, in short: each block walks row tiles with a
    grid-stride loop (its step the number of blocks), loading, normalizing and storing one
    tile an iteration; with `y` a different array the next tile is loaded during this one."""
    scale = ct.load(w, index=(0,), shape=(N,), padding_mode=ct.PaddingMode.ZERO)
    for tile in range(ct.bid(0), ct.cdiv(x.shape[0], ROWS), ct.num_blocks(0)):
        t = ct.load(x, index=(tile, 0), shape=(ROWS, N), padding_mode=ct.PaddingMode.ZERO)
        t = t.astype(ct.float32)
        rstd = ct.rsqrt(ct.sum(t * t, axis=1, keepdims=True) / x.shape[1] + 1e-6)
        ct.store(y, index=(tile, 0), tile=(t * rstd * scale.astype(ct.float32)).astype(y.dtype))

