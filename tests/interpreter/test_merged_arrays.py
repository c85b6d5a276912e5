"""Arrays that differ between the paths of run-time control flow in their specialization facts
(a unit inner stride, alignment, compiled-in extents) still meet: cuTile's array type has no
strides, so `a = x` / `a = x.T` is one array. The merged array keeps only the facts both have
(the other is viewed as that weaker type). Against NumPy, per block."""

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct


@ct.kernel
def pick_by_block(x, y, out):
    if ct.bid(0) == 0:
        a = x
    else:
        a = y
    ct.store(out, (ct.bid(0), 0), ct.load(a, (0, 0), shape=(4, 4)))


def _arrays(it, rng):
    x = it.rand(rng, (4, 4), "float32")
    y = np.ascontiguousarray(it.rand(rng, (4, 4), "float32")).T  # strides (4, 16) bytes
    return x, y


def test_if_joins_arrays_of_other_strides(it, rng):
    x, y = _arrays(it, rng)
    out = it.poison((8, 4), "float32")
    it.launch(pick_by_block, (2,), x, y, out)
    it.assert_same(out, np.concatenate([x, y]))


@ct.kernel
def carried_by_loop(x, y, out, n):
    a = x
    for _ in range(n):
        a = y
    v = a.tiled_view((4, 4))
    ct.store(out, (0, 0), v.load((0, 0)))


@pytest.mark.parametrize("n", [0, 2])
def test_loop_carries_arrays_of_other_strides(it, rng, n):
    x, y = _arrays(it, rng)
    out = it.poison((4, 4), "float32")
    it.launch(carried_by_loop, (1,), x, y, out, n)
    it.assert_same(out, y if n else x)


@ct.kernel
def views_by_block(x, y, out):
    if ct.bid(0) == 0:
        v = x.tiled_view((2, 4))
    else:
        v = y.tiled_view((2, 4))
    ct.store(out, (ct.bid(0), 0), v.load((1, 0)))


def test_if_joins_tiled_views_of_other_strides(it, rng):
    x, y = _arrays(it, rng)
    out = it.poison((4, 4), "float32")
    it.launch(views_by_block, (2,), x, y, out)
    it.assert_same(out, np.concatenate([x[2:], y[2:]]))


def test_the_merged_array_keeps_only_shared_facts():
    x = np.zeros((4, 4), np.float32)
    args = (x, x.T, np.zeros((8, 4), np.float32))
    tile_ir = ct.compile(pick_by_block, args, stop_after="tile").asm["tile"]
    # x has a unit inner stride, x.T a unit outer one: the merged array has neither
    assert '"tile.slice"' in tile_ir
    assert "!tile.array<f32, array<i64: -1, -1>" in tile_ir
    assert ".entry" in ct.compile(pick_by_block, args, arch="sm_90").ptx  # lowers for the GPU
