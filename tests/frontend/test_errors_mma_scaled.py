"""Front-end errors of mma_scaled, with cuTile's messages (its test_mma_scaled.py cases), and
the tile IR of a correct one: scaled operands in bfloat16 and one `tile.mma`.

Same checks as the other error files: class, message, exact span, rendering, clean traceback
and a healthy compiler afterwards.
"""
# ruff: noqa: F841  (kernels written to exercise the compiler)

from __future__ import annotations

import pytest

import tilelang as ct
from tilelang import TileTypeError

E4, E5, E8 = ct.float8_e4m3fn, ct.float8_e5m2, ct.float8_e8m0fnu


def k_mixed_inputs(a):
    x, y = ct.zeros((16, 64), ct.float8_e4m3fn), ct.zeros((64, 16), ct.float8_e5m2)
    s, t = ct.zeros((16, 2), ct.float8_e8m0fnu), ct.zeros((2, 16), ct.float8_e8m0fnu)
    c = ct.mma_scaled(x, s, y, t, ct.zeros((16, 16), ct.float32))


def k_mixed_scales(a):
    x, y = ct.zeros((16, 64), ct.float8_e4m3fn), ct.zeros((64, 16), ct.float8_e4m3fn)
    s, t = ct.zeros((16, 2), ct.float8_e8m0fnu), ct.zeros((2, 16), ct.float8_e4m3fn)
    c = ct.mma_scaled(x, s, y, t, ct.zeros((16, 16), ct.float32))


def k_f16_inputs(a):
    x, y = ct.zeros((16, 64), ct.float16), ct.zeros((64, 16), ct.float16)
    s, t = ct.zeros((16, 2), ct.float8_e8m0fnu), ct.zeros((2, 16), ct.float8_e8m0fnu)
    c = ct.mma_scaled(x, s, y, t, ct.zeros((16, 16), ct.float32))


def k_bf16_scales(a):
    x, y = ct.zeros((16, 64), ct.float8_e4m3fn), ct.zeros((64, 16), ct.float8_e4m3fn)
    s, t = ct.zeros((16, 2), ct.bfloat16), ct.zeros((2, 16), ct.bfloat16)
    c = ct.mma_scaled(x, s, y, t, ct.zeros((16, 16), ct.float32))


def k_f16_acc(a):
    x, y = ct.zeros((16, 64), ct.float8_e4m3fn), ct.zeros((64, 16), ct.float8_e4m3fn)
    s, t = ct.zeros((16, 2), ct.float8_e8m0fnu), ct.zeros((2, 16), ct.float8_e8m0fnu)
    c = ct.mma_scaled(x, s, y, t, ct.zeros((16, 16), ct.float16))


def k_x_scale_rows(a):
    x, y = ct.zeros((16, 64), ct.float8_e4m3fn), ct.zeros((64, 16), ct.float8_e4m3fn)
    s, t = ct.zeros((8, 2), ct.float8_e8m0fnu), ct.zeros((2, 16), ct.float8_e8m0fnu)
    c = ct.mma_scaled(x, s, y, t, ct.zeros((16, 16), ct.float32))


def k_y_scale_columns(a):
    x, y = ct.zeros((16, 64), ct.float8_e4m3fn), ct.zeros((64, 16), ct.float8_e4m3fn)
    s, t = ct.zeros((16, 2), ct.float8_e8m0fnu), ct.zeros((2, 8), ct.float8_e8m0fnu)
    c = ct.mma_scaled(x, s, y, t, ct.zeros((16, 16), ct.float32))


def k_k_not_a_multiple(a):
    x, y = ct.zeros((16, 16), ct.float8_e4m3fn), ct.zeros((16, 16), ct.float8_e4m3fn)
    s, t = ct.zeros((16, 32), ct.float8_e8m0fnu), ct.zeros((32, 16), ct.float8_e8m0fnu)
    c = ct.mma_scaled(x, s, y, t, ct.zeros((16, 16), ct.float32))


def k_block_of_8(a):
    x, y = ct.zeros((16, 64), ct.float8_e4m3fn), ct.zeros((64, 16), ct.float8_e4m3fn)
    s, t = ct.zeros((16, 8), ct.float8_e8m0fnu), ct.zeros((8, 16), ct.float8_e8m0fnu)
    c = ct.mma_scaled(x, s, y, t, ct.zeros((16, 16), ct.float32))


def k_y_block_of_16(a):
    x, y = ct.zeros((16, 64), ct.float8_e4m3fn), ct.zeros((64, 16), ct.float8_e4m3fn)
    s, t = ct.zeros((16, 2), ct.float8_e8m0fnu), ct.zeros((4, 16), ct.float8_e8m0fnu)
    c = ct.mma_scaled(x, s, y, t, ct.zeros((16, 16), ct.float32))


def k_1d_x(a):
    x, y = ct.ones((16 * 64,), ct.float8_e4m3fn), ct.ones((64, 16), ct.float8_e4m3fn)
    s, t = ct.ones((16, 2), ct.float8_e8m0fnu), ct.ones((2, 16), ct.float8_e8m0fnu)
    c = ct.mma_scaled(x, s, y, t, ct.zeros((16, 16), ct.float32))


def k_acc_shape(a):
    x, y = ct.zeros((16, 64), ct.float8_e4m3fn), ct.zeros((64, 8), ct.float8_e4m3fn)
    s, t = ct.zeros((16, 2), ct.float8_e8m0fnu), ct.zeros((2, 8), ct.float8_e8m0fnu)
    c = ct.mma_scaled(x, s, y, t, ct.zeros((16, 16), ct.float32))


def k_scale_batch(a):
    x, y = ct.zeros((2, 16, 64), ct.float8_e4m3fn), ct.zeros((64, 16), ct.float8_e4m3fn)
    s, t = ct.zeros((16, 2), ct.float8_e8m0fnu), ct.zeros((2, 16), ct.float8_e8m0fnu)
    c = ct.mma_scaled(x, s, y, t, ct.zeros((2, 16, 16), ct.float32))


def k_scalar_acc(a):
    x, y = ct.zeros((16, 64), ct.float8_e4m3fn), ct.zeros((64, 16), ct.float8_e4m3fn)
    s, t = ct.zeros((16, 2), ct.float8_e8m0fnu), ct.zeros((2, 16), ct.float8_e8m0fnu)
    c = ct.mma_scaled(x, s, y, t, 0.0)


CALL = "ct.mma_scaled(x, s, y, t, ct.zeros((16, 16), ct.float32))"
CASES = [
    (k_mixed_inputs, "x and y must have the same dtype, got float8_e4m3fn and float8_e5m2", CALL),
    (k_mixed_scales, "x_scale and y_scale must have the same dtype, got float8_e8m0fnu and "
     "float8_e4m3fn", CALL),
    (k_f16_inputs, "Unsupported input dtype float16 for mma_scaled, supported input dtypes are "
     "float8_e4m3fn, float8_e5m2", CALL),
    (k_bf16_scales, "Unsupported scale dtype bfloat16 for input dtype float8_e4m3fn, supported "
     "scale dtypes are float8_e8m0fnu", CALL),
    (k_f16_acc, "Unsupported acc dtype float16 for mma_scaled, expected float32",
     "ct.mma_scaled(x, s, y, t, ct.zeros((16, 16), ct.float16))"),
    (k_x_scale_rows, "x_scale shape (8, 2) is not compatible with x shape (16, 64). All "
     "dimensions except K axis 1 must match", CALL),
    (k_y_scale_columns, "y_scale shape (2, 8) is not compatible with y shape (64, 16). All "
     "dimensions except K axis 0 must match", CALL),
    (k_k_not_a_multiple, "x.shape[1] must be an exact multiple of x_scale.shape[1] with scaling "
     "block size B = K // K_s in {32}, got x.shape[1] = 16 and x_scale.shape[1] = 32", CALL),
    (k_block_of_8, "x.shape[1] must be an exact multiple of x_scale.shape[1] with scaling block "
     "size B = K // K_s in {32}, got x.shape[1] = 64 and x_scale.shape[1] = 8", CALL),
    (k_y_block_of_16, "y.shape[0] must be an exact multiple of y_scale.shape[0] with scaling "
     "block size B = K // K_s in {32}, got y.shape[0] = 64 and y_scale.shape[0] = 4", CALL),
    (k_1d_x, "Expect shape of `x` to be 2D or 3D, got (1024,)", CALL),
    (k_acc_shape, "Expect acc shape to be (16, 8), got (16, 16)", CALL),
    (k_scale_batch, "x_scale shape (16, 2) is not compatible with x shape (2, 16, 64)",
     "ct.mma_scaled(x, s, y, t, ct.zeros((2, 16, 16), ct.float32))"),
    (k_scalar_acc, "mma_scaled() expects a tile for `acc`, got constant 0.0",
     "ct.mma_scaled(x, s, y, t, 0.0)"),
]


@pytest.mark.parametrize(("fn", "match", "at"), CASES,
                         ids=[c[0].__name__.removeprefix("k_") for c in CASES])
def test_error(fe, fn, match, at):
    fe.expect_error(ct.kernel(fn), (fe.array(),), TileTypeError, match, at)


def test_scaled_operands_meet_in_one_bfloat16_mma(fe):
    @ct.kernel
    def k(a):
        x = ct.zeros((16, 64), ct.float8_e5m2)
        y = ct.zeros((2, 64, 8), ct.float8_e5m2)
        s = ct.zeros((16, 2), ct.float8_e8m0fnu)
        t = ct.zeros((2, 2, 8), ct.float8_e8m0fnu)
        c = ct.mma_scaled(x, s, y, t, ct.zeros((2, 16, 8), ct.float32))

    ir = fe.tile_ir(k, fe.array())
    assert fe.signatures(ir, "tile.mma") == [
        "(tensor<2x16x64xbf16>, tensor<2x64x8xbf16>, tensor<2x16x8xf32>) -> tensor<2x16x8xf32>"]
