"""Front-end errors: Python constructs with no meaning in a kernel, names, and control flow.

Each test asserts the exception class, a message fragment, the exact span of the user's code
(line, column and end column) in err.loc, the rendering of str(err), that no compiler frame
leaks into the traceback, and (autouse fixture) that a correct kernel compiles afterwards.
"""
# ruff: noqa: B007, B018, E731, F401, F821, F841, SIM105  (kernels written to exercise the compiler)

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct
from tilelang import (
    TileNameError,
    TileSyntaxError,
    TileTypeError,
    TileUndefinedVariableError,
    TileUnsupportedFeatureError,
    TileValueError,
)

# ----- unsupported Python syntax ---------------------------------------------------------------


def test_lambda_with_star_args(fe):
    @ct.kernel
    def k(a):
        f = lambda *v: v

    fe.expect_error(k, (fe.array(),), TileSyntaxError,
                    "functions defined in a kernel take plain parameters only", "lambda *v: v")


def test_local_function_called_with_too_many_arguments(fe):
    @ct.kernel
    def k(a):
        f = lambda v: v + 1
        t = f(1, 2)

    fe.expect_error(k, (fe.array(),), TileTypeError, "<lambda>(): too many positional arguments",
                    "f(1, 2)")


def test_with_over_a_non_context_manager(fe):
    @ct.kernel
    def k(a):
        with a:
            pass

    fe.expect_error(k, (fe.array(),), TileTypeError, "array is not a context manager usable",
                    ("with a:", "a"))


def test_try(fe):
    @ct.kernel
    def k(a):
        try:
            pass
        except ValueError:
            pass

    fe.expect_error(k, (fe.array(),), TileSyntaxError, "`try` is not supported", "try:")


def test_del(fe):
    @ct.kernel
    def k(a):
        x = 1
        del x

    fe.expect_error(k, (fe.array(),), TileSyntaxError, "`del` is not supported", "del x")


def test_decorated_nested_def(fe):
    @ct.kernel
    def k(a):
        @ct.kernel
        def inner():
            pass

    fe.expect_error(k, (fe.array(),), TileSyntaxError,
                    "a function defined in a kernel cannot have decorators", "def inner():")


@pytest.mark.parametrize("word", ["break", "continue"])
def test_break_continue_in_a_loop_over_a_tuple(fe, word):
    @ct.kernel
    def k_break(a):
        for i in (1, 2):
            break

    @ct.kernel
    def k_continue(a):
        for i in (1, 2):
            continue

    kernel = k_break if word == "break" else k_continue
    fe.expect_error(kernel, (fe.array(),), TileSyntaxError,
                    f"`{word}` in a `for` loop over a tuple is not supported", word)


def test_f_string_of_an_array(fe):
    @ct.kernel
    def k(a):
        s = f"{a}"

    fe.expect_error(k, (fe.array(),), TileTypeError, "cannot print 1-d float32 array",
                    ('f"{a}"', "a"))


def test_dict_comprehension(fe):
    @ct.kernel
    def k(a):
        d = {i: i for i in range(3)}

    fe.expect_error(k, (fe.array(),), TileSyntaxError, "a dict comprehension is not supported",
                    "{i: i for i in range(3)}")


def test_list_comprehension(fe):
    @ct.kernel
    def k(a):
        xs = [i for i in range(3)]

    fe.expect_error(k, (fe.array(),), TileSyntaxError, "a list comprehension is not supported",
                    "[i for i in range(3)]")


def test_starred_assignment(fe):
    @ct.kernel
    def k(a):
        x, *rest = 1, 2, 3

    fe.expect_error(k, (fe.array(),), TileSyntaxError, "starred assignment is not supported",
                    "x, *rest = 1, 2, 3")


def test_assign_to_attribute(fe):
    @ct.kernel
    def k(a):
        a.flag = 1

    err = fe.expect_error(k, (fe.array(),), TileSyntaxError, "cannot assign to an attribute",
                          "a.flag = 1")
    assert "tilelang.store" in err.hint


def test_assign_to_subscript(fe):
    @ct.kernel
    def k(a):
        t = ct.zeros((4,), ct.float32)
        t[0] = 1.0

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "Tiles are immutable: item assignment is not supported", "t[0] = 1.0")


def test_augmented_assign_to_subscript(fe):
    @ct.kernel
    def k(a):
        t = ct.zeros((4,), ct.float32)
        t[0] += 1.0

    fe.expect_error(k, (fe.array(),), TileSyntaxError, "needs a plain name", "t[0] += 1.0")


@pytest.mark.parametrize(("source", "what"), [
    ("global g", "`global`"), ("import math", "`import`"), ("raise ValueError()", "`raise`"),
    ("{1, 2}", "a set"), ("(y := 3)", "`:=`"),
])
def test_other_statements(fe, source, what):
    @ct.kernel
    def k_global(a):
        global g

    @ct.kernel
    def k_import(a):
        import math

    @ct.kernel
    def k_raise(a):
        raise ValueError()

    @ct.kernel
    def k_set(a):
        {1, 2}

    @ct.kernel
    def k_walrus(a):
        (y := 3)

    kernel = {"global g": k_global, "import math": k_import, "raise ValueError()": k_raise,
              "{1, 2}": k_set, "(y := 3)": k_walrus}[source]
    fe.expect_error(kernel, (fe.array(),), TileSyntaxError, f"{what} is not supported",
                    source.strip("()") if what == "`:=`" else source)


# ----- names -----------------------------------------------------------------------------------


def test_undefined_name(fe):
    @ct.kernel
    def k(a):
        x = undefined_thing + 1

    fe.expect_error(k, (fe.array(),), ct.TileUndefinedVariableError,
                    "Undefined variable undefined_thing used: name `undefined_thing` is not "
                    "defined",
                    "undefined_thing")


def test_name_defined_on_one_branch(fe):
    @ct.kernel
    def k(a):
        if ct.bid(0) > 0:
            x = 1.0
        ct.store(a, (0,), x)

    err = fe.expect_error(k, (fe.array(),), TileUndefinedVariableError,
                          "`x` is only assigned on some paths through the `if`",
                          ("ct.store(a, (0,), x)", "x"))
    if_line, _, _ = fe.span(k.fn, "if ct.bid(0) > 0:")
    assert f"at line {if_line}" in err.message


def test_name_defined_only_in_loop(fe):
    @ct.kernel
    def k(a):
        for i in range(3):
            y = 2.0
        ct.store(a, (0,), y)

    fe.expect_error(k, (fe.array(),), TileUndefinedVariableError,
                    "`y` is assigned inside a loop body and not defined before it",
                    ("ct.store(a, (0,), y)", "y"))


def test_loop_variable_after_loop(fe):
    @ct.kernel
    def k(a, n):
        for i in range(n):
            pass
        ct.store(a, (0,), i)

    fe.expect_error(k, (fe.array(), 3), TileUndefinedVariableError, "`i` is a loop variable",
                    ("ct.store(a, (0,), i)", "i"))


# ----- control flow ----------------------------------------------------------------------------


def test_loop_carried_type_depends_on_path(fe):
    @ct.kernel
    def k(a):
        x = ct.zeros((16,), ct.int32)
        for i in range(3):
            x = ct.load(a, (0,), (16,))

    err = fe.expect_error(k, (fe.array(),), TileTypeError,
                          "Type of `x` depends on path taken", "for i in range(3):")
    assert "int32 tile of shape (16,)" in err.message
    assert "float32 tile of shape (16,)" in err.message


def test_if_carried_type_depends_on_path(fe):
    @ct.kernel
    def k(a):
        x = ct.zeros((16,), ct.int32)
        if ct.bid(0) > 0:
            x = ct.zeros((16,), ct.uint32)
        ct.store(a, (0,), x)

    err = fe.expect_error(k, (fe.array(),), TileTypeError, "Type of `x` depends on path taken",
                          ("ct.store(a, (0,), x)", "x"))  # when it is read
    if_line, _, _ = fe.span(k.fn, "if ct.bid(0) > 0:")
    assert f"at the `if` on line {if_line}" in err.message


def test_if_carried_shape_depends_on_path(fe):
    @ct.kernel
    def k(a):
        x = ct.zeros((16,), ct.float32)
        if ct.bid(0) > 0:
            x = ct.zeros((8,), ct.float32)
        ct.store(a, (0,), x)

    err = fe.expect_error(k, (fe.array(),), TileTypeError, "Type of `x` depends on path taken",
                          ("ct.store(a, (0,), x)", "x"))  # when it is read
    if_line, _, _ = fe.span(k.fn, "if ct.bid(0) > 0:")
    assert f"at the `if` on line {if_line}" in err.message


def test_tile_as_if_condition(fe):
    @ct.kernel
    def k(a):
        if ct.load(a, (0,), (16,)) > 0:
            pass

    err = fe.expect_error(k, (fe.array(),), TileTypeError,
                          "the condition of an `if` must be a scalar",
                          "ct.load(a, (0,), (16,)) > 0")
    assert "bool_ tile of shape (16,)" in err.message


def test_tile_as_while_condition(fe):
    @ct.kernel
    def k(a):
        while ct.load(a, (0,), (16,)):
            pass

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "the condition of a `while` loop must be a scalar", "ct.load(a, (0,), (16,))")


def test_tile_as_and_operand(fe):
    @ct.kernel
    def k(a):
        c = ct.bid(0) > 0 and ct.load(a, (0,), (16,)) > 0

    fe.expect_error(k, (fe.array(),), TileTypeError, "`and` needs scalars",
                    "ct.bid(0) > 0 and ct.load(a, (0,), (16,)) > 0")


def test_return_value_from_kernel(fe):
    @ct.kernel
    def k(a):
        return 1

    err = fe.expect_error(k, (fe.array(),), TileTypeError, "a kernel cannot return a value",
                          "return 1")
    assert "tilelang.store" in err.hint


def test_return_inside_a_for_loop(fe):
    def first_positive(n):
        for i in range(n):
            return i
        return 0

    @ct.kernel
    def k(a, n):
        ct.store(a, (0,), first_positive(n))

    fe.expect_error(k, (fe.array(), 4), TileSyntaxError,
                    "Returning from a for loop is not supported",
                    "return i", helper=first_positive, call_at="first_positive(n)")


def test_return_values_of_different_types(fe):
    def pick(c):
        if c:
            return 3
        return 5.0

    @ct.kernel
    def k(a):
        ct.store(a, (0,), pick(ct.bid(0) == 0))

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "Type of return value depends on path taken: constant 3 vs. constant 5.0",
                    "pick(ct.bid(0) == 0)")


def test_return_value_on_some_paths_only(fe):
    def pick(c, t):
        if c:
            return t

    @ct.kernel
    def k(a):
        ct.store(a, (0,), pick(ct.bid(0) == 0, 1.0))

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "Type of return value depends on path taken: constant 1.0 vs. None",
                    "pick(ct.bid(0) == 0, 1.0)")


def test_carried_value_that_changes_type_at_a_break(fe):
    @ct.kernel
    def k(a, n):
        i = 0
        while True:
            i += 1
            if i >= 5:
                v = ct.zeros((4,), ct.float32)
                break
            elif i >= n:
                v = ct.zeros((8,), ct.float32)
                break
        ct.store(a, (0,), v)

    err = fe.expect_error(k, (fe.array(), 3), TileTypeError,
                          "Type of `v` depends on path taken", ("ct.store(a, (0,), v)", "v"))
    assert "tile of shape (4,)" in err.message and "tile of shape (8,)" in err.message


def test_range_with_float_argument(fe):
    @ct.kernel
    def k(a):
        for i in range(3.0):
            pass

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "Expected a signed integer scalar, but got constant 3.0",
                    "range(3.0)")


def test_range_with_float_scalar(fe):
    @ct.kernel
    def k(a, x):
        for i in range(x):
            pass

    fe.expect_error(k, (fe.array(), 2.5), TileTypeError,
                    "Expected a signed integer scalar, but got float32", "range(x)")


def test_range_over_an_array(fe):
    @ct.kernel
    def k(a):
        for i in range(a):
            pass

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "Expected a scalar value, but given value has type 1-d float32 array",
                    "range(a)")


@pytest.mark.parametrize("step", [0, -2])
def test_range_constant_step_not_positive(fe, step):
    @ct.kernel
    def k(a, S: ct.Constant[int]):
        for i in range(8, 0, S):
            pass

    fe.expect_error(k, (fe.array(), step), TileTypeError, f"Step must be positive, got {step}",
                    "range(8, 0, S)")


def test_range_keyword_argument(fe):
    @ct.kernel
    def k(a):
        for i in range(8, step=2):
            pass

    fe.expect_error(k, (fe.array(),), TileTypeError, "range() takes no keyword arguments",
                    "range(8, step=2)")


def test_range_outside_for(fe):
    @ct.kernel
    def k(a):
        r = range(4)

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "range() can only be used as the iterable of a `for` loop", "range(4)")


def test_for_else(fe):
    @ct.kernel
    def k(a):
        for i in range(4):
            pass
        else:
            pass

    fe.expect_error(k, (fe.array(),), TileUnsupportedFeatureError,
                    "`for ... else` is not supported", "for i in range(4):")


def test_for_over_tile(fe):
    @ct.kernel
    def k(a):
        for v in ct.load(a, (0,), (16,)):
            pass

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "a `for` loop must iterate over range(...) or a constant tuple",
                    "for v in ct.load(a, (0,), (16,)):")


BLOCK_G = 16
TABLE_G = np.arange(4, dtype=np.float32)


def test_global_read_before_its_local_assignment(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (BLOCK_G,))  # noqa: F823
        BLOCK_G = 8  # assigned in k: local throughout k, as in Python

    fe.expect_error(k, (fe.array(),), TileSyntaxError, "Undefined variable BLOCK_G used",
                    ("t = ct.load(a, (0,), (BLOCK_G,))", "BLOCK_G"))


def test_global_array_used_in_a_kernel(fe):
    @ct.kernel
    def k(a):
        t = ct.load(TABLE_G, (0,), (4,))

    err = fe.expect_error(k, (fe.array(),), TileTypeError,
                          "Cannot create constant from value of type numpy.ndarray", "TABLE_G")
    assert "argument" in err.hint


def test_global_array_read_by_static_eval(fe):
    @ct.kernel
    def k(a):
        ct.store(a, (0,), ct.full((4,), ct.static_eval(float(TABLE_G[3])), ct.float32))

    assert "3.0" in fe.tile_ir(k, fe.array())


def test_augmented_assign_to_an_array_element_reads_it_first(fe):
    @ct.kernel
    def k(a):
        a[0] += 3

    fe.expect_error(k, (fe.array(),), TileTypeError, "Arrays are not directly subscriptable",
                    "a[0]")
