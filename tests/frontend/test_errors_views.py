"""Front-end errors of Array.slice and tiled views, one kernel each, in a table; and the IR
they produce (alignment facts of slices, `steps` of tiled-view accesses).

Same checks as the other error files: class, message, exact span, rendering, clean traceback
and a healthy compiler afterwards.
"""
# ruff: noqa: B007, B018, F841  (kernels written to exercise the compiler)

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct
from tilelang import TileTypeError


def k_slice_axis_out_of_range(a):
    a.slice(-2, 0, 4)


def k_slice_axis_not_constant(a, n):
    a.slice(n, 0, 4)


def k_slice_float_start(a):
    a.slice(0, 1.0, 5)


def k_slice_unsigned_stop(a, n):
    a.slice(0, 0, ct.astype(n, ct.uint32))


def k_slice_tile_bound(a):
    a.slice(0, 0, ct.arange(4, dtype=ct.int32))


def k_slice_negative_start(a):
    a.slice(0, -1, 5)


def k_slice_stop_before_start(a):
    a.slice(axis=0, start=5, stop=3)


def k_slice_missing_stop(a):
    a.slice(0, 1)


def k_view_shape_not_constant(a, n):
    a.tiled_view((n,))


def k_view_shape_rank(a):
    a.tiled_view((4, 4))


def k_view_steps_rank(a):
    a.tiled_view(4, traversal_steps=(2, 2))


def k_view_steps_not_positive(a):
    a.tiled_view(4, traversal_steps=0)


def k_view_shape_not_positive(a):
    a.tiled_view((0,))


def k_view_padding(a):
    a.tiled_view(4, padding_mode="nope")


def k_view_index_rank(a):
    a.tiled_view(4).load((0, 0))


def k_view_num_tiles_axis(a):
    a.tiled_view(4).num_tiles(1)


def k_view_store_shape(a):
    t = ct.load(a, 0, (8,))
    a.tiled_view(4).store(0, t)


def k_view_store_lossy(a):
    a.tiled_view(4).store(0, ct.zeros((4,), ct.float64))


def k_view_as_array(a):
    tv = a.tiled_view(4)
    ct.load(tv, (0,), (4,))


def k_view_unknown_attribute(a):
    a.tiled_view(4).shape


def k_view_check_bounds(a, flag):
    a.tiled_view(4).load(0, check_bounds=flag)


def k_view_changes_in_loop(a, n):
    tv = a.tiled_view(4)
    for i in range(n):
        tv = a.tiled_view(8)


CASES = [
    (k_slice_axis_out_of_range, (), TileTypeError, "Axis -2 is out of range for rank 1",
     "a.slice(-2, 0, 4)"),
    (k_slice_axis_not_constant, (3,), TileTypeError, "axis must be a compile-time constant int",
     "a.slice(n, 0, 4)"),
    (k_slice_float_start, (), TileTypeError, "Expected a signed integer scalar for the slice start",
     "a.slice(0, 1.0, 5)"),
    (k_slice_unsigned_stop, (3,), TileTypeError,
     "Expected a signed integer scalar for the slice stop, got uint32 scalar",
     "a.slice(0, 0, ct.astype(n, ct.uint32))"),
    (k_slice_tile_bound, (), TileTypeError, "got int32 tile of shape (4,)",
     "a.slice(0, 0, ct.arange(4, dtype=ct.int32))"),
    (k_slice_negative_start, (), TileTypeError, "Slice start must be non-negative, got -1",
     "a.slice(0, -1, 5)"),
    (k_slice_stop_before_start, (), TileTypeError,
     "Slice stop must be greater than or equal to start", "a.slice(axis=0, start=5, stop=3)"),
    (k_slice_missing_stop, (), TileTypeError, "Array.slice(): missing a required argument",
     "a.slice(0, 1)"),
    (k_view_shape_not_constant, (3,), TileTypeError,
     "tile_shape must be a tuple of compile-time constant ints", "a.tiled_view((n,))"),
    (k_view_shape_rank, (), TileTypeError, "Expected shape length to be 1, got 2",
     "a.tiled_view((4, 4))"),
    (k_view_steps_rank, (), TileTypeError, "Expected traversal_steps length to be 1, got 2",
     "a.tiled_view(4, traversal_steps=(2, 2))"),
    (k_view_steps_not_positive, (), TileTypeError, "Element 0 of traversal_steps (0,) is not "
     "positive", "a.tiled_view(4, traversal_steps=0)"),
    (k_view_shape_not_positive, (), TileTypeError, "Element 0 of tile_shape (0,) is not positive",
     "a.tiled_view((0,))"),
    (k_view_padding, (), TileTypeError, "padding_mode must be a tilelang.PaddingMode",
     'a.tiled_view(4, padding_mode="nope")'),
    (k_view_index_rank, (), TileTypeError, "Index size 2 does not match the tiled view rank 1",
     "a.tiled_view(4).load((0, 0))"),
    (k_view_num_tiles_axis, (), TileTypeError, "Axis 1 is out of range for rank 1",
     "a.tiled_view(4).num_tiles(1)"),
    (k_view_store_shape, (), TileTypeError,
     "Tile shape (8,) is not broadcastable to the tiled view's tile shape (4,)",
     "a.tiled_view(4).store(0, t)"),
    (k_view_store_lossy, (), TileTypeError, "cannot implicitly cast a float64 tile",
     "a.tiled_view(4).store(0, ct.zeros((4,), ct.float64))"),
    (k_view_as_array, (), TileTypeError, "load() expects an array as its first argument, got "
     "tiled view (tile shape (4,)) of a 1-d float32 array", "ct.load(tv, (0,), (4,))"),
    (k_view_unknown_attribute, (), TileTypeError, "a tiled view has no attribute `shape`",
     "a.tiled_view(4).shape"),
    (k_view_check_bounds, (True,), TileTypeError, "check_bounds must be a constant bool",
     "a.tiled_view(4).load(0, check_bounds=flag)"),
    (k_view_changes_in_loop, (3,), TileTypeError, "Type of `tv` depends on path taken",
     "for i in range(n):"),
]


@pytest.mark.parametrize(("fn", "args", "cls", "match", "at"), CASES,
                         ids=[c[0].__name__.removeprefix("k_") for c in CASES])
def test_error(fe, fn, args, cls, match, at):
    fe.expect_error(ct.kernel(fn), (fe.array(), *args), cls, match, at)


def test_view_as_array_has_a_hint(fe):
    err = fe.expect_error(ct.kernel(k_view_as_array), (fe.array(),), TileTypeError,
                          "expects an array", "ct.load(tv, (0,), (4,))")
    assert "view.load(index)" in err.hint


# ----- IR --------------------------------------------------------------------------------------


def slices(x, lo, C0: ct.Constant[int], C1: ct.Constant[int]):
    a = x.slice(1, lo, 40)  # run-time start along the unit-stride axis
    b = x.slice(1, C0, 40)  # constant starts along the unit-stride axis
    c = x.slice(1, C1, 40)
    d = x.slice(0, lo, 5)  # run-time start along a run-time stride: whole rows
    ct.store(a, (0, 0), ct.load(b, (0, 0), (2, 8)) + ct.load(c, (0, 0), (2, 8)))
    ct.store(d, (0, 0), ct.load(a, (0, 0), (2, 8)))


@pytest.mark.parametrize(("dtype", "c0", "c1", "aligns"), [
    (np.float32, 4, 6, ("4", "16", "8", "16")),  # 6 floats = 24 bytes: 8-byte aligned
    (np.float16, 0, 3, ("2", "16", "2", "16")),
    (np.int8, 16, 40, ("1", "16", "8", "16")),
])
def test_slice_alignment_facts(fe, dtype, c0, c1, aligns):
    ir = fe.tile_ir(ct.kernel(slices), fe.array(dtype, (8, 64)), 2, c0, c1)
    results = [s.split("-> ")[1] for s in fe.signatures(ir, "tile.slice")]
    assert [r.rsplit(", ", 1)[1].split(" ")[0] for r in results] == list(aligns), results
    assert all("array<i64: -1, 1>" in r for r in results)


def strided(x, y, T: ct.Constant, S: ct.Constant):
    t = x.tiled_view(T, traversal_steps=S).load((1, 2))
    y.tiled_view(T, traversal_steps=S).store((0, 0), t)


def test_tiled_view_accesses(fe):
    ir = fe.tile_ir(ct.kernel(strided), fe.array(shape=(8, 8)), fe.array(shape=(8, 8)), (2, 4),
                    (1, 3))
    assert ir.count("steps = array<i64: 1, 3>") == 2, ir
    ir = fe.tile_ir(ct.kernel(strided), fe.array(shape=(8, 8)), fe.array(shape=(8, 8)), (2, 4),
                    (2, 4))
    assert "steps" not in ir and ir.count("order = array<i64: 0, 1>") == 2, ir


def test_atomic_store_of_an_unsupported_dtype(fe):
    @ct.kernel
    def k(a):
        a.tiled_view(16).atomic_store_max(0, ct.zeros((16,), ct.float32))

    fe.expect_error(k, (fe.array(np.float32),), TileTypeError,
                    "Unsupported tiled view dtype float32 for atomic_store_max()",
                    "a.tiled_view(16).atomic_store_max(0, ct.zeros((16,), ct.float32))")


def test_atomic_store_update_of_the_wrong_shape(fe):
    @ct.kernel
    def k(a):
        a.tiled_view(16).atomic_store_add(0, ct.zeros((8,), ct.float32))

    fe.expect_error(k, (fe.array(np.float32),), TileTypeError,
                    "Update shape (8,) is not broadcastable to the tile shape (16,)",
                    "a.tiled_view(16).atomic_store_add(0, ct.zeros((8,), ct.float32))")
