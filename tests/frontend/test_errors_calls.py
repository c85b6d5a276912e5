"""Front-end errors: calls (arity, keywords, kernels, Python functions, inlined helpers) and the
tracebacks users see from tilelang.compile and tilelang.launch."""
# ruff: noqa: F821, F841  (kernels written to exercise the compiler)

from __future__ import annotations

import math
import sys
import traceback

import numpy as np
import pytest

import tilelang as ct
from tilelang import (
    TileArgumentError,
    TileRecursionError,
    TileTypeError,
    TileValueError,
)
from tilelang.errors import UnsupportedCallError

# ----- kernel arguments ------------------------------------------------------------------------


@pytest.mark.parametrize("args", [(), (1, 2, 3)])
def test_wrong_argument_count_to_kernel(fe, args):
    @ct.kernel
    def k(a, BLOCK: ct.Constant[int]):
        pass

    with pytest.raises(TileArgumentError) as info:
        fe.compile(k, *args)
    err = info.value
    assert err.message == f"Kernel expects 2 arguments but {len(args)} were given: k(a, BLOCK)"
    assert err.loc is None and "one tuple" in err.hint
    fe.check_traceback(err)


def test_kernel_arguments_not_a_tuple(fe):
    @ct.kernel
    def k(a):
        pass

    with pytest.raises(TileArgumentError, match="kernel arguments must be a tuple") as info:
        ct.compile(k, fe.array(), stop_after="tile")
    fe.check_traceback(info.value)


# ----- builtins --------------------------------------------------------------------------------


def test_too_many_arguments_to_builtin(fe):
    @ct.kernel
    def k(a):
        i = ct.bid(0, 1)

    fe.expect_error(k, (fe.array(),), TileTypeError, "bid(): too many positional arguments",
                    "ct.bid(0, 1)")


def test_missing_argument_to_builtin(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,))

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "load(): missing a required argument: 'shape'", "ct.load(a, (0,))")


def test_unknown_keyword_argument(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (16,), pading_mode=ct.PaddingMode.ZERO)

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "load(): got an unexpected keyword argument 'pading_mode'",
                    "ct.load(a, (0,), (16,), pading_mode=ct.PaddingMode.ZERO)")


def test_positional_only_passed_by_keyword(fe):
    @ct.kernel
    def k(a):
        t = ct.exp(x=ct.load(a, (0,), (16,)))

    fe.expect_error(k, (fe.array(),), TileTypeError, "exp():",
                    "ct.exp(x=ct.load(a, (0,), (16,)))")


def test_wrong_argument_count_to_dtype(fe):
    @ct.kernel
    def k(a):
        x = ct.int16(1, 2)

    fe.expect_error(k, (fe.array(),), TileTypeError, "int16() takes at most one argument",
                    "ct.int16(1, 2)")


def test_double_star_arguments(fe):
    @ct.kernel
    def k(a):
        opts = (1,)
        t = ct.load(a, (0,), (16,), **opts)

    fe.expect_error(k, (fe.array(),), TileTypeError, "argument after ** must be a dict",
                    "ct.load(a, (0,), (16,), **opts)")


def test_print_takes_only_sep_and_end(fe):
    @ct.kernel
    def k(a):
        print(ct.bid(0), file=None)

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "print() in a kernel takes only `sep` and `end`, got `file`",
                    "print(ct.bid(0), file=None)")


# ----- kernels and Python functions ------------------------------------------------------------


def test_calling_a_kernel_from_a_kernel(fe):
    @ct.kernel
    def inner(a):
        pass

    @ct.kernel
    def k(a):
        inner(a)

    err = fe.expect_error(k, (fe.array(),), TileTypeError,
                          "a kernel cannot be called from a kernel", "inner(a)")
    assert "helper" in err.hint


@pytest.mark.parametrize("name", ["sorted", "np.sum", "math.sqrt"])
def test_calling_an_unsupported_python_function(fe, name):
    @ct.kernel
    def k_sorted(a):
        x = sorted((2, 1))

    @ct.kernel
    def k_numpy(a):
        x = np.sum(ct.load(a, (0,), (16,)))

    @ct.kernel
    def k_math(a):
        x = math.sqrt(ct.load(a, (0,), (16,)))

    kernel, at, cls, message = {
        "sorted": (k_sorted, "sorted((2, 1))", UnsupportedCallError,
                   "sorted() is not supported in device code"),
        "np.sum": (k_numpy, "np.sum(ct.load(a, (0,), (16,)))", TileTypeError,
                   "cannot be called in a kernel"),
        "math.sqrt": (k_math, "math.sqrt(ct.load(a, (0,), (16,)))", UnsupportedCallError,
                      "sqrt() is not supported in device code"),
    }[name]
    fe.expect_error(kernel, (fe.array(),), cls, message, at)


def test_constructing_a_plain_class(fe):
    class Plain:
        pass

    @ct.kernel
    def k(a):
        x = Plain()

    fe.expect_error(k, (fe.array(),), UnsupportedCallError,
                    'Creating instances of type "Plain" is not supported in device code',
                    "Plain()")


def test_eval_is_not_a_kernel_function(fe):
    @ct.kernel
    def k(a):
        eval("2 + 2")

    err = fe.expect_error(k, (fe.array(),), UnsupportedCallError,
                          "eval() is not supported in device code", 'eval("2 + 2")')
    assert isinstance(err, TileTypeError)  # cuTile's class, a TileTypeError in tilelang


def test_calling_a_host_only_language_function(fe):
    @ct.kernel
    def k(a):
        x = ct.load(a, (0,), (16,)).foo()

    fe.expect_error(k, (fe.array(),), TileTypeError, "a tile has no attribute `foo`",
                    "ct.load(a, (0,), (16,)).foo")


# ----- inlined helpers -------------------------------------------------------------------------


def test_error_inside_helper(fe):
    def add_bias(t):
        return t + ct.zeros((8,), ct.float32)

    @ct.kernel
    def k(a):
        x = add_bias(ct.load(a, (0,), (16,)))

    err = fe.expect_error(k, (fe.array(),), TileTypeError, "shapes (16,) and (8,) do not broadcast",
                          "t + ct.zeros((8,), ct.float32)", helper=add_bias,
                          call_at="add_bias(ct.load(a, (0,), (16,)))")
    text = str(err)
    assert text.index("in k:") < text.index("in add_bias:")  # innermost last, as Python


def test_error_in_nested_helpers(fe):
    def inner(t):
        return t.astype(ct.float32) & 1

    def outer(t):
        return inner(t) + 1.0

    @ct.kernel
    def k(a):
        x = outer(ct.load(a, (0,), (16,)))

    err = fe.expect_error(k, (fe.array(np.int32),), TileTypeError,
                          "Bitwise operations require integers or booleans",
                          "t.astype(ct.float32) & 1", helper=inner, call_at="inner(t)",
                          caller=outer)
    fe.check_loc(err.loc.call_site.call_site, k.fn, "outer(ct.load(a, (0,), (16,)))")
    assert err.loc.call_site.call_site.call_site is None


def test_undefined_name_inside_helper(fe):
    def helper(t):
        return t * scale

    @ct.kernel
    def k(a):
        x = helper(ct.load(a, (0,), (16,)))

    fe.expect_error(k, (fe.array(),), ct.TileUndefinedVariableError,
                    "name `scale` is not defined", "scale",
                    helper=helper, call_at="helper(ct.load(a, (0,), (16,)))")


def test_wrong_argument_count_to_helper(fe):
    def helper(t, u):
        return t + u

    @ct.kernel
    def k(a):
        x = helper(ct.bid(0))

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "helper(): missing a required argument: 'u'", "helper(ct.bid(0))")


def test_unknown_keyword_to_helper(fe):
    def helper(t, scale=1.0):
        return t * scale

    @ct.kernel
    def k(a):
        x = helper(ct.bid(0), scal=2.0)

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "helper(): got an unexpected keyword argument 'scal'",
                    "helper(ct.bid(0), scal=2.0)")


def test_recursive_helper(fe):
    def forever(t):
        return forever(t + 1)

    @ct.kernel
    def k(a):
        x = forever(ct.bid(0))

    with pytest.raises(TileRecursionError, match=r"Maximum recursion depth \(1000\) reached "
                       "while inlining a function call") as info:
        fe.compile(k, fe.array())
    err = info.value
    fe.check_loc(err.loc, forever, "forever(t + 1)")
    depth, loc = 0, err.loc
    while loc.call_site is not None:
        depth, loc = depth + 1, loc.call_site
    fe.check_loc(loc, k.fn, "forever(ct.bid(0))")
    assert depth == 999  # the kernel's call and 999 nested ones
    fe.check_traceback(err)
    text = str(err)
    assert text.count("\n  File ") == 8 and "... 992 more call sites ..." in text


def _count_down(t, n):
    if n > 0:
        return _count_down(t, n - 1) + 1
    return t


def test_recursion_to_a_compile_time_depth(fe):
    """A helper that recurses a constant number of times is inlined that many times (deeper
    than Python's own recursion limit would allow the front end by default)."""
    @ct.kernel
    def k(a, N: ct.Constant[int]):
        ct.store(a, (0,), _count_down(ct.load(a, (0,), (16,)), N))

    ir = fe.tile_ir(k, fe.array(np.int32), 300)
    assert ir.count('"tile.add"') == 300


def test_recursion_limit_is_restored(fe):
    import sys

    limit = sys.getrecursionlimit()
    fe.tile_ir(_recursion_kernel(), fe.array(np.int32))
    assert sys.getrecursionlimit() == limit


def _recursion_kernel():
    @ct.kernel
    def k(a):
        ct.store(a, (0,), _count_down(ct.load(a, (0,), (16,)), 3))

    return k


# ----- tracebacks ------------------------------------------------------------------------------


def _error_kernel():
    @ct.kernel(interpret=True)
    def k(a):
        x = ct.load(a, (0,), (16,)) + ct.load(a, (0,), (8,))

    return k


def test_no_compiler_frames_from_compile(fe):
    with pytest.raises(TileTypeError) as info:
        ct.compile(_error_kernel(), (fe.array(),))
    fe.check_traceback(info.value, caller="test_no_compiler_frames_from_compile")
    frames = traceback.extract_tb(info.value.__traceback__)
    if sys.version_info >= (3, 11):  # the traceback ends at the call of ct.compile
        assert frames[-1].filename == __file__ and "ct.compile(" in frames[-1].line


def test_no_compiler_frames_from_launch(fe):
    with pytest.raises(TileTypeError) as info:
        ct.launch(None, (1,), _error_kernel(), (fe.array(),))
    fe.check_traceback(info.value, caller="test_no_compiler_frames_from_launch")
    fe.check_rendering(info.value)


def test_no_compiler_frames_for_argument_errors(fe):
    with pytest.raises(TileArgumentError) as info:
        ct.launch(None, (1,), _error_kernel(), (fe.array(), 1))
    fe.check_traceback(info.value, caller="test_no_compiler_frames_for_argument_errors")


def test_constant_fold_error_keeps_no_python_context(fe):
    @ct.kernel
    def k(a):
        x = math.log(-1.0)

    err = fe.expect_error(k, (fe.array(),), TileValueError, "constant expression is invalid",
                          "math.log(-1.0)")
    printed = "".join(traceback.format_exception(err))
    assert "During handling" not in printed and "direct cause" not in printed


def test_dtype_constructor_of_unparsable_text(fe):
    @ct.kernel
    def k(a):
        ct.store(a, (0,), ct.full((4,), ct.float32("minus one"), ct.float32))

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "Invalid argument for float32: cannot parse 'minus one'",
                    'ct.float32("minus one")')
