"""Gathers and scatters of one aligned contiguous run (`j * T + arange(T)`), which
tile-rewrite-gathers turns into tile loads and stores on the GPU, mean what element-wise
gathers mean: padding outside the array (negative starts, rows past the end, a partial last
chunk), and scatters that skip what lies outside."""

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct

ROWS, COLS, T = 5, 300, 64


@ct.kernel
def copy_row_chunks(x, y, shift: int, pad: ct.Constant[float], T: ct.Constant[int]):
    row = ct.bid(0)
    for j in range(ct.cdiv(x.shape[1], T) + 1):
        offs = (j + shift) * T + ct.arange(T, dtype=ct.int32)
        t = ct.gather(x, (row + shift, offs), padding_value=pad)
        ct.scatter(y, (row, j * T + ct.arange(T, dtype=ct.int32)), t * 2)


@ct.kernel
def sum_chunks(x, out, T: ct.Constant[int]):
    acc = ct.full((T,), 0, ct.float32)
    for j in range(ct.cdiv(x.shape[0], T)):
        acc += ct.gather(x, j * T + ct.arange(T, dtype=ct.int32)).astype(ct.float32)
    ct.scatter(out, ct.bid(0), ct.sum(acc, axis=0))


def reference(x: np.ndarray, y: np.ndarray, shift: int, pad: float) -> np.ndarray:
    want = y.copy()
    for row in range(ROWS):
        for col in range(COLS):
            r, c = row + shift, col + shift * T
            value = x[r, c] if 0 <= r < ROWS and 0 <= c < COLS else pad
            want[row, col] = value * 2
    return want


@pytest.mark.parametrize("pad", [0.0, -np.inf, 1.5])  # 1.5: no padding mode, stays a gather
@pytest.mark.parametrize("shift", [0, 1, -1])
def test_row_chunks(it, rng, shift, pad):
    x = it.rand(rng, (ROWS, COLS), "float32")
    y = it.poison((ROWS, COLS), "float32")
    it.launch(copy_row_chunks, (ROWS,), x, y, shift, pad, T)
    it.assert_same(y, reference(x, y, shift, pad))


def test_the_runs_become_tile_accesses():
    x = np.zeros((ROWS, COLS), np.float32)
    text = ct.compile(copy_row_chunks, (x, x, 1, 0.0, T), stop_after="tile-opt").asm["tile-opt"]
    assert "tile.gather" not in text and "tile.scatter" not in text
    assert text.count('"tile.load"') == 1 and text.count('"tile.store"') == 1


@pytest.mark.parametrize("dtype", ["float16", "int32"])
def test_sum_of_chunks(it, rng, dtype):
    x = it.rand(rng, 1000, dtype, low=-8, high=8)
    out = it.poison(1, "float32")
    it.launch(sum_chunks, (1,), x, out, 128)
    np.testing.assert_allclose(out[0], x.astype(np.float64).sum(), rtol=1e-5)


def test_gathers_of_0d_arrays_compile():
    from test_gather_scatter import zero_d_gather_scatter

    x = np.array(1.0, np.float32)
    ct.compile(zero_d_gather_scatter, (x, x, x, 1), stop_after="tile-opt")  # no index to match
