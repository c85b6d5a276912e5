"""Front-end errors of the restricted floats (float8_e4m3fn, float8_e5m2, tfloat32): no
arithmetic, no reductions or scans, no implicit promotion (cuTile's rules and, where its tests
match them, its wording), and the dtypes tilelang does not support. Same checks as the other
error tests: class, message, span, rendering, clean traceback, a healthy compiler afterwards."""
# ruff: noqa: F841  (kernels written to exercise the compiler)

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
import torch

import tilelang as ct
from tilelang import TileArgumentError, TileTypeError

E4M3, E5M2 = ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2


@pytest.mark.parametrize(("dtype", "name"), [(E4M3, "float8_e4m3fn"), (E5M2, "float8_e5m2")])
def test_addition_of_float8_tiles(fe, dtype, name):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (16,))
        s = t + t

    err = fe.expect_error(k, (fe.array(dtype),), TileTypeError,
                          f"Left-hand side has non-arithmetic dtype {name}", "t + t")
    assert "astype" in err.hint


def test_constant_times_float8_names_the_right_side(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (16,))
        s = 2.0 * t

    fe.expect_error(k, (fe.array(E4M3),), TileTypeError,
                    "Right-hand side has non-arithmetic dtype float8_e4m3fn", "2.0 * t")


def test_tfloat32_arithmetic(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (16,)).astype(ct.tfloat32)
        s = ct.maximum(t, t)

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "Left-hand side has non-arithmetic dtype tfloat32", "ct.maximum(t, t)")


@pytest.mark.parametrize(("expr", "what"), [("-t", "negation"), ("abs(t)", "abs"),
                                            ("ct.exp(t)", "exp"), ("ct.sqrt(t)", "sqrt")])
def test_unary_arithmetic_on_float8(fe, expr, what):
    kernels = {"-t": _neg, "abs(t)": _abs, "ct.exp(t)": _exp, "ct.sqrt(t)": _sqrt}
    fe.expect_error(kernels[expr], (fe.array(E5M2),), TileTypeError,
                    f"{what} does not support the non-arithmetic dtype float8_e5m2", expr)


@ct.kernel
def _neg(a):
    t = ct.load(a, (0,), (16,))
    s = -t


@ct.kernel
def _abs(a):
    t = ct.load(a, (0,), (16,))
    s = abs(t)


@ct.kernel
def _exp(a):
    t = ct.load(a, (0,), (16,))
    s = ct.exp(t)


@ct.kernel
def _sqrt(a):
    t = ct.load(a, (0,), (16,))
    s = ct.sqrt(t)


@pytest.mark.parametrize("fn", ["sum", "max", "argmin", "prod"])
def test_reductions_of_float8(fe, fn):
    kernels = {"sum": _sum, "max": _max, "argmin": _argmin, "prod": _prod}
    fe.expect_error(kernels[fn], (fe.array(E4M3),), TileTypeError,
                    "Non-arithmetic dtype float8_e4m3fn is unsupported for reduction",
                    f"ct.{fn}(t, axis=0)")


@ct.kernel
def _sum(a):
    t = ct.load(a, (0,), (16,))
    s = ct.sum(t, axis=0)


@ct.kernel
def _max(a):
    t = ct.load(a, (0,), (16,))
    s = ct.max(t, axis=0)


@ct.kernel
def _argmin(a):
    t = ct.load(a, (0,), (16,))
    s = ct.argmin(t, axis=0)


@ct.kernel
def _prod(a):
    t = ct.load(a, (0,), (16,))
    s = ct.prod(t, axis=0)


def test_cumsum_of_float8(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (16,))
        s = ct.cumsum(t, axis=0)

    fe.expect_error(k, (fe.array(E5M2),), TileTypeError,
                    "Non-arithmetic dtype float8_e5m2 is unsupported for prefix scans",
                    "ct.cumsum(t, axis=0)")


def test_where_does_not_promote_float8(fe):
    @ct.kernel
    def k(a, b):
        t = ct.load(a, (0,), (16,))
        u = ct.load(b, (0,), (16,))
        s = ct.where(t > 0, t, u)

    err = fe.expect_error(k, (fe.array(E4M3), fe.array(np.float32)), TileTypeError,
                          "Implicit promotion of float8_e4m3fn and float32 is not supported",
                          "ct.where(t > 0, t, u)")
    assert "astype" in err.hint


def test_float8_and_float8_of_the_other_kind_do_not_promote(fe):
    @ct.kernel
    def k(a, b):
        s = ct.load(a, (0,), (16,)) == ct.load(b, (0,), (16,))

    fe.expect_error(k, (fe.array(E4M3), fe.array(E5M2)), TileTypeError,
                    "Implicit promotion of float8_e4m3fn and float8_e5m2 is not supported",
                    "ct.load(a, (0,), (16,)) == ct.load(b, (0,), (16,))")


def test_float32_tile_is_not_stored_into_a_float8_array_implicitly(fe):
    @ct.kernel
    def k(a, b):
        ct.store(b, (0,), ct.load(a, (0,), (16,)))

    err = fe.expect_error(k, (fe.array(np.float32), fe.array(E4M3)), TileTypeError,
                          "cannot implicitly cast a float32 tile to the float8_e4m3fn array",
                          "ct.store(b, (0,), ct.load(a, (0,), (16,)))")
    assert "astype" in err.hint


def test_float8_e5m3fnu_is_an_unsigned_float_name():
    assert (ct.float8_e5m3fnu.bitwidth, ct.float8_e5m3fnu.restricted) == (8, True)
    assert repr(ct.float8_e5m3fnu) == "tilelang.float8_e5m3fnu"


def test_float8_e8m0fnu_tensor_argument():
    x = torch.zeros(4, dtype=torch.uint8).view(torch.float8_e8m0fnu)

    @ct.kernel
    def k(a):
        pass

    assert "f8E8M0FNU" in ct.compile(k, (x,), stop_after="tile").asm["tile"]


def test_packed_float4_tensor_argument():
    x = torch.zeros(4, dtype=torch.uint8).view(torch.float4_e2m1fn_x2)

    @ct.kernel
    def k(a):
        pass

    with pytest.raises(TileArgumentError,
                       match=r"argument `a` has dtype torch\.float4_e2m1fn_x2, which tilelang "
                             r"cannot use") as info:
        ct.compile(k, (x,), stop_after="tile")
    assert "unpack_from_bytes" in info.value.hint
