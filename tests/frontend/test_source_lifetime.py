"""frontend/source.py keeps a function's parsed source on the function itself: a kernel made at
run time goes, with all it compiled, once nothing else holds it; wrappers and replaced code are
parsed again, never served another function's source."""

from __future__ import annotations

import functools
import gc
import weakref

import numpy as np

import tilelang as ct
from tilelang.frontend import source


def make_kernel(scale: float):
    @ct.kernel
    def scaled(x, y, B: ct.Constant[int]):
        i = ct.bid(0)
        ct.store(y, (i,), ct.load(x, (i,), (B,)) * scale)

    return scaled


def test_a_kernel_made_at_run_time_is_freed_with_what_it_compiled() -> None:
    x = np.ones(64, np.float32)
    kernel = make_kernel(2.0)
    ct.launch(None, (4,), kernel.replace_hints(interpret=True), (x, np.empty_like(x), 16))
    ct.compile(kernel, (x, x, 16), stop_after="tile")
    gone = weakref.ref(kernel.fn), weakref.ref(kernel)
    del kernel
    gc.collect()
    assert [ref() for ref in gone] == [None, None]


def test_the_source_is_kept_on_the_function() -> None:
    kernel = make_kernel(1.0)
    first = source.parse_function(kernel.fn)
    assert source.parse_function(kernel.fn) is first
    assert source.parse_function(make_kernel(1.0).fn) is not first  # another closure


def test_a_wrapper_is_parsed_as_itself() -> None:
    """functools.wraps copies the wrapped function's __dict__ (where its source is kept)."""
    def inner(x):
        return x

    inner_source = source.parse_function(inner)

    @functools.wraps(inner)
    def outer(x):
        return inner(x) + 1

    assert source.parse_function(outer).text != inner_source.text
    assert "inner(x) + 1" in source.parse_function(outer).text
    assert "inner(x) + 1" in source.function_text(outer)[0]


def test_replaced_code_is_parsed_again() -> None:
    def f(x):
        return x

    def g(x):
        return -x

    assert "return x" in source.function_text(f)[0]
    f.__code__ = g.__code__
    assert "return -x" in source.function_text(f)[0]
    assert "return -x" in source.parse_function(f).text
