"""Argument errors that say what a kernel takes: a Python list of numbers, an object of no
supported kind, a list where an array belongs; each names the argument and the kernel."""

from __future__ import annotations

from typing import Annotated, Any

import numpy as np
import pytest

import tilelang as ct
from tilelang.interface.arguments import ACCEPTED


@ct.kernel(interpret=True)
def takes_any(out, x):
    pass


@ct.kernel(interpret=True)
def takes_array(out, x: Annotated[ct.Array, ct.ArrayAnnotation()]):
    pass


OUT = np.zeros(4, np.float32)


def launch_error(kernel: Any, *args: Any) -> ct.TileArgumentError:
    with pytest.raises(ct.TileArgumentError) as info:
        ct.launch(None, (1,), kernel, args)
    return info.value


def test_a_list_of_numbers_says_a_list_holds_arrays() -> None:
    err = launch_error(takes_any, OUT, [1.0, 2.0])
    assert err.message == (
        "Invalid item #0 of kernel argument #1: expected an array, got float: argument `x` is "
        "a list, and a list argument holds arrays (of one dtype and rank)")
    assert err.hint.startswith("the argument is `x[0]` of kernel takes_any; to pass numbers, "
                               "pass a NumPy array (np.asarray(x)) or a tuple; kernels take ")
    assert ACCEPTED in err.hint


def test_an_unsupported_object_lists_what_is_accepted() -> None:
    err = launch_error(takes_any, OUT, {1, 2})
    assert "Invalid kernel argument #1: Objects of type 'set' are not supported" in err.message
    assert err.hint == f"the argument is `x` of kernel takes_any; {ACCEPTED}"


def test_a_list_for_an_array_parameter_says_how_to_make_an_array() -> None:
    err = launch_error(takes_array, OUT, [1, 2, 3])
    assert "Invalid kernel argument #1: expected an array, got list" in err.message
    assert "pass a NumPy array (np.asarray(x))" in err.hint and ACCEPTED in err.hint


def test_what_is_accepted_is_spelt_out() -> None:
    for kind in ("NumPy arrays", "CPU torch tensors", "CuPy arrays", "__dlpack__",
                 "__cuda_array_interface__", "Python int, float and bool", "NumPy scalars",
                 "tuples", "lists of arrays", "frozen dataclass", "Constant"):
        assert kind in ACCEPTED, kind
