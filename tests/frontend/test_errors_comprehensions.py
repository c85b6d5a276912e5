"""Errors of tuple comprehensions: names read before their clause binds them (Python's scoping,
cuTile's "Undefined variable"), run-time conditions, unsupported syntax inside them."""
# ruff: noqa: F841, F821  (kernels written to exercise the compiler)

from __future__ import annotations

import tilelang as ct
from tilelang import TileSyntaxError, TileTypeError


def test_later_iterable_reads_a_target_bound_after_it(fe):
    @ct.kernel
    def k(a):
        n = 10  # not what range(n) reads: n is the comprehension's own name
        _ = tuple(i + j for i in ct.static_iter(range(3)) for j in ct.static_iter(range(n))
                  for n in ct.static_iter(range(4)))

    fe.expect_error(k, (fe.array(),), TileSyntaxError, "Undefined variable n used", ("(n))", "n"))


def test_second_iterable_reads_its_own_target(fe):
    @ct.kernel
    def k(a):
        n = 4
        _ = tuple(i for i in ct.static_iter(range(3)) for n in ct.static_iter(range(n)))

    fe.expect_error(k, (fe.array(),), TileSyntaxError, "Undefined variable n used",
                    ("(n)))", "n"))


def test_condition_reads_a_later_target(fe):
    @ct.kernel
    def k(a):
        _ = tuple(i for i in ct.static_iter(range(3)) if m > 0 for m in ct.static_iter(range(4)))

    fe.expect_error(k, (fe.array(),), TileSyntaxError, "Undefined variable m used",
                    ("m > 0", "m"))


def test_run_time_condition(fe):
    @ct.kernel
    def k(a, flag: bool):
        tiles = tuple(ct.load(a, (i,), (4,)) for i in ct.static_iter(range(3)))
        kept = tuple(t for t in ct.static_iter(tiles) if flag)

    err = fe.expect_error(k, (fe.array(), True), TileTypeError,
                          "Tuple comprehension if-conditions must be statically known",
                          ("if flag)", "flag"))
    assert "ct.static_eval()" in err.message


def test_walrus_in_a_condition(fe):
    @ct.kernel
    def k(a):
        _ = tuple(y for x in ct.static_iter(range(5)) if (y := x * 2) > 3)

    fe.expect_error(k, (fe.array(),), TileSyntaxError,
                    "Unsupported syntax: `:=` is not supported in a kernel", "y := x * 2")


def test_comprehension_names_stay_inside(fe):
    @ct.kernel
    def k(a):
        parts = tuple(i for i in ct.static_iter(range(3)))
        ct.store(a, (0,), ct.full((4,), i, ct.float32))

    fe.expect_error(k, (fe.array(),), ct.TileUndefinedVariableError, "name `i` is not defined",
                    ("ct.full((4,), i, ct.float32)", "i"))
