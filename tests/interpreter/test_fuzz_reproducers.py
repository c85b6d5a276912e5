"""The wrong answers fuzzing found (issue 22), on the interpreter: extrema of NaN rows of any
length, integer // and % by zero and MIN // -1."""

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct
from tilelang.testing import trust


@pytest.mark.parametrize("propagate_nan", [False, True])
@pytest.mark.parametrize("n", [1, 2, 3, 5, 6, 7, 8, 100])
def test_extrema_of_nan_rows(n: int, propagate_nan: bool) -> None:
    kernel = trust.make_nan_extrema(n, propagate_nan).replace_hints(interpret=True)
    rng = np.random.default_rng(n)
    rows = [np.full(n, np.nan, np.float32), rng.normal(size=n).astype(np.float32)]
    rows[1][rng.integers(0, n)] = np.nan
    for x in rows:
        out = np.full(4, -7.0, np.float32)
        ct.launch(None, (1,), kernel, (x, out))
        np.testing.assert_array_equal(out, trust.expected_extrema(x, propagate_nan))


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint32"])
def test_integer_division_by_zero_and_minus_one(dtype: str) -> None:
    shape, divisor = (5, 7, 2), (1, 7, 2)
    kernel = trust.make_int_division(shape, divisor).replace_hints(interpret=True)
    a, b = trust.division_operands(np.dtype(dtype), shape, np.random.default_rng(3))
    outs = [np.full(shape, 99, dtype) for _ in range(4)]
    ct.launch(None, (1,), kernel, (a, b, *outs))
    q, r = trust.expected_division(a, b)
    np.testing.assert_array_equal(outs[0], q)
    np.testing.assert_array_equal(outs[1], r)
    assert not outs[2].any() and not outs[3].any()
