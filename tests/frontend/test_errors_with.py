"""Errors of `with` statements over @contextlib.contextmanager helpers (cuTile's wording where
its tests match it), each pointing at the user's source."""

from __future__ import annotations

import contextlib

import pytest

import tilelang as ct
from tilelang import TileSyntaxError, TileTypeError


@contextlib.contextmanager
def two_yields(a):
    yield 1
    yield 2


@contextlib.contextmanager
def no_yield(a):
    ct.store(a, (0,), ct.zeros((16,), ct.float32))


@contextlib.contextmanager
def dead_yield(a):
    while True:
        break
        yield


@contextlib.contextmanager
def yield_in_loop(a):
    for _ in range(2):
        yield


@contextlib.contextmanager
def yield_in_if(a):
    if ct.bid(0) == 0:
        yield


@contextlib.contextmanager
def returns(a):
    if ct.bid(0) == 0:
        return
    yield


@contextlib.contextmanager
def yields_from(a):
    yield from (1, 2)


@contextlib.contextmanager
def yield_value_used(a):
    got = yield 1
    ct.store(a, (0,), ct.full((16,), got, ct.float32))


CASES = [
    (two_yields, TileTypeError, "must have one `yield` statement, found 2", "yield 2"),
    (yield_in_loop, TileTypeError, "must be outside of loops and conditional", "yield"),
    (yield_in_if, TileTypeError, "must be outside of loops and conditional", "yield"),
    (returns, TileSyntaxError, "Returning from a generator-based context manager", "return"),
    (yields_from, TileSyntaxError, "`yield from` is not supported", "yield from (1, 2)"),
    (yield_value_used, TileSyntaxError, "must be a statement of its own", "yield 1"),
]


@pytest.mark.parametrize("gen, cls, message, at", CASES, ids=[c[0].__name__ for c in CASES])
def test_unsupported_generator(fe, gen, cls, message, at):
    @ct.kernel
    def k(a):
        with gen(a):
            pass

    fe.expect_error(k, (fe.array(),), cls, message, at, helper=gen.__wrapped__)


@pytest.mark.parametrize("gen", [no_yield, dead_yield])
def test_no_reachable_yield(fe, gen):
    @ct.kernel
    def k(a):
        with gen(a):
            pass

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    f"Context manager `{gen.__name__}` has no reachable `yield` statement",
                    ("with gen(a):", "gen(a)"))


@contextlib.contextmanager
def fine(a):
    yield 3


def test_entered_only_once(fe):
    @ct.kernel
    def k(a):
        cm = fine(a)
        with cm as first:  # noqa: F841
            pass
        with cm as second:  # noqa: F841
            pass

    fe.expect_error(k, (fe.array(),), TileTypeError, "can be entered only once",
                    ("with cm as second:", "cm"))


def test_context_manager_is_no_operand(fe):
    @ct.kernel
    def k(a):
        cm = fine(None)
        cm + 1

    err = fe.expect_error(k, (fe.array(),), TileTypeError, "Unsupported operand types for +: "
                          "GeneratorContextManager[<function fine at 0x", "cm + 1")
    assert err.message.endswith(", args=[None], kwargs={}] and Tile[int32,()]"), err.message


def test_bad_arguments(fe):
    @ct.kernel
    def k(a):
        with fine(a, 2):
            pass

    fe.expect_error(k, (fe.array(),), TileTypeError, "fine(): too many positional arguments",
                    "fine(a, 2)")
