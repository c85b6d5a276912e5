"""Front-end errors of reductions and scans: class, message, span, rendering, clean traceback,
and a healthy compiler afterwards (the autouse fixture of conftest.py)."""
# ruff: noqa: F841  (kernels written to exercise the compiler)

from __future__ import annotations

import numpy as np

import tilelang as ct
from tilelang import TileTypeError, TileValueError


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


def test_scan_of_bools(fe):
    @ct.kernel
    def k(a):
        s = ct.cumsum(ct.load(a, (0,), (8,)) > 0)

    fe.expect_error(
        k,
        (fe.array(np.int32),),
        TileTypeError,
        "cumsum() does not support bool_ tiles",
        "ct.cumsum(ct.load(a, (0,), (8,)) > 0)",
    )


def test_reduction_of_an_array(fe):
    @ct.kernel
    def k(a):
        s = ct.sum(a)

    fe.expect_error(k, (fe.array(),), TileTypeError, "sum() expects a tile", "ct.sum(a)")
