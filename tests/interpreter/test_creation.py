"""full, zeros, ones and arange."""

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct

ALL_DTYPES = ["bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "bfloat16", "float32", "float64"]


@ct.kernel
def fill(y, VALUE: ct.Constant, SHAPE: ct.Constant, KIND: ct.Constant[str]):
    if KIND == "full":
        t = ct.full(SHAPE, VALUE, y.dtype)
    elif KIND == "zeros":
        t = ct.zeros(SHAPE, y.dtype)
    else:
        t = ct.ones(SHAPE, dtype=y.dtype)
    assert t.dtype == y.dtype and t.shape == SHAPE
    ct.store(y, (0,) * len(SHAPE), t)


CONSTANTS = {"bool_": True, "int8": -7, "int16": -300, "int32": 2**31 - 1, "int64": -(2**60),
             "uint8": 255, "uint16": 40000, "uint32": 2**32 - 1, "uint64": 2**64 - 1,
             "float16": -1.5, "bfloat16": 3.25, "float32": 0.1, "float64": 0.1}


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("kind", ["full", "zeros", "ones"])
@pytest.mark.parametrize("shape", [(1,), (3, 5), (2, 1, 4)])
def test_factories(it, dtype, kind, shape):
    value = CONSTANTS[dtype]
    y = it.poison(shape, dtype)
    it.launch(fill, (1,), y, value, shape, kind)
    want = {"full": value, "zeros": 0, "ones": 1}[kind]
    it.assert_same(y, np.full(shape, want, it.np_dtype(dtype)))


@ct.kernel
def fill_runtime(y, v, B: ct.Constant[int]):
    ct.store(y, (0, 0), ct.full((2, B), v, y.dtype))


F32_THIRD = float(np.float32(1.0 / 3))  # a Python float argument is a float32 scalar


@pytest.mark.parametrize(("dtype", "value", "want"), [
    ("float32", 2.5, 2.5), ("float16", 1e5, np.inf), ("bfloat16", 1.0 / 3, 0.333984375),
    ("float64", 1.0 / 3, F32_THIRD), ("int8", 1000, -24), ("int32", -(2**40) + 5, 5),
    ("uint8", -1, 255), ("uint16", 7, 7), ("int16", 3.9, 3), ("int8", -3.9, -3),
    ("uint32", 1e20, 2**32 - 1), ("int64", -1e30, -(2**63)), ("int64", float("nan"), 0),
    ("bool_", 0.5, True), ("bool_", 0, False), ("bool_", -2, True),
])
def test_full_from_runtime_scalar(it, dtype, value, want):
    """A run-time fill value is converted with astype's rules (wrap, truncate, saturate)."""
    y = it.poison((2, 8), dtype)
    if dtype == "bool_":
        y[...] = not want
    it.launch(fill_runtime, (1,), y, value, 8)
    it.assert_same(y, np.full((2, 8), want, it.np_dtype(dtype)))


@ct.kernel
def fill_from_tile(x, y):
    s = ct.full((), 3, ct.int16) * ct.load(x, (0,), (1,)).reshape(())
    ct.store(y, (0,), ct.full((4,), s, ct.float32))


def test_full_from_scalar_tile(it):
    x = np.array([-5], np.int16)
    y = it.poison(4, np.float32)
    it.launch(fill_from_tile, (1,), x, y)
    it.assert_same(y, np.full(4, -15, np.float32))


@ct.kernel
def fill_parsed(y):
    ct.store(y, (0,), ct.full((5,), ct.float32("-inf"), ct.float32) + ct.int32(" 7 "))


def test_dtype_constructors_parse_strings(it):
    """ct.float32("-inf") and ct.int32("7") parse their text, as NumPy's scalar types do."""
    y = it.poison(5, np.float32)
    it.launch(fill_parsed, (1,), y)
    it.assert_same(y, np.full(5, -np.inf, np.float32))


@ct.kernel
def arange_kernel(y, SIZE: ct.Constant[int], START: ct.Constant, STEP: ct.Constant):
    t = ct.arange(SIZE, dtype=y.dtype, start=START, step=STEP)
    assert t.shape == (SIZE,) and t.dtype == y.dtype
    ct.store(y, (0,), t)


@pytest.mark.parametrize(("dtype", "size", "start", "step"), [
    ("int32", 1, 0, 1), ("int32", 16, 0, 1), ("int32", 8, 7, -1), ("int64", 8, -(2**40), 2**35),
    ("int8", 32, -100, 6), ("uint8", 16, 250, 1), ("uint16", 4, 3, 3), ("int16", 2, 2, -7),
    ("float32", 8, 0.5, 0.25), ("float64", 16, -1.0, 0.1), ("float16", 8, 1, 2),
    ("bfloat16", 4, 0, -0.5), ("uint64", 8, 2**63, 2**60),
])
def test_arange(it, dtype, size, start, step):
    y = it.poison(size, dtype)
    it.launch(arange_kernel, (1,), y, size, start, step)
    d = it.np_dtype(dtype)
    if it.is_float(d):  # computed as arange * step + start, each rounded to the dtype
        w = np.arange(size).astype(d).astype(np.float64 if d == np.float64 else np.float32)
        w = (w * d.type(step).astype(w.dtype)).astype(d).astype(w.dtype)
        want = (w + d.type(start).astype(w.dtype)).astype(d)
    else:
        want = np.array([(start + k * step) % 2**(8 * d.itemsize) for k in range(size)],
                        np.uint64).astype(d)  # integers wrap
    it.assert_same(y, want)


@ct.kernel
def arange_runtime(y, start, step):
    ct.store(y, (0,), ct.arange(8, dtype=ct.int32, start=start, step=step))
    ct.store(y, (1,), ct.arange(8, dtype=ct.float32) + 0.5)


def test_arange_runtime_start_and_step(it):
    y = it.poison(16, np.int32)
    with pytest.raises(ct.TileTypeError):  # float32 tile into an int32 array
        it.launch(arange_runtime, (1,), y, 5, -2)
    y = it.poison(16, np.float32)
    it.launch(arange_runtime, (1,), y, 5, -2)
    it.assert_same(y, np.concatenate([5 - 2 * np.arange(8), np.arange(8) + 0.5])
                   .astype(np.float32))


@ct.kernel
def arange_float_start_step(y, z):
    ct.store(y, (0,), ct.arange(8, dtype=ct.int8, step=2.5))
    ct.store(z, (0,), ct.arange(4, dtype=ct.int64, start=8.5, step=-1.1))


def test_arange_float_start_and_step_with_int_dtype_truncate(it):
    y, z = it.poison(8, "int8"), it.poison(4, "int64")  # as astype: 2.5 -> 2, -1.1 -> -1
    it.launch(arange_float_start_step, (1,), y, z)
    it.assert_same(y, np.arange(0, 16, 2, dtype=np.int8))
    it.assert_same(z, np.array([8, 7, 6, 5], np.int64))
