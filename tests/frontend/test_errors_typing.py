"""Front-end errors: dtypes, promotion, shapes, memory accesses and element-wise functions.

Same checks as test_errors_syntax.py: class, message, exact span, rendering, clean traceback,
and a healthy compiler afterwards.
"""
# ruff: noqa: F841  (kernels written to exercise the compiler)

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct
from tilelang import TileTypeError, TileValueError

# ----- promotion and constants -----------------------------------------------------------------


def test_int32_plus_uint32(fe):
    @ct.kernel
    def k(a, b):
        x = ct.load(a, (0,), (16,)) + ct.load(b, (0,), (16,))

    err = fe.expect_error(k, (fe.array(np.int32), fe.array(np.uint32)), TileTypeError,
                          "Implicit promotion of int32 and uint32 is not supported",
                          "ct.load(a, (0,), (16,)) + ct.load(b, (0,), (16,))")
    assert "astype" in err.hint


def test_float16_plus_bfloat16(fe):
    @ct.kernel
    def k(a, b):
        x = ct.load(a, (0,), (16,)) * ct.load(b, (0,), (16,))

    fe.expect_error(k, (fe.array(np.float16), fe.array("bfloat16")), TileTypeError,
                    "Implicit promotion of float16 and bfloat16 is not supported",
                    "ct.load(a, (0,), (16,)) * ct.load(b, (0,), (16,))")


def test_signed_unsigned_in_where(fe):
    @ct.kernel
    def k(a):
        t = ct.zeros((4,), ct.int8)
        x = ct.where(t > 0, t, ct.zeros((4,), ct.uint8))

    fe.expect_error(k, (fe.array(),), TileTypeError, "Implicit promotion of int8 and uint8",
                    "ct.where(t > 0, t, ct.zeros((4,), ct.uint8))")


def test_uint8_plus_300(fe):
    @ct.kernel
    def k(a):
        x = ct.load(a, (0,), (16,)) + 300

    fe.expect_error(k, (fe.array(np.uint8),), TileValueError,
                    "Integer constant 300 is out of range of uint8",
                    "ct.load(a, (0,), (16,)) + 300")


def test_uint32_minus_one_constant(fe):
    @ct.kernel
    def k(a):
        x = ct.load(a, (0,), (16,)) * -1

    fe.expect_error(k, (fe.array(np.uint32),), TileValueError,
                    "Integer constant -1 is out of range of uint32", "ct.load(a, (0,), (16,)) * -1")


def test_constant_out_of_every_integer_type(fe):
    @ct.kernel
    def k(a):
        x = ct.bid(0) + 2**70

    fe.expect_error(k, (fe.array(),), TileValueError,
                    "Constant 1180591620717411303424 is out of range of any supported integer type",
                    "ct.bid(0) + 2**70")


def test_constant_division_by_zero(fe):
    @ct.kernel
    def k(a, BLOCK: ct.Constant[int]):
        x = 128 // (BLOCK - 16)

    fe.expect_error(k, (fe.array(), 16), TileValueError, "constant expression divides by zero",
                    "128 // (BLOCK - 16)")


def test_bool_arithmetic(fe):
    @ct.kernel
    def k(a):
        b = ct.load(a, (0,), (16,)) > 0
        x = b + b

    err = fe.expect_error(k, (fe.array(),), TileTypeError,
                          "Binary arithmetic op `add` does not support bool, please cast bool "
                          "to int",
                          "b + b")
    assert "int" in err.hint


# ----- bitwise and float-only functions --------------------------------------------------------


def test_bitwise_and_on_floats(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (16,))
        x = t & t

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "Bitwise operations require integers or booleans. Use an explicit bitcast()",
                    "t & t")


def test_bitwise_int_tile_and_float_constant(fe):
    @ct.kernel
    def k(a):
        x = ct.bitwise_xor(ct.load(a, (0,), (16,)), 1.5)

    fe.expect_error(k, (fe.array(np.int32),), TileTypeError,
                    "Bitwise operations require integers or booleans",
                    "ct.bitwise_xor(ct.load(a, (0,), (16,)), 1.5)")


def test_bitwise_different_dtypes(fe):
    @ct.kernel
    def k(a):
        x = ct.zeros((4,), ct.int32) | ct.zeros((4,), ct.int16)

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "Bitwise operands must have same data type, got: int32 and int16",
                    "ct.zeros((4,), ct.int32) | ct.zeros((4,), ct.int16)")


def test_bitwise_tile_and_runtime_scalar_of_another_dtype(fe):
    @ct.kernel
    def k(a, s):
        x = ct.load(a, (0,), (16,)) ^ s  # a run-time int is an int32 scalar: no adapting

    fe.expect_error(k, (fe.array(np.int64), 5), TileTypeError,
                    "Bitwise operands must have same data type, got: int64 and int32",
                    "ct.load(a, (0,), (16,)) ^ s")


def test_bitwise_bool_and_int(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (16,))
        x = ct.bitwise_and(t > 0, t)

    fe.expect_error(k, (fe.array(np.uint32),), TileTypeError,
                    "Bitwise operands must have same data type, got: bool_ and uint32",
                    "ct.bitwise_and(t > 0, t)")


def test_shift_of_floats(fe):
    @ct.kernel
    def k(a):
        x = ct.load(a, (0,), (16,)) << 1

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "Bitwise shift requires an integer for left-hand side, got: float32",
                    "ct.load(a, (0,), (16,)) << 1")


def test_shift_by_float_tile(fe):
    @ct.kernel
    def k(a, b):
        x = ct.bitwise_rshift(ct.load(a, (0,), (16,)), ct.load(b, (0,), (16,)))

    fe.expect_error(k, (fe.array(np.int8), fe.array(np.float64)), TileTypeError,
                    "Bitwise shift requires an integer for right-hand side, got: float64",
                    "ct.bitwise_rshift(ct.load(a, (0,), (16,)), ct.load(b, (0,), (16,)))")


def test_shift_of_unsigned_by_runtime_int(fe):
    @ct.kernel
    def k(a, s):
        x = ct.load(a, (0,), (16,)) << s

    fe.expect_error(k, (fe.array(np.uint32), 3), TileTypeError,
                    "Implicit promotion of uint32 and int32 is not supported",
                    "ct.load(a, (0,), (16,)) << s")


def test_invert_float(fe):
    @ct.kernel
    def k(a):
        x = ~ct.load(a, (0,), (16,))

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "~ requires an integer or bool operand, got float32",
                    "~ct.load(a, (0,), (16,))")


def test_invert_bool_constant(fe):
    @ct.kernel
    def k(a):
        flag = True  # a name, not the literal: Python 3.12 warns on `~True` when it compiles
        x = ~flag

    err = fe.expect_error(k, (fe.array(),), TileTypeError, "~ of a bool constant", "~flag")
    assert "not" in err.hint


@pytest.mark.parametrize("fn", ["floor", "ceil", "isnan"])
def test_float_only_function_on_ints(fe, fn):
    @ct.kernel
    def k_floor(a):
        x = ct.floor(ct.load(a, (0,), (16,)))

    @ct.kernel
    def k_ceil(a):
        x = ct.ceil(ct.load(a, (0,), (16,)))

    @ct.kernel
    def k_isnan(a):
        x = ct.isnan(ct.load(a, (0,), (16,)))

    kernel = {"floor": k_floor, "ceil": k_ceil, "isnan": k_isnan}[fn]
    fe.expect_error(kernel, (fe.array(np.int32),), TileTypeError,
                    f"{fn} requires a float operand, got int32",
                    f"ct.{fn}(ct.load(a, (0,), (16,)))")


# ----- rounding_mode and flush_to_zero ---------------------------------------------------------


def test_rounding_mode_on_ints(fe):
    @ct.kernel
    def k(a):
        x = ct.add(ct.load(a, (0,), (16,)), 1, rounding_mode=ct.RoundingMode.RZ)

    fe.expect_error(k, (fe.array(np.int32),), TileTypeError,
                    "Rounding mode can only be used for unrestricted float types, but got int32",
                    "ct.add(ct.load(a, (0,), (16,)), 1, rounding_mode=ct.RoundingMode.RZ)")


def test_rounding_mode_checked_after_promotion(fe):
    @ct.kernel
    def k(a):  # int16 / int16 divides in float32, where APPROX is allowed
        t = ct.load(a, (0,), (16,))
        x = ct.truediv(t, t, rounding_mode=ct.RoundingMode.APPROX)
        y = ct.sqrt(t, flush_to_zero=True)

    fe.compile(k, fe.array(np.int16))


def test_rounding_mode_not_supported_by_op(fe):
    @ct.kernel
    def k(a):
        x = ct.mul(ct.load(a, (0,), (16,)), 2.0, rounding_mode=ct.RoundingMode.APPROX)

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "Rounding mode approx is not supported for mul",
                    "ct.mul(ct.load(a, (0,), (16,)), 2.0, rounding_mode=ct.RoundingMode.APPROX)")


def test_unsupported_rounding_mode_wins_over_dtype(fe):
    @ct.kernel
    def k(a):  # cuTile checks the mode before the dtype
        x = ct.sub(ct.load(a, (0,), (16,)), 1, rounding_mode=ct.RoundingMode.RZI)

    fe.expect_error(k, (fe.array(np.int8),), TileTypeError,
                    "Rounding mode nearest_int_to_zero is not supported for sub",
                    "ct.sub(ct.load(a, (0,), (16,)), 1, rounding_mode=ct.RoundingMode.RZI)")


def test_directed_rounding_mode_on_ints_after_promotion(fe):
    @ct.kernel
    def k(a):  # int32 * int32 stays int32: no rounding to direct
        t = ct.load(a, (0,), (16,))
        x = ct.mul(t, t, rounding_mode=ct.RoundingMode.RM)

    fe.expect_error(k, (fe.array(np.int32),), TileTypeError,
                    "Rounding mode can only be used for unrestricted float types, but got int32",
                    "ct.mul(t, t, rounding_mode=ct.RoundingMode.RM)")


def test_directed_rounding_modes_compile(fe):
    @ct.kernel
    def k(a):  # int16 / int16 divides in float32, where RZ applies; sqrt of int32 too
        t = ct.load(a, (0,), (16,))
        x = ct.truediv(t, t, rounding_mode=ct.RoundingMode.RZ)
        y = ct.sqrt(t, rounding_mode=ct.RoundingMode.RP)
        z = ct.sub(x, y, rounding_mode=ct.RoundingMode.RM)

    fe.compile(k, fe.array(np.int16))


def test_rounding_mode_not_an_enum(fe):
    @ct.kernel
    def k(a):
        x = ct.sqrt(ct.load(a, (0,), (16,)), rounding_mode="rz")

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "Rounding mode 'rz' is not supported for sqrt",
                    'ct.sqrt(ct.load(a, (0,), (16,)), rounding_mode="rz")')


def test_approx_needs_float32(fe):
    @ct.kernel
    def k(a):
        x = ct.exp(ct.load(a, (0,), (16,)), rounding_mode=ct.RoundingMode.APPROX)

    fe.expect_error(k, (fe.array(np.float16),), TileTypeError,
                    "Rounding mode approx can only be used for float32 type, but got float16",
                    "ct.exp(ct.load(a, (0,), (16,)), rounding_mode=ct.RoundingMode.APPROX)")


def test_full_on_sqrt_not_supported(fe):
    @ct.kernel
    def k(a):
        x = ct.sqrt(ct.load(a, (0,), (16,)), rounding_mode=ct.RoundingMode.FULL)

    fe.expect_error(k, (fe.array(),), TileTypeError, "Rounding mode full is not supported for sqrt",
                    "ct.sqrt(ct.load(a, (0,), (16,)), rounding_mode=ct.RoundingMode.FULL)")


def test_flush_to_zero_needs_float32(fe):
    @ct.kernel
    def k(a):
        x = ct.sub(ct.load(a, (0,), (16,)), 1.0, flush_to_zero=True)

    fe.expect_error(k, (fe.array(np.float16),), TileTypeError,
                    "Flush to zero can only be used for float32 type, but got float16",
                    "ct.sub(ct.load(a, (0,), (16,)), 1.0, flush_to_zero=True)")


def test_flush_to_zero_on_exp2_of_bfloat16(fe):
    @ct.kernel
    def k(a):
        x = ct.exp2(ct.load(a, (0,), (16,)), flush_to_zero=True)

    fe.expect_error(k, (fe.array("bfloat16"),), TileTypeError,
                    "Flush to zero can only be used for float32 type, but got bfloat16",
                    "ct.exp2(ct.load(a, (0,), (16,)), flush_to_zero=True)")


def test_flush_to_zero_not_a_parameter(fe):
    @ct.kernel
    def k(a):
        x = ct.exp(ct.load(a, (0,), (16,)), flush_to_zero=True)

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "exp(): got an unexpected keyword argument 'flush_to_zero'",
                    "ct.exp(ct.load(a, (0,), (16,)), flush_to_zero=True)")


def test_astype_rounding_mode_to_int(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (16,))
        x = t.astype(ct.int32, rounding_mode=ct.RoundingMode.RZ)

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "rounding_mode is only valid for float to float conversions",
                    "t.astype(ct.int32, rounding_mode=ct.RoundingMode.RZ)")


def test_astype_rounding_mode_from_int(fe):
    @ct.kernel
    def k(a):
        x = ct.astype(ct.load(a, (0,), (16,)), ct.float32, rounding_mode=ct.RoundingMode.RN)

    fe.expect_error(k, (fe.array(np.int32),), TileTypeError,
                    "rounding_mode is only valid for float to float conversions",
                    "ct.astype(ct.load(a, (0,), (16,)), ct.float32, "
                    "rounding_mode=ct.RoundingMode.RN)")


@pytest.mark.parametrize(("src", "dst", "mode", "supported"), [
    ("float32", "float16", "RM", "(RN, RZ)"),  # float16 takes RM/RP/RA only from narrower ranges
    ("float64", "float32", "RA", "(RN, RZ, RM, RP)"),
    ("float32", "bfloat16", "RP", "(RN, RZ)"),
    ("float16", "float8_e4m3fn", "RZ", "(RN)"),
    ("float32", "tfloat32", "RM", "(RN, RZ, RA)"),
    ("float32", "float64", "APPROX", "(RN, RZ, RM, RP, RA)"),
])
def test_astype_rounding_mode_not_in_cutiles_table(fe, src, dst, mode, supported):
    @ct.kernel
    def k(a, D: ct.Constant, M: ct.Constant):
        x = ct.load(a, (0,), (16,)).astype(D, rounding_mode=M)

    fe.expect_error(k, (fe.array(np.dtype(src)), getattr(ct, dst), getattr(ct.RoundingMode, mode)),
                    TileTypeError,
                    f"rounding_mode=RoundingMode.{mode} is not supported for conversion from "
                    f"tilelang.{src} to tilelang.{dst}, supported rounding modes for this "
                    f"conversion are {supported}",
                    "ct.load(a, (0,), (16,)).astype(D, rounding_mode=M)")


def test_astype_rounding_mode_not_an_enum(fe):
    @ct.kernel
    def k(a):
        x = ct.load(a, (0,), (16,)).astype(ct.float16, rounding_mode="rz")

    fe.expect_error(k, (fe.array(),), TileTypeError, "rounding_mode must be a RoundingMode",
                    'ct.load(a, (0,), (16,)).astype(ct.float16, rounding_mode="rz")')


# ----- shapes ----------------------------------------------------------------------------------


def test_broadcast_shape_mismatch(fe):
    @ct.kernel
    def k(a):
        x = ct.load(a, (0,), (16,)) + ct.load(a, (0,), (8,))

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "shapes (16,) and (8,) do not broadcast",
                    "ct.load(a, (0,), (16,)) + ct.load(a, (0,), (8,))")


def test_broadcast_to_mismatch(fe):
    @ct.kernel
    def k(a):
        x = ct.broadcast_to(ct.zeros((4, 2), ct.float32), (4, 8))

    fe.expect_error(k, (fe.array(),), TileTypeError, "do not broadcast",
                    "ct.broadcast_to(ct.zeros((4, 2), ct.float32), (4, 8))")


def test_tile_shape_from_runtime_scalar(fe):
    @ct.kernel
    def k(a, n):
        x = ct.load(a, (0,), (n,))

    err = fe.expect_error(k, (fe.array(), 16), TileTypeError,
                          'Invalid argument "shape" of load(): Expected a constant integer '
                          "tuple, but given value is not constant",
                          "ct.load(a, (0,), (n,))")
    assert "Constant[int]" in err.hint


def test_full_shape_from_runtime_scalar(fe):
    @ct.kernel
    def k(a, n):
        x = ct.full(n, 0.0, ct.float32)

    fe.expect_error(k, (fe.array(), 16), TileTypeError,
                    'Invalid argument "shape" of full(): Expected a constant integer tuple',
                    "ct.full(n, 0.0, ct.float32)")


def test_zeros_shape_chosen_by_a_run_time_branch(fe):
    @ct.kernel
    def k(a):
        if ct.bid(0) == 1:
            m = 1
        else:
            m = 2
        ct.store(a, (0,), ct.zeros((m,), ct.float32))

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    'Invalid argument "shape" of zeros(): Expected a constant integer tuple',
                    "ct.zeros((m,), ct.float32)")


@pytest.mark.parametrize("dim", [0, -4])
def test_non_positive_tile_shape(fe, dim):
    @ct.kernel
    def k(a, D: ct.Constant[int]):
        x = ct.zeros((D, 4), ct.float32)

    fe.expect_error(k, (fe.array(), dim), TileTypeError,
                    f'Invalid argument "shape" of zeros(): Dimension #0 of shape ({dim}, 4) is '
                    "not positive",
                    "ct.zeros((D, 4), ct.float32)")


def test_reshape_size_mismatch(fe):
    @ct.kernel
    def k(a):
        x = ct.reshape(ct.zeros((4, 4), ct.int32), (8, 4))

    fe.expect_error(k, (fe.array(),), TileValueError,
                    "cannot reshape a tile of shape (4, 4) into (8, 4)",
                    "ct.reshape(ct.zeros((4, 4), ct.int32), (8, 4))")


def test_expand_dims_axis_out_of_range(fe):
    @ct.kernel
    def k(a):
        x = ct.expand_dims(ct.zeros((4,), ct.int32), 2)

    fe.expect_error(k, (fe.array(),), TileValueError, "axis 2 is out of range for 2 dimensions",
                    "ct.expand_dims(ct.zeros((4,), ct.int32), 2)")


def test_item_of_a_larger_tile(fe):
    @ct.kernel
    def k(a):
        x = ct.full((2,), 3, ct.int32).item()

    err = fe.expect_error(k, (fe.array(),), TileTypeError, "Cannot reshape (2,) to ()",
                          "ct.full((2,), 3, ct.int32).item()")
    assert "one element" in err.hint


def test_index_tile_with_integer(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (16,))
        x = t[3]

    err = fe.expect_error(k, (fe.array(),), TileTypeError,
                          "Directly indexing a tile is not supported; use `extract()` or `item()`",
                          "t[3]")
    assert "reshape" in err.hint


def test_index_tile_with_a_lone_slice(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (16,))
        x = t[:]  # only tuples of None, : and ... (or a lone None) add dimensions

    fe.expect_error(k, (fe.array(),), TileTypeError, "Directly indexing a tile is not supported",
                    "t[:]")


def test_index_tile_with_an_integer_in_a_tuple(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0, 0), (4, 4))
        x = t[0, None]

    fe.expect_error(k, (fe.array(shape=(8, 8)),), TileTypeError,
                    "Expected `None|np.newaxis` or `ellipsis` or full slice (`:`), but got 0. "
                    "Hint: Directly indexing a tile is not supported", "t[0, None]")


def test_index_tile_with_partial_slice(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (16,))
        x = t[0:8]

    fe.expect_error(k, (fe.array(),), TileTypeError, "Directly indexing a tile is not supported",
                    "t[0:8]")


def test_index_array(fe):
    @ct.kernel
    def k(a):
        x = a[0]

    err = fe.expect_error(k, (fe.array(),), TileTypeError, "Arrays are not directly subscriptable",
                          "a[0]")
    assert "tilelang.load" in err.hint


# ----- load and store --------------------------------------------------------------------------


def test_load_wrong_number_of_indices(fe):
    @ct.kernel
    def k(a):
        x = ct.load(a, (0,), (16, 16))

    fe.expect_error(k, (fe.array(shape=(32, 32)),), TileTypeError,
                    "Index size 1 does not match the array rank 2",
                    "ct.load(a, (0,), (16, 16))")


def test_load_wrong_shape_rank(fe):
    @ct.kernel
    def k(a):
        x = ct.load(a, (0, 0), (16,))

    fe.expect_error(k, (fe.array(shape=(32, 32)),), TileTypeError,
                    'Invalid argument "shape" of load(): Expected shape length to be 2, got 1',
                    "ct.load(a, (0, 0), (16,))")


def test_load_float_index(fe):
    @ct.kernel
    def k(a):
        x = ct.load(a, (0.5,), (16,))

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "each tile index must be an integer scalar, got constant 0.5",
                    "ct.load(a, (0.5,), (16,))")


def test_load_bad_order(fe):
    @ct.kernel
    def k(a):
        x = ct.load(a, (0, 0), (4, 4), order=(0, 0))

    fe.expect_error(k, (fe.array(shape=(8, 8)),), TileTypeError,
                    "Axis order must be a permutation, but axis 0 is used at least twice",
                    "ct.load(a, (0, 0), (4, 4), order=(0, 0))")


def test_load_order_of_the_wrong_length(fe):
    @ct.kernel
    def k(a):
        x = ct.load(a, (0, 0), (4, 4), order=(1, 0, 2))

    fe.expect_error(k, (fe.array(shape=(8, 8)),), TileTypeError,
                    "Expected tuple of length 2, got 3",
                    "ct.load(a, (0, 0), (4, 4), order=(1, 0, 2))")


def test_store_order_string(fe):
    @ct.kernel
    def k(a):
        ct.store(a, (0, 0), ct.zeros((4, 4), ct.float32), order="K")

    fe.expect_error(k, (fe.array(shape=(8, 8)),), TileTypeError, "Expected 'C' or 'F', got 'K'",
                    'ct.store(a, (0, 0), ct.zeros((4, 4), ct.float32), order="K")')


def test_load_bad_padding_mode(fe):
    @ct.kernel
    def k(a):
        x = ct.load(a, (0,), (16,), padding_mode=0)

    fe.expect_error(k, (fe.array(),), TileTypeError, "padding_mode must be a tilelang.PaddingMode",
                    "ct.load(a, (0,), (16,), padding_mode=0)")


def test_load_from_tile(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (16,))
        x = ct.load(t, (0,), (4,))

    fe.expect_error(k, (fe.array(),), TileTypeError, "load() expects an array",
                    "ct.load(t, (0,), (4,))")


def test_store_float32_into_float16(fe):
    @ct.kernel
    def k(a, b):
        ct.store(b, (0,), ct.load(a, (0,), (16,)))

    err = fe.expect_error(k, (fe.array(), fe.array(np.float16)), TileTypeError,
                          "cannot implicitly cast a float32 tile to the float16 array",
                          "ct.store(b, (0,), ct.load(a, (0,), (16,)))")
    assert ".astype(tilelang.float16)" in err.hint


def test_store_float_into_int_array(fe):
    @ct.kernel
    def k(a, b):
        ct.store(b, (0,), ct.load(a, (0,), (16,)))

    fe.expect_error(k, (fe.array(), fe.array(np.int32)), TileTypeError,
                    "cannot implicitly cast a float32 tile to the int32 array",
                    "ct.store(b, (0,), ct.load(a, (0,), (16,)))")


def test_store_float_constant_into_int_array(fe):
    @ct.kernel
    def k(a):
        ct.store(a, (0,), 2.5)

    fe.expect_error(k, (fe.array(np.int32),), TileTypeError, "cannot store 2.5 into a int32 array",
                    "ct.store(a, (0,), 2.5)")


def test_store_wrong_rank(fe):
    @ct.kernel
    def k(a):
        ct.store(a, (0, 0), ct.zeros((16,), ct.float32))

    err = fe.expect_error(k, (fe.array(shape=(16, 16)),), TileValueError,
                          "cannot store a tile of shape (16,) into a 2-d array",
                          "ct.store(a, (0, 0), ct.zeros((16,), ct.float32))")
    assert "scalar" in err.hint


# ----- attributes and dtypes -------------------------------------------------------------------


def test_unknown_tile_attribute(fe):
    @ct.kernel
    def k(a):
        x = ct.load(a, (0,), (16,)).size

    fe.expect_error(k, (fe.array(),), TileTypeError, "a tile has no attribute `size`",
                    "ct.load(a, (0,), (16,)).size")


def test_bad_dtype(fe):
    @ct.kernel
    def k(a):
        x = ct.zeros((4,), "float33")

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    'Invalid argument "dtype" of zeros(): Expected a dtype constant such as '
                    "tilelang.float32, got 'float33'",
                    'ct.zeros((4,), "float33")')


def test_arange_of_a_run_time_size(fe):
    @ct.kernel
    def k(a):
        x = ct.arange(ct.bid(0), dtype=ct.int32)

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "Expected an integer constant, but given value is not constant",
                    "ct.arange(ct.bid(0), dtype=ct.int32)")


def test_arange_of_a_float_size(fe):
    @ct.kernel
    def k(a):
        x = ct.arange(4.0, dtype=ct.int32)

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "Expected an integer constant, but given value has type constant 4.0",
                    "ct.arange(4.0, dtype=ct.int32)")


@pytest.mark.parametrize("size", [3, 5, 12, 0])
def test_arange_size_not_a_power_of_two(fe, size):
    @ct.kernel
    def k(a, N: ct.Constant[int]):
        x = ct.arange(N, dtype=ct.int32, start=0, step=2)

    fe.expect_error(k, (fe.array(), size), TileTypeError,
                    f"Result tile shape must be power of 2, got {size}",
                    "ct.arange(N, dtype=ct.int32, start=0, step=2)")


def test_divmod_of_a_float_tile(fe):
    @ct.kernel
    def k(a):
        divmod(ct.load(a, (0,), (16,)), 2)

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "divmod() is not implemented for floating point values",
                    "divmod(ct.load(a, (0,), (16,)), 2)")


def test_divmod_promoted_to_float(fe):
    @ct.kernel
    def k(a):
        ct.divmod(ct.load(a, (0,), (16,)), 2.5)  # int32 with a float constant: float32

    fe.expect_error(k, (fe.array(np.int32),), TileTypeError,
                    "divmod() is not implemented for floating point values",
                    "ct.divmod(ct.load(a, (0,), (16,)), 2.5)")


def test_divmod_of_bools(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (16,))
        divmod(t, True)

    fe.expect_error(k, (fe.array(np.bool_),), TileTypeError,
                    "divmod() operation does not support bool", "divmod(t, True)")


def test_arange_step_out_of_range(fe):
    @ct.kernel
    def k(a):
        x = ct.arange(16, dtype=ct.uint8, step=-1)

    fe.expect_error(k, (fe.array(),), TileValueError,
                    "Integer constant -1 is out of range of uint8",
                    "ct.arange(16, dtype=ct.uint8, step=-1)")


def test_bid_axis_out_of_range(fe):
    @ct.kernel
    def k(a):
        x = ct.bid(3)

    fe.expect_error(k, (fe.array(),), TileValueError, "axis must be 0, 1 or 2, got 3", "ct.bid(3)")


def test_bid_axis_not_constant(fe):
    @ct.kernel
    def k(a, n):
        x = ct.num_blocks(n)

    fe.expect_error(k, (fe.array(), 1), TileTypeError,
                    "axis must be a compile-time constant int, got int32 scalar",
                    "ct.num_blocks(n)")


def test_cdiv_of_floats(fe):
    @ct.kernel
    def k(a):
        x = ct.cdiv(ct.load(a, (0,), (16,)), 4)

    fe.expect_error(k, (fe.array(),), TileTypeError, "cdiv() requires integer operands",
                    "ct.cdiv(ct.load(a, (0,), (16,)), 4)")


def test_arrays_of_two_types_chosen_by_a_run_time_if(fe):
    @ct.kernel
    def k(a, b, c):
        if c:
            alias = a
        else:
            alias = b
        ct.store(alias, (0,), ct.zeros((4,), ct.float32))

    then_line, else_line = fe.span(k.fn, "alias = a")[0], fe.span(k.fn, "alias = b")[0]
    err = fe.expect_error(k, (fe.array(), fe.array(np.int32), 1), TileTypeError,
                          f"Type of `alias` depends on path taken: 1-d int32 array (line "
                          f"{else_line}) vs. 1-d float32 array (line {then_line})",
                          ("ct.store(alias, (0,), ct.zeros((4,), ct.float32))", "alias"))
    assert "at the `if` on line" in err.message


def test_astile_of_ragged_tuples(fe):
    @ct.kernel
    def k(a):
        t = ct.astile(((1, 2), (3, 4), (5, 6), (7,)), dtype=ct.int32)

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "Tuple has non-uniform inner shapes at value",
                    "ct.astile(((1, 2), (3, 4), (5, 6), (7,)), dtype=ct.int32)")


@ct.kernel
def astile_empty(a):
    t = ct.astile((), dtype=ct.int32)


@ct.kernel
def astile_length_three(a):
    t = ct.astile(((1, 2), (3, 4, 5)), dtype=ct.int32)


@ct.kernel
def astile_array_leaf(a):
    t = ct.astile(((1,), (a,)), dtype=ct.int32)


@ct.kernel
def astile_mixed_depth(a):
    t = ct.astile((1, (2, 3)), dtype=ct.int32)


@ct.kernel
def astile_string_leaf(a):
    t = ct.astile((1, "x"), dtype=ct.int32)


@ct.kernel
def astile_of_a_tile(a):
    t = ct.astile(ct.full((4,), 1, ct.int32), dtype=ct.int32)


@pytest.mark.parametrize(("kernel", "message", "at"), [
    (astile_empty, "Tuple length 0 at value is not a power of 2", "ct.astile((), dtype=ct.int32)"),
    (astile_length_three, "Tuple length 3 at value[1] is not a power of 2",
     "ct.astile(((1, 2), (3, 4, 5)), dtype=ct.int32)"),
    (astile_array_leaf, "Expected scalar elements at value[1][0]; got 1-d float32 array",
     "ct.astile(((1,), (a,)), dtype=ct.int32)"),
    (astile_mixed_depth, "Tuple has non-uniform inner shapes at value",
     "ct.astile((1, (2, 3)), dtype=ct.int32)"),
    (astile_string_leaf, "Expected scalar elements at value[1]; got str",
     'ct.astile((1, "x"), dtype=ct.int32)'),
    (astile_of_a_tile,
     "Expected a scalar or (possibly nested) tuple of scalars; got int32 tile of shape (4,)",
     "ct.astile(ct.full((4,), 1, ct.int32), dtype=ct.int32)"),
])
def test_astile_shape_errors(fe, kernel, message, at):
    fe.expect_error(kernel, (fe.array(),), TileTypeError, message, at)


# ----- dtypes called as constructors -----------------------------------------------------------


def test_dtype_called_with_a_non_number(fe):
    @ct.kernel
    def k(a):
        x = ct.float16(ct.float16)

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "Invalid argument type for float16", "ct.float16(ct.float16)")


def test_negative_constant_of_an_unsigned_float(fe):
    @ct.kernel
    def k(a):
        x = ct.float8_e8m0fnu(-0.2)  # said before the dtype itself is refused (sm_100)

    fe.expect_error(k, (fe.array(),), TileValueError,
                    "Negative values cannot be represented in an unsigned float format",
                    "ct.float8_e8m0fnu(-0.2)")


def test_torch_dtype_called_in_a_kernel(fe):
    torch = pytest.importorskip("torch")

    @ct.kernel
    def k(a):
        ct.store(a, (0,), ct.full((16,), torch.float16(), torch.float16) + torch.float16(2))

    ir = fe.tile_ir(k, fe.array(np.float16))
    assert "value = 2.000000e+00 : f16" in ir and "value = 0.000000e+00 : f16" in ir
