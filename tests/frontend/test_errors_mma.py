"""Front-end errors of mma, matmul and `@`: one kernel each, with cuTile's messages where its
tests match them (dtype rules), and the tile IR they emit when they are right.

Same checks as the other error files: class, message, exact span, rendering, clean traceback
and a healthy compiler afterwards.
"""
# ruff: noqa: F841  (kernels written to exercise the compiler)

from __future__ import annotations

import pytest

import tilelang as ct
from tilelang import TileTypeError


def k_inner_mismatch(a):
    x, y = ct.zeros((4, 8), ct.float16), ct.zeros((16, 4), ct.float16)
    c = ct.mma(x, y, ct.zeros((4, 4), ct.float32))


def k_batch_mismatch(a):
    x = ct.zeros((2, 4, 8), ct.float32) @ ct.zeros((3, 8, 4), ct.float32)


def k_acc_shape(a):
    x, y = ct.zeros((4, 8), ct.float16), ct.zeros((8, 2), ct.float16)
    c = ct.mma(x, y, ct.zeros((4, 4), ct.float32))


def k_acc_shape_batched(a):
    x, y = ct.zeros((4, 8), ct.float16), ct.zeros((2, 8, 4), ct.float16)
    c = ct.mma(x, y, ct.zeros((4, 4), ct.float32))


def k_mixed_inputs(a):
    x, y = ct.zeros((4, 8), ct.float16), ct.zeros((8, 4), ct.bfloat16)
    c = ct.mma(x, y, ct.zeros((4, 4), ct.float32))


def k_fp8_times_fp16(a):
    x, y = ct.zeros((4, 8), ct.float8_e4m3fn), ct.zeros((8, 4), ct.float16)
    c = ct.mma(x, y, ct.zeros((4, 4), ct.float32))


def k_int16_inputs(a):
    x, y = ct.zeros((4, 8), ct.int16), ct.zeros((8, 4), ct.int16)
    c = ct.mma(x, y, ct.zeros((4, 4), ct.int32))


def k_bf16_with_f16_acc(a):
    x, y = ct.zeros((4, 8), ct.bfloat16), ct.zeros((8, 4), ct.bfloat16)
    c = ct.mma(x, y, ct.zeros((4, 4), ct.float16))


def k_int8_with_float_acc(a):
    x, y = ct.zeros((4, 8), ct.int8), ct.zeros((8, 4), ct.int8)
    c = ct.mma(x, y, ct.zeros((4, 4), ct.float32))


def k_fast_acc_not_fp8(a):
    x, y = ct.zeros((4, 8), ct.float16), ct.zeros((8, 4), ct.float16)
    c = ct.mma(x, y, ct.zeros((4, 4), ct.float16), use_fast_acc=True)


def k_fast_acc_not_constant(a):
    x, y = ct.zeros((4, 8), ct.float8_e5m2), ct.zeros((8, 4), ct.float8_e5m2)
    c = ct.mma(x, y, ct.zeros((4, 4), ct.float32), use_fast_acc=ct.bid(0) == 0)


def k_mma_vector(a):
    x, y = ct.zeros((8,), ct.float16), ct.zeros((8, 4), ct.float16)
    c = ct.mma(x, y, ct.zeros((4,), ct.float32))


def k_mma_4d(a):
    x, y = ct.zeros((2, 2, 4, 8), ct.float16), ct.zeros((8, 4), ct.float16)
    c = ct.mma(x, y, ct.zeros((2, 2, 4, 4), ct.float32))


def k_mma_scalar_acc(a):
    x, y = ct.zeros((4, 8), ct.float16), ct.zeros((8, 4), ct.float16)
    c = ct.mma(x, y, 0.0)


def k_matmul_promotion(a):
    x = ct.matmul(ct.zeros((4, 8), ct.float16), ct.zeros((8, 4), ct.bfloat16))


def k_matmul_fp8_fp16(a):
    x = ct.zeros((4, 8), ct.float8_e4m3fn) @ ct.zeros((8, 4), ct.float16)


def k_matmul_uint8_int8(a):
    x = ct.matmul(ct.zeros((4, 8), ct.uint8), ct.zeros((8, 4), ct.int8))


def k_matmul_int32(a):
    x = ct.matmul(ct.zeros((4, 8), ct.int32), ct.zeros((8, 4), ct.int32))


def k_matmul_4d(a):
    x = ct.matmul(ct.zeros((2, 2, 4, 8), ct.float32), ct.zeros((8, 4), ct.float32))


def k_matmul_vectors_mismatch(a):
    x = ct.zeros((8,), ct.float32) @ ct.zeros((4,), ct.float32)


def k_matmul_number(a):
    x = ct.zeros((4, 8), ct.float32) @ 2.0


def k_matmul_assign_mismatch(a):
    x = ct.zeros((4, 8), ct.float32)
    x @= x


CASES = [
    (k_inner_mismatch, "Incompatible shapes for matrix mul on tiles: (4, 8), (16, 4): x has 8 "
     "columns but y has 16 rows", "ct.mma(x, y, ct.zeros((4, 4), ct.float32))"),
    (k_batch_mismatch, "Incompatible shapes for matrix mul on tiles: (2, 4, 8), (3, 8, 4): the "
     "batch dimensions 2 and 3 differ",
     "ct.zeros((2, 4, 8), ct.float32) @ ct.zeros((3, 8, 4), ct.float32)"),
    (k_acc_shape, "Expect acc shape to be (4, 2), got (4, 4)",
     "ct.mma(x, y, ct.zeros((4, 4), ct.float32))"),
    (k_acc_shape_batched, "Expect acc shape to be (2, 4, 4), got (4, 4)",
     "ct.mma(x, y, ct.zeros((4, 4), ct.float32))"),
    (k_mixed_inputs, "x and y must have the same dtype unless they are int8/uint8, got float16 "
     "and bfloat16", "ct.mma(x, y, ct.zeros((4, 4), ct.float32))"),
    (k_fp8_times_fp16, "x and y must have the same dtype unless they are int8/uint8, got "
     "float8_e4m3fn and float16", "ct.mma(x, y, ct.zeros((4, 4), ct.float32))"),
    (k_int16_inputs, "Unsupported input dtype int16: the supported dtypes are float8_e4m3fn, "
     "float8_e5m2, float16, bfloat16, float32, tfloat32, float64, int8, uint8",
     "ct.mma(x, y, ct.zeros((4, 4), ct.int32))"),
    (k_bf16_with_f16_acc, "Unsupported acc dtype float16 for bfloat16 inputs: the accumulator "
     "must be float32", "ct.mma(x, y, ct.zeros((4, 4), ct.float16))"),
    (k_int8_with_float_acc, "Unsupported acc dtype float32 for int8 inputs: the accumulator "
     "must be int32", "ct.mma(x, y, ct.zeros((4, 4), ct.float32))"),
    (k_fast_acc_not_fp8, "use_fast_acc is only supported for fp8 inputs (float8_e4m3fn, "
     "float8_e5m2), got float16",
     "ct.mma(x, y, ct.zeros((4, 4), ct.float16), use_fast_acc=True)"),
    (k_fast_acc_not_constant, "use_fast_acc must be a constant bool, got bool_ scalar",
     "ct.mma(x, y, ct.zeros((4, 4), ct.float32), use_fast_acc=ct.bid(0) == 0)"),
    (k_mma_vector, "mma() needs 2-d or 3-d tiles, got `x` of shape (8,)",
     "ct.mma(x, y, ct.zeros((4,), ct.float32))"),
    (k_mma_4d, "mma() needs 2-d or 3-d tiles, got `x` of shape (2, 2, 4, 8)",
     "ct.mma(x, y, ct.zeros((2, 2, 4, 4), ct.float32))"),
    (k_mma_scalar_acc, "mma() expects a tile for `acc`, got constant 0.0", "ct.mma(x, y, 0.0)"),
    (k_matmul_promotion, "Implicit promotion of float16 and bfloat16 is not supported",
     "ct.matmul(ct.zeros((4, 8), ct.float16), ct.zeros((8, 4), ct.bfloat16))"),
    (k_matmul_fp8_fp16, "Implicit promotion of float8_e4m3fn and float16 is not supported",
     "ct.zeros((4, 8), ct.float8_e4m3fn) @ ct.zeros((8, 4), ct.float16)"),
    (k_matmul_uint8_int8, "Implicit promotion of uint8 and int8 is not supported",
     "ct.matmul(ct.zeros((4, 8), ct.uint8), ct.zeros((8, 4), ct.int8))"),
    (k_matmul_int32, "Unsupported input dtype int32",
     "ct.matmul(ct.zeros((4, 8), ct.int32), ct.zeros((8, 4), ct.int32))"),
    (k_matmul_4d, "matmul() needs tiles of 1 to 3 dimensions, got `x` of shape (2, 2, 4, 8)",
     "ct.matmul(ct.zeros((2, 2, 4, 8), ct.float32), ct.zeros((8, 4), ct.float32))"),
    (k_matmul_vectors_mismatch, "Incompatible shapes for matrix mul on tiles: (8,), (4,): x has "
     "8 columns but y has 4 rows", "ct.zeros((8,), ct.float32) @ ct.zeros((4,), ct.float32)"),
    (k_matmul_number, "Unsupported operand types for @: float32 tile of shape (4, 8) and "
     "constant 2.0", "ct.zeros((4, 8), ct.float32) @ 2.0"),
    (k_matmul_assign_mismatch, "Incompatible shapes for matrix mul on tiles: (4, 8), (4, 8)",
     "x @= x"),
]


@pytest.mark.parametrize(("fn", "match", "at"), CASES,
                         ids=[c[0].__name__.removeprefix("k_") for c in CASES])
def test_error(fe, fn, match, at):
    fe.expect_error(ct.kernel(fn), (fe.array(),), TileTypeError, match, at)


# ----- the IR of correct products ----------------------------------------------------------------


def test_mma_is_one_op_on_broadcast_operands(fe):
    @ct.kernel
    def k(a):
        x = ct.full((4, 8), 1.0, ct.float16)
        y = ct.full((2, 8, 16), 1.0, ct.float16)
        acc = ct.mma(x, y, ct.zeros((2, 4, 16), ct.float32))

    ir = fe.tile_ir(k, fe.array())
    assert fe.signatures(ir, "tile.mma") == [
        "(tensor<2x4x8xf16>, tensor<2x8x16xf16>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>"]
    assert "use_fast_acc" not in ir


def test_mma_keeps_use_fast_acc_for_fp8(fe):
    @ct.kernel
    def k(a):
        x = ct.zeros((16, 32), ct.float8_e4m3fn)
        acc = ct.mma(x, ct.zeros((32, 16), ct.float8_e4m3fn), ct.zeros((16, 16), ct.float16),
                     use_fast_acc=True)

    ir = fe.tile_ir(k, fe.array())
    assert '"tile.mma"' in ir and "use_fast_acc = true" in ir
    assert fe.signatures(ir, "tile.mma") == ["(tensor<16x32xf8E4M3FN>, tensor<32x16xf8E4M3FN>, "
                                             "tensor<16x16xf16>) -> tensor<16x16xf16>"]


def test_mma_mixes_int8_and_uint8(fe):
    @ct.kernel
    def k(a):
        acc = ct.mma(ct.zeros((16, 32), ct.int8), ct.zeros((32, 8), ct.uint8),
                     ct.zeros((16, 8), ct.int32))

    sigs = fe.signatures(fe.tile_ir(k, fe.array()), "tile.mma")
    assert sigs == ["(tensor<16x32xi8>, tensor<32x8xui8>, tensor<16x8xi32>) -> tensor<16x8xi32>"]


@pytest.mark.parametrize(("x", "y", "mma", "result"), [
    (ct.float16, ct.float16, "(tensor<4x8xf16>, tensor<8x2xf16>, tensor<4x2xf32>)", "f16"),
    (ct.float16, ct.float32, "(tensor<4x8xf32>, tensor<8x2xf32>, tensor<4x2xf32>)", "f32"),
    (ct.int8, ct.int8, "(tensor<4x8xi8>, tensor<8x2xi8>, tensor<4x2xi32>)", "i8"),
    (ct.float64, ct.float64, "(tensor<4x8xf64>, tensor<8x2xf64>, tensor<4x2xf64>)", "f64"),
    (ct.float8_e5m2, ct.float8_e5m2,
     "(tensor<4x8xf8E5M2>, tensor<8x2xf8E5M2>, tensor<4x2xf32>)", "f8E5M2"),
])
def test_matmul_accumulates_wide_and_casts_to_the_promoted_dtype(fe, x, y, mma, result):
    @ct.kernel
    def k(a, X: ct.Constant[object], Y: ct.Constant[object]):
        c = ct.matmul(ct.zeros((4, 8), X), ct.zeros((8, 2), Y))
        ct.static_assert(c.dtype == X if X == Y else c.dtype == Y)

    ir = fe.tile_ir(k, fe.array(), x, y)
    (signature,) = fe.signatures(ir, "tile.mma")
    assert signature.startswith(mma)
    assert f"-> tensor<4x2x{result}>" in ir  # the product in the promoted dtype


def test_matmul_of_vectors_reshapes(fe):
    @ct.kernel
    def k(a):
        v = ct.zeros((8,), ct.float32)
        dot = v @ v
        ct.static_assert(dot.shape == ())
        row = v @ ct.zeros((8, 4), ct.float32)
        ct.static_assert(row.shape == (4,))
        batched = ct.zeros((3, 2, 8), ct.float32) @ v
        ct.static_assert(batched.shape == (3, 2))

    sigs = fe.signatures(fe.tile_ir(k, fe.array()), "tile.mma")
    assert sigs == [
        "(tensor<1x8xf32>, tensor<8x1xf32>, tensor<1x1xf32>) -> tensor<1x1xf32>",
        "(tensor<1x8xf32>, tensor<8x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>",
        "(tensor<3x2x8xf32>, tensor<3x8x1xf32>, tensor<3x2x1xf32>) -> tensor<3x2x1xf32>",
    ]


def test_matmul_inside_static_eval(fe):
    @ct.kernel
    def k(a):
        x = ct.zeros((4, 8), ct.float32)
        y = ct.zeros((8, 2), ct.float32)
        shape = ct.static_eval((x @ y).shape)
        ct.static_assert(shape == (4, 2))
        dtype = ct.static_eval(ct.matmul(x, y).dtype)
        ct.static_assert(dtype == ct.float32)

    assert '"tile.mma"' in fe.tile_ir(k, fe.array())
