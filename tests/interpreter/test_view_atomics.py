"""TiledView.atomic_store_*: atomic updates of whole tiles, overlapping tiles included."""

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct


def add_method(tv):
    return tv.atomic_store_add


def max_method(tv):
    return tv.atomic_store_max


def xor_method(tv):
    return tv.atomic_store_xor


METHODS = {"add": add_method, "max": max_method, "xor": xor_method}
NUMPY = {"add": np.add, "max": np.maximum, "xor": np.bitwise_xor}


def make_kernel(kind: str, steps):
    method = METHODS[kind]

    @ct.kernel
    def update(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
        i, j = ct.bid(0), ct.bid(1)
        tv_x = x.tiled_view((TM, TN), traversal_steps=steps)
        tv_y = y.tiled_view((TM, TN), traversal_steps=steps)
        method(tv_x)((i, j), tv_y.load((i, j)))

    return update


@pytest.mark.parametrize("kind", ["add", "max", "xor"])
@pytest.mark.parametrize("steps", [None, (3, 5)])  # (3, 5): the 4x8 tiles overlap
def test_tile_atomics(it, rng, kind, steps):
    m, n, tm, tn = 13, 30, 4, 8
    x = it.rand(rng, (m, n), "int32", low=-1000, high=1000)
    y = it.rand(rng, (m, n), "int32", low=-1000, high=1000)
    sm, sn = steps or (tm, tn)
    grid = (ct.cdiv(m, sm), ct.cdiv(n, sn))
    want = x.copy()
    for bi in range(grid[0]):
        for bj in range(grid[1]):
            rows, cols = slice(bi * sm, bi * sm + tm), slice(bj * sn, bj * sn + tn)
            want[rows, cols] = NUMPY[kind](want[rows, cols], y[rows, cols])
    it.launch(make_kernel(kind, steps), grid, x, y, tm, tn)
    it.assert_same(x, want)


@ct.kernel
def broadcast_add(x, y):
    ct_x = x.tiled_view((16, 8))
    ct_x.atomic_store_add((0, 0), y.tiled_view((1, 8)).load((0, 0)))


def test_update_broadcasts_to_the_tile(it, rng):
    x = it.rand(rng, (16, 8), "float32")
    y = it.rand(rng, (1, 8), "float32")
    want = x + y
    it.launch(broadcast_add, (1,), x, y)
    it.assert_same(x, want)
