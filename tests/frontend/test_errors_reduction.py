"""Front-end errors of reductions and scans: class, message, span, rendering, clean traceback,
and a healthy compiler afterwards (the autouse fixture of conftest.py)."""
# ruff: noqa: F841  (kernels written to exercise the compiler)

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct
from tilelang import TileSyntaxError, TileTypeError, TileValueError


def test_axis_out_of_range(fe):
    @ct.kernel
    def k(a):
        s = ct.sum(ct.load(a, (0, 0), (4, 8)), axis=2)

    fe.expect_error(
        k,
        (fe.array(np.float32, (4, 8)),),
        TileValueError,
        "axis 2 is out of range for 2 dimensions",
        "ct.sum(ct.load(a, (0, 0), (4, 8)), axis=2)",
    )


def test_repeated_axis(fe):
    @ct.kernel
    def k(a):
        s = ct.max(ct.load(a, (0, 0), (4, 8)), axis=(1, -1))

    fe.expect_error(
        k,
        (fe.array(np.float32, (4, 8)),),
        TileTypeError,
        "Repeated reduction axis 1",
        "ct.max(ct.load(a, (0, 0), (4, 8)), axis=(1, -1))",
    )


def test_argmax_over_a_tuple_of_axes(fe):
    @ct.kernel
    def k(a):
        s = ct.argmax(ct.load(a, (0, 0), (4, 8)), axis=(0, 1))

    fe.expect_error(
        k,
        (fe.array(np.float32, (4, 8)),),
        TileTypeError,
        "a tuple of axes is not supported",
        "ct.argmax(ct.load(a, (0, 0), (4, 8)), axis=(0, 1))",
    )


def test_non_constant_axis(fe):
    @ct.kernel
    def k(a, n):
        s = ct.sum(ct.load(a, (0,), (8,)), axis=n)

    fe.expect_error(
        k,
        (fe.array(), 0),
        TileTypeError,
        "axis must be a constant int",
        "ct.sum(ct.load(a, (0,), (8,)), axis=n)",
    )


def wrong_dtype(a, b):
    return (a + b).astype(ct.float32)


def test_combiner_returns_the_wrong_dtype(fe):
    @ct.kernel
    def k(a):
        s = ct.reduce(ct.load(a, (0,), (8,)), 0, wrong_dtype, 0)

    fe.expect_error(
        k,
        (fe.array(np.int32),),
        TileTypeError,
        "the combining function returns float32 for a int32 input",
        "ct.reduce(ct.load(a, (0,), (8,)), 0, wrong_dtype, 0)",
    )


def two_values(a, b):
    return a, b


def test_combiner_returns_too_many_values(fe):
    @ct.kernel
    def k(a):
        s = ct.reduce(ct.load(a, (0,), (8,)), 0, two_values, 0)

    fe.expect_error(
        k,
        (fe.array(np.int32),),
        TileTypeError,
        "the combining function returns 2 values for 1 input tile(s)",
        "ct.reduce(ct.load(a, (0,), (8,)), 0, two_values, 0)",
    )


def test_combiner_that_is_not_a_function(fe):
    @ct.kernel
    def k(a):
        s = ct.scan(ct.load(a, (0,), (8,)), 0, 3, 0)

    fe.expect_error(
        k,
        (fe.array(np.int32),),
        TileTypeError,
        "scan() needs a function of two groups of tiles as `func`",
        "ct.scan(ct.load(a, (0,), (8,)), 0, 3, 0)",
    )


def test_identities_do_not_match_the_tiles(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (8,))
        s = ct.reduce((t, t), 0, two_values, 0)

    fe.expect_error(
        k,
        (fe.array(np.int32),),
        TileTypeError,
        "reduce() got 1 identities for 2 tiles",
        "ct.reduce((t, t), 0, two_values, 0)",
    )


def test_scan_axis_none(fe):
    @ct.kernel
    def k(a):
        s = ct.cumsum(ct.load(a, (0,), (8,)), axis=None)

    fe.expect_error(k, (fe.array(np.int32),), TileTypeError,
                    "Expected an integer constant, but given value has type None",
                    "ct.cumsum(ct.load(a, (0,), (8,)), axis=None)")


def test_flush_to_zero_of_bfloat16(fe):
    @ct.kernel
    def k(a):
        s = ct.max(ct.load(a, (0,), (8,)), flush_to_zero=True)

    fe.expect_error(k, (fe.array("bfloat16"),), TileTypeError,
                    "Flush to zero can only be used for float32 type",
                    "ct.max(ct.load(a, (0,), (8,)), flush_to_zero=True)")


def test_approximate_sum(fe):
    @ct.kernel
    def k(a):
        s = ct.sum(ct.load(a, (0,), (8,)), rounding_mode=ct.RoundingMode.APPROX)

    fe.expect_error(k, (fe.array(),), TileTypeError, "Rounding mode approx is not supported",
                    "ct.sum(ct.load(a, (0,), (8,)), rounding_mode=ct.RoundingMode.APPROX)")


def test_directed_rounding_of_an_integer_sum(fe):
    @ct.kernel
    def k(a):
        s = ct.sum(ct.load(a, (0,), (8,)), rounding_mode=ct.RoundingMode.RZ)

    fe.expect_error(k, (fe.array(np.int32),), TileTypeError,
                    "Rounding mode can only be used for unrestricted float types, but got int32",
                    "ct.sum(ct.load(a, (0,), (8,)), rounding_mode=ct.RoundingMode.RZ)")


def test_full_rounding_of_a_scan(fe):
    @ct.kernel
    def k(a):
        s = ct.cumprod(ct.load(a, (0,), (8,)), rounding_mode=ct.RoundingMode.FULL)

    fe.expect_error(k, (fe.array(),), TileTypeError, "Rounding mode full is not supported",
                    "ct.cumprod(ct.load(a, (0,), (8,)), rounding_mode=ct.RoundingMode.FULL)")


def test_reduction_of_an_array(fe):
    @ct.kernel
    def k(a):
        s = ct.sum(a)

    fe.expect_error(k, (fe.array(),), TileTypeError, "Invalid argument #1 of sum(): Expected a "
                    "tile, but given value has type Array[float32,(?,):(?,)]", "ct.sum(a)")


def expect_in_combiner(fe, kernel, match, at, function):
    """The error points into the combining function (a nested def or a lambda of the kernel),
    with the reduce/scan call as its call site."""
    with pytest.raises(TileSyntaxError) as info:
        fe.compile(kernel, fe.array(np.int32))
    err = info.value
    assert match in err.message, err.message
    line, col, _ = fe.span(kernel.fn, at)
    assert (err.loc.line, err.loc.col, err.loc.function) == (line, col, function), err.loc
    assert err.loc.call_site is not None and err.loc.call_site.function == "k"
    fe.check_rendering(err)
    fe.check_traceback(err)


def test_branching_in_a_combiner(fe):
    @ct.kernel
    def k(a):
        def f(x, y):
            if ct.bid(0) == 0:
                z = x + y
            else:
                z = x * y
            return z

        s = ct.reduce(ct.load(a, (0,), (8,)), 0, f, 0)

    expect_in_combiner(fe, k, "Branching inside reduction body is not supported",
                       "if ct.bid(0) == 0:", "f")


def test_loop_in_a_combiner(fe):
    @ct.kernel
    def k(a):
        def f(x, y):
            for _ in range(ct.bid(0)):
                x = x + y
            return x

        s = ct.scan(ct.load(a, (0,), (8,)), 0, f, 0)

    expect_in_combiner(fe, k, "Loops inside scan body are not supported",
                       "for _ in range(ct.bid(0)):", "f")


def test_memory_access_in_a_combiner(fe):
    @ct.kernel
    def k(a):
        s = ct.reduce(ct.load(a, (0,), (8,)), 0,
                      lambda x, y: x + ct.load(a, (0,), (1,)).item(), 0)

    expect_in_combiner(fe, k, "Operations with memory effects are not supported inside "
                       "reduction body", "ct.load(a, (0,), (1,))", "<lambda>")


def test_nested_reduction(fe):
    @ct.kernel
    def k(a):
        s = ct.reduce(ct.load(a, (0,), (8,)), 0,
                      lambda x, y: ct.sum(ct.full((2,), 1, ct.int32)) + x + y, 0)

    expect_in_combiner(fe, k, "Nested scan/reduction is not supported",
                       "ct.sum(ct.full((2,), 1, ct.int32))", "<lambda>")
