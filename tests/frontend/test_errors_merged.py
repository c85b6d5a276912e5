"""Errors of values that differ between paths: local functions of different definitions,
dataclass fields of different types, if-else expressions of two types, enum constants (cuTile's
"depends on path taken", the `else` value first, each with its line)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import tilelang as ct
from tilelang import TileTypeError
from tilelang.errors import TypeCheckingError


def test_two_definitions_do_not_merge(fe):
    @ct.kernel
    def k(a):
        if ct.bid(0) == 0:
            def f(y):
                return y + 1
        else:
            def f(y):
                return y + 2
        ct.store(a, (0,), f(ct.load(a, (0,), (4,))))

    first, second = (line for line in range(*_lines(k.fn)) if "def f(y):" in _text(line))
    fe.expect_error(k, (fe.array(),), TileTypeError,
                    f"Type of `f` depends on path taken: local function `f` (line {second}) "
                    f"vs. local function `f` (line {first})",
                    ("ct.store(a, (0,), f(ct.load(a, (0,), (4,))))", "f"))


@dataclass(frozen=True)
class Pair:
    a: object
    b: int


def test_dataclass_fields_of_two_types(fe):
    @ct.kernel
    def k(x):
        if ct.bid(0) == 0:
            p = Pair(ct.load(x, (0,), (4,)), 1)
        else:
            p = Pair(x, 2)
        ct.store(x, (0,), p.a)

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "Type of `p` depends on path taken: Pair instance", ("ct.store(x, (0,), p.a)",
                                                                         "p"))


def test_if_expression_of_two_types(fe):
    @ct.kernel
    def k(x, flag: bool):
        t = ct.load(x, (0,), (4,))
        t = flag if flag else t - 1

    fe.expect_error(k, (fe.array(), True), TileTypeError,
                    "Type of the if-else expression depends on path taken: float32 tile of "
                    "shape (4,) vs. bool_ scalar", "flag if flag else t - 1")


def test_if_expression_constant_adapts(fe):
    @ct.kernel
    def k(x, n: int):
        m = n if n else 100
        ct.store(x, (0,), ct.load(x, (0,), (4,)) + m)

    fe.tile_ir(k, fe.array(np.int32), 3)  # an int32 scalar and a constant: one type


def test_enum_constants_on_two_paths(fe):
    @ct.kernel
    def k(x):
        if ct.bid(0) == 0:
            order = ct.MemoryOrder.RELAXED
        else:
            order = ct.MemoryOrder.WEAK
        print(order == ct.MemoryOrder.WEAK)

    relaxed = fe.span(k.fn, "order = ct.MemoryOrder.RELAXED")[0]
    weak = fe.span(k.fn, "order = ct.MemoryOrder.WEAK")[0]
    err = fe.expect_error(k, (fe.array(),), TileTypeError,
                          f"Type of `order` depends on path taken: <enum constant "
                          f"MemoryOrder.WEAK> (line {weak}) vs. <enum constant "
                          f"MemoryOrder.RELAXED> (line {relaxed})",
                          ("print(order == ct.MemoryOrder.WEAK)", "order"))
    assert isinstance(err, TypeCheckingError)  # cuTile's name of TileTypeError


def _lines(fn):
    import inspect

    lines, start = inspect.getsourcelines(fn)
    return start, start + len(lines)


def _text(line: int) -> str:
    import linecache

    return linecache.getline(__file__, line)
