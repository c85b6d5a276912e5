"""Front-end errors of permute, transpose, cat, extract, insert and bitcast: one kernel each.

Same checks as the other error files: class, message, exact span, rendering, clean traceback
and a healthy compiler afterwards.
"""
# ruff: noqa: F841  (kernels written to exercise the compiler)

from __future__ import annotations

import pytest

import tilelang as ct
from tilelang import TileTypeError, TileValueError


def k_permute_repeats(a):
    x = ct.permute(ct.zeros((4, 8), ct.float32), (0, 0))


def k_permute_count(a):
    x = ct.zeros((4, 8, 2), ct.float32).permute((1, 0))


def k_permute_axis_range(a):
    x = ct.permute(ct.zeros((4, 8), ct.float32), (0, 2))


def k_transpose_1d(a):
    x = ct.transpose(ct.zeros((8,), ct.float32))


def k_transpose_one_axis(a):
    x = ct.zeros((4, 8), ct.float32).transpose(0)


def k_transpose_3d_default(a):
    x = ct.transpose(ct.zeros((2, 4, 8), ct.float32))


def k_cat_dtypes(a):
    x = ct.cat((ct.zeros((4,), ct.float32), ct.zeros((4,), ct.int32)), 0)


def k_cat_shapes(a):
    x = ct.cat((ct.zeros((4, 8), ct.float32), ct.zeros((4, 4), ct.float32)), 1)


def k_cat_three(a):
    t = ct.zeros((4,), ct.float32)
    x = ct.cat((t, t, t), 0)


def k_cat_not_power_of_two(a):
    t = ct.zeros((3, 4), ct.float32)
    x = ct.cat((t, t), 0)


def k_cat_not_tuple(a):
    x = ct.cat(ct.zeros((4,), ct.float32), 0)


def k_extract_out_of_bounds(a):
    x = ct.extract(ct.zeros((16, 16), ct.float16), (2, 0), (8, 16))


def k_extract_not_dividing(a):
    x = ct.zeros((16,), ct.float16).extract((0,), (6,))


def k_extract_not_power_of_two(a):
    x = ct.extract(ct.zeros((12,), ct.float16), (0,), (3,))


def k_extract_rank(a):
    x = ct.extract(ct.zeros((16, 16), ct.float16), (0, 0), (8,))


def k_extract_float_index(a):
    x = ct.extract(ct.zeros((16,), ct.float16), (0.5,), (8,))


def k_insert_dtype(a):
    x = ct.insert(ct.zeros((16,), ct.float32), (0,), ct.zeros((8,), ct.int32))


def k_insert_not_dividing(a):
    x = ct.zeros((16,), ct.float32).insert((0,), ct.zeros((5,), ct.float32))


def k_insert_too_big(a):
    x = ct.insert(ct.zeros((16,), ct.float32), (0,), ct.zeros((32,), ct.float32))


def k_insert_rank(a):
    x = ct.insert(ct.zeros((16, 16), ct.float32), (0, 0), ct.zeros((16,), ct.float32))


def k_bitcast_widths(a):
    x = ct.bitcast(ct.zeros((4,), ct.float32), ct.int16)


def k_bitcast_bool(a):
    x = ct.bitcast(ct.zeros((4,), ct.int8), ct.bool_)


CASES = [
    (k_permute_repeats, TileValueError, "axes (0, 0) are not a permutation of the 2 dimensions",
     "ct.permute(ct.zeros((4, 8), ct.float32), (0, 0))"),
    (k_permute_count, TileValueError, "permute() got 2 axes for a tile of shape (4, 8, 2)",
     "ct.zeros((4, 8, 2), ct.float32).permute((1, 0))"),
    (k_permute_axis_range, TileValueError, "each axis 2 is out of range for 2 dimensions",
     "ct.permute(ct.zeros((4, 8), ct.float32), (0, 2))"),
    (k_transpose_1d, TileTypeError, "Cannot transpose a tile with fewer than 2 dimensions",
     "ct.transpose(ct.zeros((8,), ct.float32))"),
    (k_transpose_one_axis, TileTypeError, "axes must either both be specified or both be None",
     "ct.zeros((4, 8), ct.float32).transpose(0)"),
    (k_transpose_3d_default, TileTypeError, "`axes` must be specified for tile with more than 2",
     "ct.transpose(ct.zeros((2, 4, 8), ct.float32))"),
    (k_cat_dtypes, TileTypeError, "Expected tiles to have the same dtype, got float32 and int32",
     "ct.cat((ct.zeros((4,), ct.float32), ct.zeros((4,), ct.int32)), 0)"),
    (k_cat_shapes, TileTypeError, "Result tile shape must be power of 2 along axis 1",
     "ct.cat((ct.zeros((4, 8), ct.float32), ct.zeros((4, 4), ct.float32)), 1)"),
    (k_cat_three, TileTypeError, "cat() supports at most 2 tiles, got 3",
     "ct.cat((t, t, t), 0)"),
    (k_cat_not_power_of_two, TileTypeError,
     "Result tile shape must be power of 2 along axis 0, got (3, 4) and (3, 4)",
     "ct.cat((t, t), 0)"),
    (k_cat_not_tuple, TileTypeError, "cat() expects a tuple of tiles, got float32 tile",
     "ct.cat(ct.zeros((4,), ct.float32), 0)"),
    (k_extract_out_of_bounds, TileTypeError,
     "extract(): index 2 along dimension 0 is out of bounds: the tile holds 2 sub-tiles",
     "ct.extract(ct.zeros((16, 16), ct.float16), (2, 0), (8, 16))"),
    (k_extract_not_dividing, TileTypeError, "tile shape (16,) is not divisible by the sub-tile",
     "ct.zeros((16,), ct.float16).extract((0,), (6,))"),
    (k_extract_not_power_of_two, TileValueError, "sub-tile size 3 along dimension 0 must be a "
     "power of two", "ct.extract(ct.zeros((12,), ct.float16), (0,), (3,))"),
    (k_extract_rank, TileTypeError, "the sub-tile shape (8,) does not match the tile rank 2",
     "ct.extract(ct.zeros((16, 16), ct.float16), (0, 0), (8,))"),
    (k_extract_float_index, TileTypeError, "each extract() index must be an integer scalar",
     "ct.extract(ct.zeros((16,), ct.float16), (0.5,), (8,))"),
    (k_insert_dtype, TileTypeError, "Cannot insert a tile of dtype int32 into a tile of dtype "
     "float32", "ct.insert(ct.zeros((16,), ct.float32), (0,), ct.zeros((8,), ct.int32))"),
    (k_insert_not_dividing, TileTypeError, "tile shape (16,) is not divisible by the sub-tile",
     "ct.zeros((16,), ct.float32).insert((0,), ct.zeros((5,), ct.float32))"),
    (k_insert_too_big, TileTypeError, "tile shape (16,) is not divisible by the sub-tile",
     "ct.insert(ct.zeros((16,), ct.float32), (0,), ct.zeros((32,), ct.float32))"),
    (k_insert_rank, TileTypeError, "the sub-tile shape (16,) does not match the tile rank 2",
     "ct.insert(ct.zeros((16, 16), ct.float32), (0, 0), ct.zeros((16,), ct.float32))"),
    (k_bitcast_widths, TileTypeError,
     "bitcast() from float32 (32 bits) to int16 (16 bits): the widths differ",
     "ct.bitcast(ct.zeros((4,), ct.float32), ct.int16)"),
    (k_bitcast_bool, TileTypeError, "bitcast() does not convert from or to bool",
     "ct.bitcast(ct.zeros((4,), ct.int8), ct.bool_)"),
]


@pytest.mark.parametrize(("fn", "cls", "match", "at"), CASES,
                         ids=[c[0].__name__.removeprefix("k_") for c in CASES])
def test_error(fe, fn, cls, match, at):
    fe.expect_error(ct.kernel(fn), (fe.array(),), cls, match, at)
