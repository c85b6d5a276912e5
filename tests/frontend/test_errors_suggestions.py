"""Front-end errors that suggest the fix: a misspelt name, attribute or keyword argument gets
"Did you mean: ...?" with the closest name (difflib's, as Python's own suggestions), and
nothing when no name is close.

Same checks as test_errors_syntax.py: class, message, exact span, rendering, clean traceback,
and a healthy compiler afterwards.
"""
# ruff: noqa: F821, F841  (kernels written to exercise the compiler)

from __future__ import annotations

import pytest

import tilelang as ct
from tilelang import TileNameError, TileTypeError
from tilelang.errors import TileUndefinedVariableError, did_you_mean


def test_misspelt_module_function(fe):
    @ct.kernel
    def k(a):
        t = ct.lod(a, (0,), (16,))

    err = fe.expect_error(k, (fe.array(),), TileTypeError,
                          "Module 'tilelang' has no attribute 'lod'. Did you mean: 'load'?",
                          "ct.lod")
    assert err.message == "Module 'tilelang' has no attribute 'lod'. Did you mean: 'load'?"


def test_unknown_module_function_without_a_close_name(fe):
    @ct.kernel
    def k(a):
        t = ct.no_such_function_at_all(a)

    err = fe.expect_error(k, (fe.array(),), TileTypeError,
                          "Module 'tilelang' has no attribute 'no_such_function_at_all'",
                          "ct.no_such_function_at_all")
    assert "Did you mean" not in err.message


def test_misspelt_tile_attribute(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (16,))
        n = t.shap

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "a tile has no attribute `shap`. Did you mean: `shape`?", "t.shap")


def test_misspelt_tile_method(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (16,)).astyp(ct.float16)

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "a tile has no attribute `astyp`. Did you mean: `astype`?",
                    "ct.load(a, (0,), (16,)).astyp")


def test_misspelt_array_attribute(fe):
    @ct.kernel
    def k(a):
        n = a.strdes

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "an array has no attribute `strdes`. Did you mean: `strides`?", "a.strdes")


def test_misspelt_dtype_attribute(fe):
    @ct.kernel
    def k(a):
        d = ct.float32.bitwidht

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "has no attribute `bitwidht`. Did you mean: `bitwidth`?",
                    "ct.float32.bitwidht")


def test_misspelt_keyword_of_a_language_function(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, index=(0,), shpe=(16,))

    # reported before the `shape` it leaves missing, with the parameter it meant
    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "load(): got an unexpected keyword argument 'shpe'. Did you mean: 'shape'?",
                    "ct.load(a, index=(0,), shpe=(16,))")


def test_misspelt_keyword_of_a_tile_method(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (16,)).reshape(shap=(4, 4))

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "reshape(): got an unexpected keyword argument 'shap'. Did you mean: 'shape'?",
                    "ct.load(a, (0,), (16,)).reshape(shap=(4, 4))")


def scaled(t, scale=2.0):
    return t * scale


def test_misspelt_keyword_of_a_helper(fe):
    @ct.kernel
    def k(a):
        t = scaled(ct.load(a, (0,), (16,)), scal=3.0)

    fe.expect_error(k, (fe.array(),), TileTypeError,
                    "scaled(): got an unexpected keyword argument 'scal'. Did you mean: 'scale'?",
                    "scaled(ct.load(a, (0,), (16,)), scal=3.0)")


def test_unknown_keyword_without_a_close_name(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (16,), colour=1)

    err = fe.expect_error(k, (fe.array(),), TileTypeError,
                          "load(): got an unexpected keyword argument 'colour'",
                          "ct.load(a, (0,), (16,), colour=1)")
    assert "Did you mean" not in err.message


def test_misspelt_variable(fe):
    @ct.kernel
    def k(a):
        total = ct.load(a, (0,), (16,))
        ct.store(a, (0,), totl)

    err = fe.expect_error(k, (fe.array(),), TileUndefinedVariableError,
                          "name `totl` is not defined. Did you mean: `total`?", "totl")
    assert isinstance(err, TileNameError)


@pytest.mark.parametrize(("name", "candidates", "expected"), [
    ("lod", ["load", "store", "lerp"], ". Did you mean: `load`?"),
    ("shape", ["shape"], ""),  # the name itself is never suggested
    ("x", ["load", "store"], ""),
    ("dtyp", ["_dtyp", "dtype"], ". Did you mean: `dtype`?"),  # private names left out
])
def test_did_you_mean(name, candidates, expected):
    assert did_you_mean(name, candidates) == expected
