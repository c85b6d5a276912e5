"""Front-end errors with cuTile's classes and words (issue 25): arguments of builtins named as
cuTile names them ('Invalid argument "shape" of load(): ...', '#1' for a positional-only
parameter), shape and index-count errors as TileTypeErrors, constants of two kinds meeting at a
join, `is` between tiles, run-time `keepdims`, calling a sub-byte dtype.

Each case checks the class, the message, the exact span, the rendering and a clean traceback
(conftest.expect_error)."""
# ruff: noqa: F841  (kernels written to exercise the compiler)

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct
from tilelang import TileTypeError


def k_load_shape_rank(a):
    t = ct.load(a, (0, 0), shape=(2, 2, 4))


def k_load_shape_int(a):
    t = ct.load(a, (0, 0), shape=2)


def k_load_shape_float(a):
    t = ct.load(a, (0, 0), shape=(2, 2.0))


def k_load_shape_run_time(a, n):
    t = ct.load(a, (0, 0), shape=(2, n))


def k_load_shape_negative(a):
    t = ct.load(a, (0, 0), shape=(-1, -2))


def k_full_shape_zero(a):
    t = ct.full((0, 0), 1, dtype=ct.float32)


def k_load_index_rank(a):
    t = ct.load(a, (0, 0, 0), shape=(2, 2))


def k_view_index_rank(a):
    t = a.tiled_view((2, 2)).load((0, 0, 0))


def k_order_letter(a):
    t = ct.load(a, (0, 0), shape=(2, 2), order="A")


def k_order_axis(a):
    t = ct.load(a, (0, 0), shape=(2, 2), order=(0, 3))


def k_permute_array(a):
    t = ct.permute(a, (1, 0))


def k_full_string(a):
    t = ct.full((4, 4), "foo", dtype=ct.int32)


def k_full_dtype(a):
    t = ct.full((4, 4), 1, dtype="foo")


def k_sum_keepdims(a, keepdims: bool):
    t = ct.sum(ct.full((1,), 0, dtype=ct.float32), 0, keepdims=keepdims)


def k_max_keepdims_of_scalar(a, keepdims: bool):
    t = ct.max(ct.bid(0), keepdims=keepdims)


def k_bool_add(a):
    x = ct.full((1,), 0, dtype=ct.bool_)
    t = x + x


def k_is(a):
    x = ct.full((1,), 0, ct.float32)
    b = x is x


def k_is_not(a):
    x, one = ct.full((1,), 0, ct.float32), 1
    b = x is not one


def k_fp4_scalar(a):
    t = ct.float4_e2m1fn(2.0)


A2 = (np.zeros((4, 4), np.float32),)

CASES = [
    (k_load_shape_rank, A2, 'Invalid argument "shape" of load(): Expected shape length to be 2, '
     "got 3", "ct.load(a, (0, 0), shape=(2, 2, 4))"),
    (k_load_shape_int, A2, 'Invalid argument "shape" of load(): Expected shape length to be 2, '
     "got 1", "ct.load(a, (0, 0), shape=2)"),
    (k_load_shape_float, A2, 'Invalid argument "shape" of load(): Expected a tuple of integers, '
     "but element #1 has type Tile[float32,()]", "ct.load(a, (0, 0), shape=(2, 2.0))"),
    (k_load_shape_run_time, (*A2, 2), 'Invalid argument "shape" of load(): Expected a constant '
     "integer tuple, but given value is not constant", "ct.load(a, (0, 0), shape=(2, n))"),
    (k_load_shape_negative, A2, 'Invalid argument "shape" of load(): Dimension #0 of shape '
     "(-1, -2) is not positive", "ct.load(a, (0, 0), shape=(-1, -2))"),
    (k_full_shape_zero, A2, 'Invalid argument "shape" of full(): Dimension #0 of shape (0, 0) is '
     "not positive", "ct.full((0, 0), 1, dtype=ct.float32)"),
    (k_load_index_rank, A2, "Index size 3 does not match the array rank 2",
     "ct.load(a, (0, 0, 0), shape=(2, 2))"),
    (k_view_index_rank, A2, "Index size 3 does not match the tiled view rank 2",
     "a.tiled_view((2, 2)).load((0, 0, 0))"),
    (k_order_letter, A2, "Invalid argument \"order\" of load(): Expected 'C' or 'F', got 'A'",
     'ct.load(a, (0, 0), shape=(2, 2), order="A")'),
    (k_order_axis, A2, 'Invalid argument "order" of load(): Axis 3 is out of range for rank 2',
     "ct.load(a, (0, 0), shape=(2, 2), order=(0, 3))"),
    (k_permute_array, A2, "Invalid argument #1 of permute(): Expected a tile, but given value "
     "has type Array[float32,(?,?):(?,?)]", "ct.permute(a, (1, 0))"),
    (k_full_string, A2, 'Invalid argument "fill_value" of full(): Expected a scalar, but given '
     "value has type str", 'ct.full((4, 4), "foo", dtype=ct.int32)'),
    (k_full_dtype, A2, 'Invalid argument "dtype" of full(): Expected a dtype constant',
     'ct.full((4, 4), 1, dtype="foo")'),
    (k_sum_keepdims, (*A2, True), 'Invalid argument "keepdims" of sum(): Expected a boolean '
     "constant, but given value is not constant",
     "ct.sum(ct.full((1,), 0, dtype=ct.float32), 0, keepdims=keepdims)"),
    (k_max_keepdims_of_scalar, (*A2, False), 'Invalid argument "keepdims" of max(): Expected a '
     "boolean constant", "ct.max(ct.bid(0), keepdims=keepdims)"),
    (k_bool_add, A2, "Binary arithmetic op `add` does not support bool, please cast bool to int",
     "x + x"),
    (k_is, A2, "Operator 'is' expects one of the operands to be None", "x is x"),
    (k_is_not, A2, "Operator 'is not' expects one of the operands to be None",
     "x is not one"),
    (k_fp4_scalar, A2, "Cannot call an object of type DTypeSpec(dtype=<DType 'float4_e2m1fn'>)",
     "ct.float4_e2m1fn(2.0)"),
]


@pytest.mark.parametrize("fn, args, match, at", CASES, ids=[c[0].__name__[2:] for c in CASES])
def test_error(fe, fn, args, match, at):
    fe.expect_error(ct.kernel(fn), args, TileTypeError, match, at)


def test_tile_is_none_is_a_constant(fe):
    @ct.kernel
    def k(a):
        x = ct.load(a, (0,), (4,))
        ct.static_assert(x is not None)
        ct.static_assert((None is x) == False)  # noqa: E712
        ct.store(a, (0,), x)

    fe.tile_ir(k, fe.array())


def test_constant_keepdims_still_works(fe):
    @ct.kernel
    def k(a, out, keep: ct.Constant[bool]):
        ct.store(out, (0, 0), ct.sum(ct.load(a, (0, 0), (4, 4)), 1, keepdims=keep))

    fe.tile_ir(k, fe.array(shape=(4, 4)), fe.array(shape=(4, 1)), True)


# ----- constants of two kinds at a join (cuTile: each is its own dtype) -------------------------


def k_if_int_or_float(a):
    if ct.bid(0) == 0:
        v = 1
    else:
        v = 2.0
    ct.store(a, (0,), v)


def k_loop_int_made_float(a):
    v = 1
    for _ in range(10):
        v *= 2.0
    ct.store(a, (0,), v)


def k_loop_int_plus_float_tile(a, n):
    acc = 0
    for i in range(n):
        acc += ct.load(a, (i,), (4,))
    ct.store(a, (0,), acc)


def k_while_break_int_or_float(a):
    i = 0
    while True:
        i += 1
        if i >= 5:
            v = 3.0
            break
        elif i >= ct.bid(0):
            v = 5
            break
    ct.store(a, (0,), v)


def test_if_constants_of_two_kinds(fe):
    k = ct.kernel(k_if_int_or_float)
    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "Type of `v` depends on path taken: constant 2.0 (line ",
                    ("ct.store(a, (0,), v)", "v"))


@pytest.mark.parametrize("fn, args, what", [
    (k_loop_int_made_float, (), "int32 scalar vs. float32 scalar"),
    (k_loop_int_plus_float_tile, (3,), "int32 scalar vs. float32 tile of shape (4,)"),
])
def test_loop_int_constant_made_float(fe, fn, args, what):
    with pytest.raises(TileTypeError) as info:
        fe.tile_ir(ct.kernel(fn), fe.array(), *args)
    assert info.value.message.startswith(f"Type of `{'v' if 'made' in fn.__name__ else 'acc'}` "
                                         f"depends on path taken: {what}"), info.value.message
    assert info.value.loc is not None and info.value.loc.line > fn.__code__.co_firstlineno


def test_break_constants_of_two_kinds(fe):
    with pytest.raises(TileTypeError, match="Type of `v` depends on path taken"):
        fe.tile_ir(ct.kernel(k_while_break_int_or_float), fe.array())


def test_float_constant_adopts_the_loop_dtype_and_shape(fe):
    @ct.kernel
    def k(a, out, n):
        acc = 0.0
        for i in range(n):
            acc += ct.load(a, (i,), (4,))
        ct.store(out, (0,), acc)

    fe.tile_ir(k, fe.array(), fe.array(), 3)


# ----- directed rounding from float8_e8m0fnu (cuTile's table: only to float64) ------------------


@pytest.mark.parametrize("dst, mode", [("float32", "RA"), ("float32", "RM"), ("float16", "RP"),
                                       ("tfloat32", "RA")])
def test_directed_rounding_from_e8m0(fe, dst, mode):
    @ct.kernel
    def k(a, D: ct.Constant, M: ct.Constant):
        x = ct.ones((2,), dtype=ct.float8_e8m0fnu).astype(D, rounding_mode=M)

    fe.expect_error(k, (fe.array(), getattr(ct, dst), getattr(ct.RoundingMode, mode)),
                    TileTypeError,
                    f"rounding_mode=RoundingMode.{mode} is not supported for conversion from "
                    f"tilelang.float8_e8m0fnu to tilelang.{dst}, supported rounding modes for "
                    "this conversion are (RN, RZ)",
                    "ct.ones((2,), dtype=ct.float8_e8m0fnu).astype(D, rounding_mode=M)")


def test_directed_rounding_from_e8m0_to_float64(fe):
    @ct.kernel
    def k(a):
        x = ct.ones((2,), dtype=ct.float8_e8m0fnu).astype(ct.float64,
                                                          rounding_mode=ct.RoundingMode.RM)

    fe.tile_ir(k, fe.array())
