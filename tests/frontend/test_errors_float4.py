"""Front-end errors of float4_e2m1fn tiles and of mma_scaled with fp4 operands (cuTile's rules
and messages: its test_mma_scaled.py and test_pack_unpack.py), and the tile IR of a correct fp4
product: codes unpacked from bytes, scaled operands in bfloat16, one `tile.mma`.
"""
# ruff: noqa: F841  (kernels written to exercise the compiler)

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct
from tilelang import TileArgumentError, TileTypeError
from tilelang.errors import TileValueError

CALL = "ct.mma_scaled(x, s, y, t, ct.zeros((16, 16), ct.float32))"


def k_e4m3_scales_block_32(a):
    x, y = ct.zeros((16, 64), ct.float4_e2m1fn), ct.zeros((64, 16), ct.float4_e2m1fn)
    s, t = ct.zeros((16, 2), ct.float8_e4m3fn), ct.zeros((2, 16), ct.float8_e4m3fn)
    c = ct.mma_scaled(x, s, y, t, ct.zeros((16, 16), ct.float32))


def k_e8m0_scales_block_8(a):
    x, y = ct.zeros((16, 64), ct.float4_e2m1fn), ct.zeros((64, 16), ct.float4_e2m1fn)
    s, t = ct.zeros((16, 8), ct.float8_e8m0fnu), ct.zeros((8, 16), ct.float8_e8m0fnu)
    c = ct.mma_scaled(x, s, y, t, ct.zeros((16, 16), ct.float32))


def k_fp4_and_fp8(a):
    x, y = ct.zeros((16, 64), ct.float4_e2m1fn), ct.zeros((64, 16), ct.float8_e4m3fn)
    s, t = ct.zeros((16, 2), ct.float8_e8m0fnu), ct.zeros((2, 16), ct.float8_e8m0fnu)
    c = ct.mma_scaled(x, s, y, t, ct.zeros((16, 16), ct.float32))


def k_e5m2_scales(a):
    x, y = ct.zeros((16, 64), ct.float4_e2m1fn), ct.zeros((64, 16), ct.float4_e2m1fn)
    s, t = ct.zeros((16, 4), ct.float8_e5m2), ct.zeros((4, 16), ct.float8_e5m2)
    c = ct.mma_scaled(x, s, y, t, ct.zeros((16, 16), ct.float32))


def k_fp8_with_e4m3_scales(a):
    x, y = ct.zeros((16, 64), ct.float8_e4m3fn), ct.zeros((64, 16), ct.float8_e4m3fn)
    s, t = ct.zeros((16, 4), ct.float8_e4m3fn), ct.zeros((4, 16), ct.float8_e4m3fn)
    c = ct.mma_scaled(x, s, y, t, ct.zeros((16, 16), ct.float32))


def k_pack_odd(a):
    b = ct.pack_to_bytes(ct.zeros((3, 5), ct.float4_e2m1fn))


def k_arithmetic(a):
    t = ct.zeros((4,), ct.float4_e2m1fn)
    u = t * t


TYPE_CASES = [
    (k_e4m3_scales_block_32, "For mma_scaled with dtype=float4_e2m1fn, scale_dtype=float8_e4m3fn:"
     " x.shape[1] must be an exact multiple of x_scale.shape[1] with scaling block size B = K // "
     "K_s in {16}, got x.shape[1] = 64 and x_scale.shape[1] = 2", CALL),
    (k_e8m0_scales_block_8, "scaling block size B = K // K_s in {16, 32}, got x.shape[1] = 64 "
     "and x_scale.shape[1] = 8", CALL),
    (k_fp4_and_fp8, "x and y must have the same dtype, got float4_e2m1fn and float8_e4m3fn",
     CALL),
    (k_e5m2_scales, "Unsupported scale dtype float8_e5m2 for input dtype float4_e2m1fn, "
     "supported scale dtypes are float8_e8m0fnu, float8_e4m3fn, float8_e5m3fnu", CALL),
    (k_fp8_with_e4m3_scales, "Unsupported scale dtype float8_e4m3fn for input dtype "
     "float8_e4m3fn, supported scale dtypes are float8_e8m0fnu", CALL),
    (k_pack_odd, "Cannot pack tile of 15 float4_e2m1fn elements: total bits (15 * 4) not "
     "divisible by 8", "ct.pack_to_bytes(ct.zeros((3, 5), ct.float4_e2m1fn))"),
    (k_arithmetic, "non-arithmetic dtype float4_e2m1fn", "t * t"),
]


@pytest.mark.parametrize(("fn", "match", "at"), TYPE_CASES,
                         ids=[c[0].__name__.removeprefix("k_") for c in TYPE_CASES])
def test_type_error(fe, fn, match, at):
    fe.expect_error(ct.kernel(fn), (fe.array(),), TileTypeError, match, at)


def test_nan_constant(fe):
    @ct.kernel
    def k(a):
        t = ct.full((4,), float("nan"), ct.float4_e2m1fn)

    fe.expect_error(k, (fe.array(),), TileValueError, "NaN cannot be represented in "
                    "float4_e2m1fn", 'ct.full((4,), float("nan"), ct.float4_e2m1fn)')


def test_fp4_array_argument_is_refused_with_a_hint():
    @ct.kernel
    def k(a):
        pass

    with pytest.raises(TileArgumentError, match="has dtype float4_e2m1fn, which tilelang "
                       "cannot use") as info:
        ct.compile(k, (np.zeros(8, ml_dtypes.float4_e2m1fn),), stop_after="tile")
    assert "unpack_from_bytes" in info.value.hint


def test_fp4_operands_meet_in_one_bfloat16_mma(fe):
    @ct.kernel
    def k(a):
        x = ct.unpack_from_bytes(ct.zeros((512,), ct.uint8), ct.float4_e2m1fn)
        y = ct.unpack_from_bytes(ct.zeros((256,), ct.uint8), ct.float4_e2m1fn)
        s = ct.zeros((16, 4), ct.float8_e4m3fn)
        t = ct.zeros((4, 8), ct.float8_e4m3fn)
        c = ct.mma_scaled(x.reshape((16, 64)), s, y.reshape((64, 8)), t,
                          ct.zeros((16, 8), ct.float32))

    ir = fe.tile_ir(k, fe.array())
    assert "tensor<1024xf4E2M1FN>" in ir
    assert fe.signatures(ir, "tile.mma") == [
        "(tensor<16x64xbf16>, tensor<64x8xbf16>, tensor<16x8xf32>) -> tensor<16x8xf32>"]
