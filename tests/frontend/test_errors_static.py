"""Errors of static_eval and static_assert (class, message, location, healthy afterwards)."""
# ruff: noqa: F841  (kernels written to exercise the compiler)

from __future__ import annotations

import numpy as np

import tilelang as ct
from tilelang import (
    TileStaticAssertionError,
    TileStaticEvalError,
    TileSyntaxError,
    TileTypeError,
)


def test_failed_assertion_with_a_message(fe):
    @ct.kernel
    def k(a, N: ct.Constant[int]):
        ct.static_assert(N % 16 == 0, f"N = {N} is not a multiple of 16")

    fe.expect_error(k, (fe.array(), 40), TileStaticAssertionError,
                    "Static assertion failed: N = 40 is not a multiple of 16",
                    'ct.static_assert(N % 16 == 0, f"N = {N} is not a multiple of 16")')


def test_assertion_shows_a_tile(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (4,))
        ct.static_assert(t.dtype == ct.float32, t)

    fe.expect_error(k, (fe.array(np.int32),), TileStaticAssertionError,
                    "Static assertion failed: <tile[int32, (4,)]>",
                    "ct.static_assert(t.dtype == ct.float32, t)")


def test_condition_that_is_not_a_bool(fe):
    @ct.kernel
    def k(a):
        ct.static_assert(a.ndim)

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "static_assert() condition must be a boolean, not int",
                    "ct.static_assert(a.ndim)")


def test_kernel_function_inside_static_eval(fe):
    @ct.kernel
    def k(a):
        t = ct.static_eval(ct.zeros((4,), ct.int32))

    fe.expect_error(k, (fe.array(),), TileStaticEvalError,
                    "zeros() cannot be called inside static_eval().",
                    "ct.static_eval(ct.zeros((4,), ct.int32))")


def test_python_error_inside_static_eval(fe):
    @ct.kernel
    def k(a):
        t = ct.static_eval({1: 2}[3])

    fe.expect_error(k, (fe.array(),), TileStaticEvalError,
                    "Exception was raised inside static_eval() (KeyError: 3)",
                    "ct.static_eval({1: 2}[3])")


def test_assignment_inside_static_eval(fe):
    @ct.kernel
    def k(a):
        t = ct.static_eval(n := 3)

    fe.expect_error(k, (fe.array(),), TileSyntaxError,
                    "static_eval() expression attempted to modify a local variable 'n'",
                    "ct.static_eval(n := 3)")


def test_static_eval_inside_static_eval(fe):
    @ct.kernel
    def k(a):
        t = ct.static_eval(ct.static_eval(1))

    fe.expect_error(k, (fe.array(),), TileStaticEvalError,
                    "static_eval() cannot be used inside static_eval().",
                    "ct.static_eval(ct.static_eval(1))")


def test_break_in_static_iter(fe):
    @ct.kernel
    def k(a):
        for _ in ct.static_iter(range(3)):
            break

    fe.expect_error(k, (fe.array(),), TileSyntaxError,
                    "Break in a for loop with static_iter() is not supported", "break")


def test_static_iter_of_something_not_iterable(fe):
    @ct.kernel
    def k(a):
        for _ in ct.static_iter(3):
            pass

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "Invalid static_iter() iterable: 'int' object is not iterable",
                    "ct.static_iter(3)")


def test_static_iter_too_long(fe):
    @ct.kernel
    def k(a):
        for _ in ct.static_iter(range(2000)):
            pass

    fe.expect_error(k, (fe.array(),), TileStaticEvalError,
                    "Maximum number of iterations (1000) has been reached while unpacking the "
                    "static_iter() iterable",
                    "ct.static_iter(range(2000))")


def test_static_iter_outside_a_for(fe):
    @ct.kernel
    def k(a):
        it = ct.static_iter(range(3))

    fe.expect_error(k, (fe.array(),), TileSyntaxError,
                    "static_iter() is only allowed as iterable in a `for` loop",
                    "ct.static_iter(range(3))")


def test_condition_that_is_not_a_constant(fe):
    @ct.kernel
    def k(a, n):
        ct.static_assert(n > 2)

    fe.expect_error(k, (fe.array(), 3), TileTypeError,
                    "static_assert() condition must be a compile-time constant",
                    "ct.static_assert(n > 2)")


def test_failed_assertion_with_an_empty_message(fe):
    @ct.kernel
    def k(a):
        ct.static_assert(a.ndim == 2, "")

    err = fe.expect_error(k, (fe.array(),), TileStaticAssertionError, "Static assertion failed",
                          'ct.static_assert(a.ndim == 2, "")')
    assert err.message == "Static assertion failed"


def test_static_assert_with_three_arguments(fe):
    @ct.kernel
    def k(a):
        ct.static_assert(True, "m", 1)

    fe.expect_error(k, (fe.array(),), TileSyntaxError,
                    "static_assert(cond, msg=None, /) expects one or two positional arguments",
                    'ct.static_assert(True, "m", 1)')


def test_kernel_function_inside_static_assert(fe):
    @ct.kernel
    def k(a):
        ct.static_assert(ct.full((2,), 0, ct.int8).dtype == ct.int8)

    fe.expect_error(k, (fe.array(),), TileStaticEvalError,
                    "full() cannot be called inside static_assert() condition.",
                    "ct.static_assert(ct.full((2,), 0, ct.int8).dtype == ct.int8)")


def test_static_eval_with_two_expressions(fe):
    @ct.kernel
    def k(a):
        t = ct.static_eval(1, 2)

    fe.expect_error(k, (fe.array(),), TileSyntaxError, "static_eval() expects a single expression",
                    "ct.static_eval(1, 2)")


def test_local_function_called_inside_static_eval(fe):
    @ct.kernel
    def k(a):
        g = lambda v: v * 2  # noqa: E731
        t = ct.static_eval(g(3))

    fe.expect_error(k, (fe.array(),), TileStaticEvalError,
                    "<lambda>() cannot be called inside static_eval().", "ct.static_eval(g(3))")


def test_static_eval_through_a_variable(fe):
    @ct.kernel
    def k(a):
        f = ct.static_assert
        f(a.ndim == 1)

    fe.expect_error(k, (fe.array(),), TileSyntaxError,
                    "static_assert() must be used directly by name", "f(a.ndim == 1)")


def test_static_iter_through_a_variable(fe):
    @ct.kernel
    def k(a):
        each = ct.static_iter
        for _ in each(range(2)):
            pass

    fe.expect_error(k, (fe.array(),), TileSyntaxError,
                    "static_iter() must be used directly by name", "each(range(2))")


def test_static_iter_of_a_run_time_bound(fe):
    @ct.kernel
    def k(a, n):
        for _ in ct.static_iter(range(n)):
            pass

    fe.expect_error(k, (fe.array(), 3), TileStaticEvalError,
                    "Exception was raised inside static_iter() iterable (ValueError: Symbolic "
                    "tile has no concrete value and thus cannot be converted to an integer)",
                    "ct.static_iter(range(n))")


def test_static_iter_item_that_is_a_list(fe):
    @ct.kernel
    def k(a):
        for _ in ct.static_iter(([1], [2])):
            pass

    fe.expect_error(k, (fe.array(),), TileStaticEvalError,
                    "Invalid item #0 of static_iter() iterable: Cannot create constant from "
                    "value of type list.", "ct.static_iter(([1], [2]))")


def test_static_iter_iterable_that_raises(fe):
    @ct.kernel
    def k(a):
        for _ in ct.static_iter(1 // v for v in (1, 0)):
            pass

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "Error was raised while obtaining item #1 from the static_iter() iterable: "
                    "integer division or modulo by zero", "ct.static_iter(1 // v for v in (1, 0))")


def test_kernel_function_in_a_static_iter_iterable(fe):
    @ct.kernel
    def k(a):
        for _ in ct.static_iter(ct.arange(4, dtype=ct.int32)):
            pass

    fe.expect_error(k, (fe.array(),), TileStaticEvalError,
                    "arange() cannot be called inside static_iter() iterable.",
                    "ct.static_iter(ct.arange(4, dtype=ct.int32))")


def test_method_called_inside_static_eval(fe):
    @ct.kernel
    def k(a):
        t = ct.static_eval(a.slice(0, 0, 4))

    fe.expect_error(k, (fe.array(),), TileStaticEvalError,
                    "slice() cannot be called inside static_eval().",
                    "ct.static_eval(a.slice(0, 0, 4))")


def test_truth_of_a_tile_inside_static_eval(fe):
    @ct.kernel
    def k(a, n):
        t = ct.static_eval(1 if n else 2)

    fe.expect_error(k, (fe.array(), 3), TileStaticEvalError,
                    "(ValueError: Symbolic tile has no concrete value and thus cannot be "
                    "converted to boolean)", "ct.static_eval(1 if n else 2)")


def test_comprehension_over_a_tile(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (4,))
        parts = tuple(v for v in t)

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "a comprehension iterates over ct.static_iter(...) or a tuple",
                    ("v in t)", "t"))


def test_ensure_constant_of_a_run_time_value(fe):
    @ct.kernel
    def k(a):
        if ct.ensure_constant(a.ndim == 1):  # a constant: fine
            ct.ensure_constant(ct.bid(0))

    fe.expect_error(k, (fe.array(),), TileStaticAssertionError,
                    "Argument of ensure_constant() is not a compile-time constant",
                    "ct.ensure_constant(ct.bid(0))")
