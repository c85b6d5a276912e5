"""static_eval and static_assert: Python evaluated while compiling, over the kernel's names."""

from __future__ import annotations

import enum

import numpy as np
import pytest

import tilelang as ct


class Op(enum.IntEnum):
    ADD = 0
    MUL = 1


FUNCS = {Op.ADD: ct.add, Op.MUL: ct.mul}


@ct.kernel
def pick(x, y, op: ct.Constant[int], N: ct.Constant[int]):
    t = ct.load(x, (0,), (N,))
    fn = ct.static_eval(FUNCS[Op(op)])  # a function chosen by a constant
    ct.static_assert(t.shape == (N,) and t.dtype == x.dtype)
    ct.store(y, (0,), fn(t, t) + ct.static_eval(len(t.shape) * 100 if op else -1))


@pytest.mark.parametrize("op", [0, 1])
def test_static_eval_picks_functions_and_values(it, rng, op):
    x = it.rand(rng, 40, "int32", low=-100, high=100)
    y = it.poison(40, "int32")
    it.launch(pick, (1,), x, y, op, 64)
    it.assert_same(y, (x * x + 100) if op else (x + x - 1))


@ct.kernel
def infinities(y):
    ct.store(y, (0,), ct.full((4,), float("-inf"), ct.float32) + float("1.5"))


def test_float_of_a_string_constant(it):
    y = it.poison(4, "float32")
    it.launch(infinities, (1,), y)
    it.assert_same(y, np.full(4, -np.inf, np.float32))


@ct.kernel
def unrolled(x, y, K: ct.Constant[int]):
    t = ct.load(x, (0,), (8,))
    states = ()
    for k in ct.static_iter(range(K)):  # one copy of the body per k, k a Python int
        states += (t * (k + 1),)
    total = ct.zeros((8,), ct.int32)
    for s in ct.static_iter(states[::-1]):
        total = total + s
    ct.store(y, (0,), total)


def test_static_iter_unrolls(it, rng):
    x = it.rand(rng, 8, "int32", low=-100, high=100)
    y = it.poison(8, "int32")
    it.launch(unrolled, (1,), x, y, 4)
    it.assert_same(y, x * 10)


@ct.kernel
def comprehensions(x, y):
    tiles = tuple(ct.load(x, (i,), (16,)) for i in ct.static_iter(range(3)))
    rotated = tuple(tiles[(i + 1) % 3] for i in ct.static_iter(range(3)))
    pairs = tuple(u - v for u, v in ct.static_iter(zip(tiles, rotated)) if True)
    sums = tuple(u + v for u in ct.static_iter(tiles[:2]) for v in ct.static_iter((tiles[0] * 2,)))
    for i, t in ct.static_iter(enumerate(rotated + pairs + sums)):
        ct.store(y, (i,), t)


def test_tuple_comprehensions(it, rng):
    x = it.rand(rng, 48, "int32", low=-100, high=100)
    y = it.poison(16 * 8, "int32")
    it.launch(comprehensions, (1,), x, y)
    a, b, c = x[:16], x[16:32], x[32:]
    want = np.concatenate([b, c, a, a - b, b - c, c - a, a + 2 * a, b + 2 * a])
    it.assert_same(y, want.astype(np.int32))


@ct.kernel
def numpy_scalars(x, y, N: ct.Constant[int]):
    ct.store(x, (0,), ct.full((N,), np.float16(1.5), np.float16) + np.float16())
    ct.store(y, (0,), ct.full((N,), np.int8(-3), np.int8))


def test_numpy_scalar_types_called_in_kernels(it):
    x, y = it.poison(8, "float16"), it.poison(8, "int8")
    it.launch(numpy_scalars, (1,), x, y, 8)
    it.assert_same(x, np.full(8, 1.5, np.float16))
    it.assert_same(y, np.full(8, -3, np.int8))


INT16 = np.dtype("int16")  # a dtype object of another library, called in the kernel


@ct.kernel
def dtype_constructors(x, y, N: ct.Constant[int]):
    ct.store(x, (0,), ct.full((N,), ct.float32(), ct.float32) + ct.float32(ct.bid(0) + 2))
    ct.store(y, (0,), ct.full((N,), INT16(-7), INT16) + ct.int16())


def test_dtype_constructors_without_argument_and_foreign(it):
    x, y = it.poison(4, "float32"), it.poison(4, "int16")
    it.launch(dtype_constructors, (1,), x, y, 4)
    it.assert_same(x, np.full(4, 2.0, np.float32))
    it.assert_same(y, np.full(4, -7, np.int16))


@ct.kernel
def symbolic(x, y, a, b):
    t = ct.load(x, (0,), (8,))
    ok = ct.static_eval((a > b) & (a << 2 >= b))  # Python operators on run-time scalars
    low = ct.static_eval(ct.minimum(a, b) - ct.maximum(a, 1))  # pure functions emit their op
    as_rows = ct.static_eval(t.reshape)  # a method, called outside
    width = ct.static_eval(t.shape[0])  # a Python int, with the tile methods of a 0-d tile
    ct.store(y, (0,), ct.where(ok, t, low) + as_rows((8,)) * width.astype(ct.int32))


@pytest.mark.parametrize(("a", "b"), [(5, 3), (1, 7), (-2, -9)])
def test_static_eval_of_run_time_scalars(it, rng, a, b):
    x = it.rand(rng, 8, "int32", low=-50, high=50)
    y = it.poison(8, "int32")
    it.launch(symbolic, (1,), x, y, a, b)
    ok = a > b and a << 2 >= b
    want = (x if ok else np.full(8, min(a, b) - max(a, 1), np.int32)) + x * 8
    it.assert_same(y, want.astype(np.int32))


@ct.kernel
def typed_constants_loosened(x):
    ct.scatter(x, 0, float(ct.float32(5.5)))  # loose: a float32 scalar would not fit float16
    ct.scatter(x, 1, int(ct.int64(3)) * 0.5)  # loose 3 * loose 0.5


def test_python_conversions_of_typed_constants_are_loose(it):
    x = it.poison(2, "float16")
    it.launch(typed_constants_loosened, (1,), x)
    it.assert_same(x, np.array([5.5, 1.5], np.float16))


SCALE = np.int16(4)  # a NumPy scalar global: a constant of its dtype, as in cuTile


@ct.kernel
def strict_constants(out, n: ct.Constant[int]):
    t = n + ct.int16(2)  # int16; a typed constant, folded
    scale, dtype = SCALE, SCALE.dtype  # in kernel code: an int16 constant
    ct.static_assert(t == 7 and dtype == ct.int16 and scale * 2 == 8)
    b = ct.arange(4, dtype=ct.int8) + t  # int16, as `t` is strictly typed
    ct.static_assert(b.dtype == ct.int16)
    ct.store(out, (0,), (b * SCALE).astype(ct.int32))


def test_typed_constants_fold_and_numpy_scalars_are_typed(it):
    out = it.poison(4, "int32")
    it.launch(strict_constants, (1,), out, 5)
    it.assert_same(out, (np.arange(4, dtype=np.int32) + 7) * 4)
