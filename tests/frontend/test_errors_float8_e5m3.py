"""float8_e5m3fnu's errors, as cuTile raises them: negative constants, rounding modes its table
lacks, mma_scaled rows that do not take its scales; and what tilelang refuses because no array
type has it."""

# ruff: noqa: F841  (kernels bind values only to reach the error)

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct
from tilelang import TileTypeError
from tilelang.errors import TileValueError

E5M3 = ct.float8_e5m3fnu


@pytest.mark.parametrize("value", [-1.0, -0.0, float("-inf"), float("-nan")])
def test_negative_constants(fe, value):
    """cuTile's test_f8e5m3fnu_rejects_negative (and -inf)."""
    @ct.kernel
    def k(a, V: ct.Constant[float]):
        t = ct.astile(V, dtype=ct.float8_e5m3fnu)

    fe.expect_error(k, (fe.array(), value), TileValueError,
                    "Negative values cannot be represented in an unsigned float format",
                    "ct.astile(V, dtype=ct.float8_e5m3fnu)")


def test_negative_constant_of_the_dtype_call(fe):
    @ct.kernel
    def k(a):
        x = ct.float8_e5m3fnu(-0.5)

    fe.expect_error(k, (fe.array(),), TileValueError,
                    "Negative values cannot be represented in an unsigned float format",
                    "ct.float8_e5m3fnu(-0.5)")


def test_negative_zero_full(fe):
    @ct.kernel
    def k(a):
        t = ct.full((2,), -0.0, ct.float8_e5m3fnu)

    fe.expect_error(k, (fe.array(),), TileValueError,
                    "Negative values cannot be represented in an unsigned float format",
                    "ct.full((2,), -0.0, ct.float8_e5m3fnu)")


@pytest.mark.parametrize("mode", [ct.RoundingMode.RM, ct.RoundingMode.RP, ct.RoundingMode.RA])
def test_directed_modes_to_float16_are_refused(fe, mode):
    @ct.kernel
    def k(a, MODE: ct.Constant):
        t = ct.full((2,), 1.5, ct.float8_e5m3fnu)
        u = t.astype(ct.float16, rounding_mode=MODE)

    fe.expect_error(k, (fe.array(), mode), TileTypeError,
                    f"rounding_mode={mode} is not supported for conversion from "
                    "tilelang.float8_e5m3fnu to tilelang.float16, supported rounding modes for "
                    "this conversion are (RN, RZ)", "t.astype(ct.float16, rounding_mode=MODE)")


def test_rounding_modes_to_it_are_refused(fe):
    @ct.kernel
    def k(a):
        t = ct.full((2,), 1.5, ct.float32).astype(E5M3, rounding_mode=ct.RoundingMode.RZ)

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "supported rounding modes for this conversion are (RN)",
                    "ct.full((2,), 1.5, ct.float32).astype(E5M3, rounding_mode=ct.RoundingMode.RZ)")


CALL = "ct.mma_scaled(x, s, y, s2, ct.zeros((16, 16), ct.float32))"


def test_fp8_operands_take_no_e5m3fnu_scales(fe):
    @ct.kernel
    def k(a):
        x = ct.zeros((16, 32), ct.float8_e4m3fn)
        y = ct.zeros((32, 16), ct.float8_e4m3fn)
        s = ct.zeros((16, 1), E5M3)
        s2 = ct.zeros((1, 16), E5M3)
        acc = ct.mma_scaled(x, s, y, s2, ct.zeros((16, 16), ct.float32))

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "Unsupported scale dtype float8_e5m3fnu for input dtype float8_e4m3fn, "
                    "supported scale dtypes are float8_e8m0fnu", CALL)


def test_block_of_64_is_refused(fe):
    @ct.kernel
    def k(a):
        x = ct.unpack_from_bytes(ct.zeros((512,), ct.uint8), ct.float4_e2m1fn).reshape((16, 64))
        y = ct.unpack_from_bytes(ct.zeros((512,), ct.uint8), ct.float4_e2m1fn).reshape((64, 16))
        s = ct.zeros((16, 1), E5M3)
        s2 = ct.zeros((1, 16), E5M3)
        acc = ct.mma_scaled(x, s, y, s2, ct.zeros((16, 16), ct.float32))

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "scaling block size B = K // K_s in {16, 32}", CALL)


def test_scales_differ(fe):
    @ct.kernel
    def k(a):
        x = ct.unpack_from_bytes(ct.zeros((256,), ct.uint8), ct.float4_e2m1fn).reshape((16, 32))
        y = ct.unpack_from_bytes(ct.zeros((256,), ct.uint8), ct.float4_e2m1fn).reshape((32, 16))
        s = ct.zeros((16, 2), E5M3)
        s2 = ct.zeros((2, 16), ct.float8_e8m0fnu)
        acc = ct.mma_scaled(x, s, y, s2, ct.zeros((16, 16), ct.float32))

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "x_scale and y_scale must have the same dtype, got float8_e5m3fnu and "
                    "float8_e8m0fnu", CALL)


def test_no_numpy_or_torch_dtype_names_it():
    assert ct.float8_e5m3fnu.numpy not in {np.dtype(t).name for t in (np.uint8, np.float32)}
    from tilelang.language import dtypes as dt

    assert dt.from_numpy("float8_e5m3fnu") is None and dt.from_torch("torch.uint8") is dt.uint8
