"""Kernel parameters: Constant[...] values, run-time scalars, and Array attributes."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tilelang as ct


@ct.kernel
def constants(a, out, N: ct.Constant[int], F: ct.Constant[float], B: ct.Constant[bool]):
    x = ct.load(a, (0,), (N,))  # a Constant[int] is a compile-time shape
    if B:  # decided at compile time
        y = x * F + N
    else:
        y = x - F * N
    assert y.shape == (N,)
    ct.store(out, (0,), y)


@pytest.mark.parametrize(("n", "f", "b"), [(4, 0.5, True), (8, -2.25, False), (1, 1e-3, True),
                                           (16, 3.0, False)])
def test_constant_parameters(it, rng, n, f, b):
    x = it.rand(rng, n, "float32")
    out = it.poison(16, np.float32)
    it.launch(constants, (1,), x, out, n, f, b)
    want = it.poison(16, np.float32)
    f32 = np.float32(f)
    want[:n] = x * f32 + np.float32(n) if b else x - np.float32(f * n)  # F * N folds in Python
    it.assert_same(out, want)


@ct.kernel
def constant_kinds(a, out, C: ct.Constant):
    ct.store(out, (0,), (ct.load(a, (0,), (2,)) + C).astype(ct.float64))
    ct.store(out, (1,), ct.full((2,), 1.0, ct.float64) / C)


def test_equal_constants_of_different_kinds_specialize_separately(it):
    """1, 1.0 and True (and 0.0 / -0.0) are equal in Python but type the kernel differently."""
    x = np.array([127, -128], np.int8)
    results = {}
    for c in (1, 1.0, True, 0.0, -0.0):
        out = it.poison(4, np.float64)
        it.launch(constant_kinds, (1,), x, out, c)
        results[repr(c)] = out
    it.assert_same(results["1"], np.array([-128, -127, 1, 1], np.float64))  # int8 wraps
    it.assert_same(results["1.0"], np.array([128, -127, 1, 1], np.float64))  # float32
    it.assert_same(results["True"], np.array([-128, -127, 1, 1], np.float64))
    it.assert_same(results["0.0"], np.array([127, -128, np.inf, np.inf], np.float64))
    it.assert_same(results["-0.0"], np.array([127, -128, -np.inf, -np.inf], np.float64))


@ct.kernel
def runtime_scalars(out, i, f, b, big):
    assert i.dtype == ct.int32 and f.dtype == ct.float32 and b.dtype == ct.bool_
    assert big.dtype == ct.int64 and i.shape == () and f.ndim == 0
    ct.store(out, (0,), i * 2)
    ct.store(out, (1,), f + 0.25)
    ct.store(out, (2,), ct.where(b, 10, 20))
    ct.store(out, (3,), big // 2**20)
    ct.store(out, (4,), f * i)


@pytest.mark.parametrize(("i", "f", "b", "big"), [(3, 1.5, True, 2**40), (-7, -0.1, False, -2**50),
                                                  (0, 1e30, True, 2**63 - 1)])
def test_runtime_scalar_parameters(it, i, f, b, big):
    out = it.poison(5, np.float64)
    it.launch(runtime_scalars, (1,), out, i, f, b, big)
    f32 = np.float32(f)
    want = [i * 2, f32 + np.float32(0.25), 10 if b else 20, big // 2**20, f32 * np.float32(i)]
    it.assert_same(out, np.array(want, np.float64))


@ct.kernel
def scalar_echo(out, s):
    ct.store(out, (0,), s)


@pytest.mark.parametrize("value", [np.float64(0.1), np.int16(-3), np.uint8(200)])
def test_numpy_scalar_parameters(it, value):
    out = it.poison(1, value.dtype)
    it.launch(scalar_echo, (1,), out, value)
    it.assert_same(out, np.array([value]))


@ct.kernel
def array_attributes(x, out):
    assert x.ndim == 3 and x.dtype == ct.int16 and len(x.shape) == 3 and len(x.strides) == 3
    m, n, k = x.shape
    sm, sn, sk = x.strides
    for i, v in ((0, m), (1, n), (2, k), (3, sm), (4, sn), (5, sk), (6, m * n * k)):
        assert v.dtype == ct.int32
        ct.store(out, (i,), v)
    ct.store(out, (7,), len(x))


@pytest.mark.parametrize("view", [
    "contiguous", "sliced", "transposed",
    pytest.param("reversed", marks=pytest.mark.interpreter_only),  # torch has no negative strides
    pytest.param("torch", marks=pytest.mark.interpreter_only),  # a CPU tensor
])
def test_array_shape_and_strides(it, view):
    base = np.zeros((6, 10, 8), np.int16)
    x = {"contiguous": base, "sliced": base[1:5, ::3, 2:], "transposed": base.transpose(2, 0, 1),
         "reversed": base[::-1, :, ::-2], "torch": torch.zeros(6, 10, 8, dtype=torch.int16)
         .permute(1, 2, 0)[::2]}[view]
    shape = tuple(x.shape)
    strides = tuple(x.stride()) if view == "torch" else tuple(s // 2 for s in x.strides)
    out = it.poison(8, np.int64)
    it.launch(array_attributes, (1,), x, out)
    it.assert_same(out, np.array([*shape, *strides, np.prod(shape), shape[0]], np.int64))


@ct.kernel
def shape_driven(x, out, B: ct.Constant[int]):
    n = x.shape[0]
    for t in range(ct.cdiv(n, B)):
        v = ct.load(x, (t,), (B,))
        ct.store(out, (t,), v + n)


@pytest.mark.parametrize("n", [1, 7, 16, 33])
def test_loop_over_runtime_shape(it, rng, n):
    x = it.rand(rng, n, "int64")
    out = it.poison(n, np.int64)
    it.launch(shape_driven, (1,), x, out, 8)
    it.assert_same(out, x + n)


@ct.kernel
def dtype_from_array(x, out):
    t = ct.load(x, (0,), (4,))
    ct.store(out, (0,), ct.full((4,), 2, x.dtype) * t + ct.ones((4,), out.dtype))


@pytest.mark.parametrize(("dx", "do"), [("int8", "int8"), ("uint16", "uint32"),
                                        ("bfloat16", "float32")])
def test_array_dtype_in_kernel(it, rng, dx, do):
    x = it.rand(rng, 4, dx, low=0, high=50)
    out = it.poison(4, do)
    it.launch(dtype_from_array, (1,), x, out)
    d = it.np_dtype(do)
    if dx == "bfloat16":
        want = ((x.astype(np.float32) * 2).astype(x.dtype).astype(np.float32) + 1).astype(d)
    else:
        want = (x * 2).astype(x.dtype).astype(d) + 1
    it.assert_same(out, want)
