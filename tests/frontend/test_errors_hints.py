"""Errors of assume_divisible_by and the grid dependency control, at the user's line."""

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct
from tilelang.errors import TileInterpreterError, TileSyntaxError, TileTypeError, TileValueError


def test_assume_divisible_by_needs_an_integer_scalar(fe):
    @ct.kernel
    def k(a, f: float):
        ct.assume_divisible_by(f, 16)

    err = fe.expect_error(k, (fe.array(), 1.5), TileTypeError,
                          "`assume_divisible_by` requires an integer scalar, got float32 scalar",
                          "ct.assume_divisible_by(f, 16)")
    fe.check_rendering(err)


def test_assume_divisible_by_refuses_a_tile(fe):
    @ct.kernel
    def k(a):
        ct.assume_divisible_by(ct.arange(16, dtype=ct.int32), 16)

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "requires an integer scalar, got int32 tile of shape (16,)",
                    "ct.assume_divisible_by(ct.arange(16, dtype=ct.int32), 16)")


def test_assume_divisible_by_needs_a_constant_divisor(fe):
    @ct.kernel
    def k(a, n: int, d: int):
        n = ct.assume_divisible_by(n, d)

    fe.expect_error(k, (fe.array(), 4, 4), TileTypeError,
                    "requires the divisor to be an integer constant, got int32 scalar",
                    "ct.assume_divisible_by(n, d)")


@pytest.mark.parametrize("divisor", [0, -4])
def test_assume_divisible_by_needs_a_positive_divisor(fe, divisor):
    @ct.kernel
    def k(a, n: int, D: ct.Constant[int]):
        n = ct.assume_divisible_by(n, D)

    fe.expect_error(k, (fe.array(), 4, divisor), TileTypeError,
                    f"`assume_divisible_by` requires a positive divisor, got {divisor}",
                    "ct.assume_divisible_by(n, D)")


def test_assume_divisible_by_contradicting_a_constant(fe):
    @ct.kernel
    def k(a):
        ct.assume_divisible_by(ct.int32(6), 4)

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "Value 6 is not divisible by 4: `assume_divisible_by` contradicts a known "
                    "constant", "ct.assume_divisible_by(ct.int32(6), 4)")


def test_assume_divisible_by_a_python_int(fe):
    @ct.kernel
    def k(a):
        ct.assume_divisible_by(7, 2)

    fe.expect_error(k, (fe.array(),), TileTypeError, "Value 7 is not divisible by 2",
                    "ct.assume_divisible_by(7, 2)")


def test_a_false_promise_stops_the_interpreter_at_its_line(monkeypatch, fe):
    monkeypatch.setenv("TILELANG_INTERPRET", "1")

    @ct.kernel
    def k(a, n: int):
        n = ct.assume_divisible_by(n, 8)
        ct.store(a, (0,), ct.full((4,), n, ct.float32))

    a = np.zeros(4, np.float32)
    ct.launch(None, 1, k, (a, 24))
    assert (a == 24).all()
    with pytest.raises(TileInterpreterError,
                       match=r"assume_divisible_by: 12 is not a multiple of 8 \(block \(0, 0, 0\)\)"
                       ) as info:
        ct.launch(None, 1, k, (a, 12))
    fe.check_loc(info.value.loc, k.fn, "ct.assume_divisible_by(n, 8)")


def test_grid_dependency_control_takes_no_arguments(fe):
    @ct.kernel
    def k(a):
        ct.grid_dependency_control_wait(a)

    fe.expect_error(k, (fe.array(),), TileTypeError, "grid_dependency_control_wait()",
                    "ct.grid_dependency_control_wait(a)")


def test_grid_dependency_control_is_not_allowed_in_a_combiner(fe):
    def combine(x, y):
        ct.grid_dependency_control_wait()
        return x + y

    @ct.kernel
    def k(a):
        ct.reduce(ct.load(a, (0,), (16,)), 0, combine, 0.0)

    err = fe.expect_error(k, (fe.array(),), TileSyntaxError, "Operations with memory effects "
                          "are not supported inside reduction body",
                          "ct.grid_dependency_control_wait()", helper=combine,
                          call_at="ct.reduce(ct.load(a, (0,), (16,)), 0, combine, 0.0)")
    fe.check_rendering(err)


@pytest.mark.parametrize(("latency", "cls", "message"), [
    (0, TileValueError, "latency must be from 1 to 10, got 0"),
    (11, TileValueError, "latency must be from 1 to 10, got 11"),
    (2.5, TileTypeError, "latency must be a constant int or None, got constant 2.5"),
])
def test_load_latency_must_be_a_constant_from_1_to_10(fe, latency, cls, message):
    @ct.kernel
    def k(a, L: ct.Constant[object]):
        ct.store(a, (0,), ct.load(a, (0,), (16,), latency=L))

    fe.expect_error(k, (fe.array(), latency), cls, message,
                    "ct.load(a, (0,), (16,), latency=L)")


def test_store_latency_must_be_a_constant(fe):
    @ct.kernel
    def k(a, n: int):
        ct.store(a, (0,), ct.load(a, (0,), (16,)), latency=n)

    fe.expect_error(k, (fe.array(), 3), TileTypeError,
                    "latency must be a constant int or None, got int32 scalar",
                    "ct.store(a, (0,), ct.load(a, (0,), (16,)), latency=n)")


def test_allow_tma_must_be_a_constant_bool(fe):
    @ct.kernel
    def k(a):
        ct.store(a, (0,), ct.load(a, (0,), (16,), allow_tma=1))

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "allow_tma must be a constant bool or None, got constant 1",
                    "ct.load(a, (0,), (16,), allow_tma=1)")

