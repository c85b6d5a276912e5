"""Run-time for / if / while, and helper functions inlined into kernels."""

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct


@ct.kernel
def range_sums(out, lo, hi, step):
    s1 = 0
    for k in range(hi):
        s1 += k
    s2 = 0
    for k in range(lo, hi):
        s2 += k * k
    s3 = 0
    for k in range(lo, hi, 3):
        s3 += k + 1
    s4 = 0
    for j in range(hi - lo):  # counting down: a constant step must be positive (cuTile)
        s4 = s4 * 3 + (hi - j)
    s5 = 0
    for j in range(0, hi - lo, 3):
        s5 = s5 * 5 + (hi - j)
    s6 = 0
    for k in range(lo, hi, step):
        s6 = s6 * 7 + k
    n = 0
    for _ in range(lo, hi):
        n += 1
    for i, v in ((0, s1), (1, s2), (2, s3), (3, s4), (4, s5), (5, s6), (6, n)):
        ct.store(out, (i,), v)


@pytest.mark.parametrize(("lo", "hi", "step"), [(0, 0, 1), (0, 1, 1), (2, 11, 2), (-5, 7, 4),
                                                (5, 3, 1), (-3, -3, 2), (-10, -1, 5), (0, 30, 30)])
def test_range_loops(it, lo, hi, step):
    out = it.poison(7, np.int64)
    it.launch(range_sums, (1,), out, lo, hi, step)

    def horner(values, base):
        acc = 0
        for v in values:
            acc = acc * base + v
        return acc

    want = [sum(range(hi)), sum(k * k for k in range(lo, hi)),
            sum(k + 1 for k in range(lo, hi, 3)), horner(range(hi, lo, -1), 3),
            horner(range(hi, lo, -3), 5), horner(range(lo, hi, step), 7), len(range(lo, hi))]
    it.assert_same(out, np.array([v % 2**32 for v in want], np.uint32).astype(np.int32)
                   .astype(np.int64))


@ct.kernel
def countdown(out, lo, hi, STEP: ct.Constant[int]):
    count = 0
    last = -1000
    total = 0
    for j in range(0, hi - lo, STEP):
        k = hi - j
        count += 1
        last = k
        total += k
    ct.store(out, (0,), count)
    ct.store(out, (1,), last)
    ct.store(out, (2,), total)


@pytest.mark.parametrize("step", [1, 2, 3, 7])
@pytest.mark.parametrize(("lo", "hi"), [(0, 10), (-4, 9), (3, 3), (5, 2), (-20, -1), (0, 1)])
def test_countdown_with_constant_steps(it, lo, hi, step):
    out = it.poison(3, np.int32)
    it.launch(countdown, (1,), out, lo, hi, step)
    r = range(hi, lo, -step)
    it.assert_same(out, np.array([len(r), r[-1] if r else -1000, sum(r)], np.int32))


@ct.kernel
def runtime_step(out, step):
    acc = 0
    for k in range(0, 10, step):
        acc += k
    ct.store(out, (0,), acc)


@pytest.mark.interpreter_only  # the GPU cannot raise
def test_runtime_step_must_be_positive(it):
    out = it.poison(1, np.int32)
    it.launch(runtime_step, (1,), out, 4)
    it.assert_same(out, np.array([0 + 4 + 8], np.int32))
    with pytest.raises(ct.TileInterpreterError):
        it.launch(runtime_step, (1,), out, -1)


@ct.kernel
def int64_loop(out, lo, hi):
    acc = ct.int64(0)
    for k in range(lo, hi):
        acc += k
    ct.store(out, (0,), acc)


def test_int64_loop_bounds(it):
    out = it.poison(1, np.int64)
    lo = 2**40
    it.launch(int64_loop, (1,), out, lo, lo + 5)
    it.assert_same(out, np.array([5 * lo + 10], np.int64))


@ct.kernel
def row_sums(x, out, BM: ct.Constant[int], BK: ct.Constant[int]):
    i = ct.bid(0)
    acc = ct.zeros((BM, BK), ct.float32)
    for k in range(ct.num_tiles(x, axis=1, shape=(BM, BK))):
        acc += ct.load(x, (i, k), (BM, BK), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    ct.store(out, (i, 0), acc)


@pytest.mark.parametrize(("m", "k"), [(1, 1), (5, 23), (16, 64), (9, 100)])
def test_loop_carried_tile(it, rng, m, k):
    x = it.rand(rng, (m, k), "float16")
    out = it.poison((m, 8), np.float32)
    it.launch(row_sums, (-(-m // 4),), x, out, 4, 8)
    padded = np.zeros((m, -(-k // 8) * 8), np.float32)
    padded[:, :k] = x.astype(np.float32)
    want = np.zeros((m, 8), np.float32)
    for c in range(padded.shape[1] // 8):  # accumulate in the same order as the kernel
        want += padded[:, 8 * c : 8 * c + 8]
    it.assert_same(out, want)


@ct.kernel
def loose_carried(a, out, out2):
    x = ct.load(a, (0,), (8,))
    acc = 0
    for _ in range(3):
        acc = acc + x  # a carried loose 0 is materialized as int32, so int32 + int8 -> int32
    facc = 0.0
    for _ in range(2):
        facc += x  # the loose 0.0 makes the carried tile float32
    assert acc.dtype == ct.int32 and facc.dtype == ct.float32 and acc.shape == (8,)
    ct.store(out, (0,), acc)
    ct.store(out2, (0,), facc)


def test_loose_constant_becomes_carried_tile(it, rng):
    x = it.rand(rng, 8, "int8")
    out, out2 = it.poison(8, np.int32), it.poison(8, np.float32)
    it.launch(loose_carried, (1,), x, out, out2)
    it.assert_same(out, x.astype(np.int32) * 3)
    it.assert_same(out2, x.astype(np.float32) * 2)


@ct.kernel
def nested_loops(out, n, m):
    acc = 0
    for i in range(n):
        for j in range(i, m):
            if (i + j) % 3 == 0:
                acc += i * 10 + j
            else:
                acc -= 1
    ct.store(out, (0,), acc)


@pytest.mark.parametrize(("n", "m"), [(0, 5), (4, 4), (6, 9), (3, 0)])
def test_nested_loops_with_if(it, n, m):
    out = it.poison(1, np.int32)
    it.launch(nested_loops, (1,), out, n, m)
    want = sum(i * 10 + j if (i + j) % 3 == 0 else -1 for i in range(n) for j in range(i, m))
    it.assert_same(out, np.array([want], np.int32))


@ct.kernel
def branches(a, out, t):
    i = ct.bid(0)
    x = ct.load(a, (i,), (4,))
    if i % 3 == 0:
        y = x * 2
    elif i % 3 == 1:
        y = x - t
    else:
        y = -x
    z = x
    if i > t:  # no else: z keeps its value on the other path
        z = z + 100
    w = x + 1 if i == 0 else x - 1  # a conditional expression on a run-time scalar
    if (i >= 1 and i < 3) or i == 5:
        w = w * 0
    ct.store(out, (0, i), y[None, :])
    ct.store(out, (1, i), z[None, :])
    ct.store(out, (2, i), w[None, :])


@pytest.mark.parametrize("t", [-1, 2, 10])
def test_if_elif_else(it, rng, t):
    x = it.rand(rng, 26, "int32", low=-1000, high=1000)
    out = it.poison((3, 26), np.int32)
    it.launch(branches, (7,), x, out, t)
    want = np.zeros((3, 26), np.int32)
    for i in range(7):
        s = slice(4 * i, 4 * i + 4)
        want[0, s] = [x[s] * 2, x[s] - t, -x[s]][i % 3]
        want[1, s] = x[s] + 100 if i > t else x[s]
        w = x[s] + 1 if i == 0 else x[s] - 1
        want[2, s] = w * 0 if (1 <= i < 3 or i == 5) else w
    it.assert_same(out, want)


@ct.kernel
def if_in_loop_with_store(a, out, n):
    for k in range(n):
        x = ct.load(a, (k,), (4,))
        if ct.bid(0) == 0:
            ct.store(out, (k,), x * k)
        else:
            ct.store(out, (k,), x)


def test_stores_inside_branches_and_loops(it, rng):
    x = it.rand(rng, 14, "float32")
    big = it.poison(20, np.float32)
    out = big[:14]
    it.launch(if_in_loop_with_store, (1,), x, out, 3)  # tiles 0..2: elements 0..11
    want = it.poison(20, np.float32)
    want[:12] = x[:12] * np.repeat(np.arange(3, dtype=np.float32), 4)
    it.assert_same(big, want)


@ct.kernel
def while_loops(out, n, limit):
    k = 0
    s = 0
    while k < n:
        s += k * k
        k += 1
    p = 1
    steps = 0
    while p <= limit:
        p = p * 2
        steps += 1
    ct.store(out, (0,), s)
    ct.store(out, (1,), k)
    ct.store(out, (2,), p)
    ct.store(out, (3,), steps)


@pytest.mark.parametrize(("n", "limit"), [(0, 0), (1, 1), (10, 1000), (-3, 64)])
def test_while(it, n, limit):
    out = it.poison(4, np.int32)
    it.launch(while_loops, (1,), out, n, limit)
    p, steps = 1, 0
    while p <= limit:
        p, steps = p * 2, steps + 1
    want = [sum(k * k for k in range(max(n, 0))), max(n, 0), p, steps]
    it.assert_same(out, np.array(want, np.int32))


@ct.kernel
def while_tile(a, out):
    x = ct.load(a, (0,), (8,))
    n = 0
    while n < 4:
        x = ct.where(x > 1.0, x * 0.5, x)
        n += 1
    ct.store(out, (0,), x)


def test_while_with_carried_tile(it, rng):
    x = it.rand(rng, 8, "float32", low=0, high=40)
    out = it.poison(8, np.float32)
    it.launch(while_tile, (1,), x, out)
    want = x.copy()
    for _ in range(4):
        want = np.where(want > 1.0, want * np.float32(0.5), want)
    it.assert_same(out, want)


# ----- helpers ---------------------------------------------------------------------------------


def scale_and_shift(t, scale, shift=1):
    return t * scale + shift


def split_signs(t):
    return ct.maximum(t, 0), ct.minimum(t, 0)


def both(t, k):
    pos, neg = split_signs(t)
    return scale_and_shift(pos, k), scale_and_shift(neg, k, shift=-1), pos.shape[0]


def load_row(x, i, n):
    return ct.load(x, (i,), (n,), padding_mode=ct.PaddingMode.ZERO)


def store_twice(out, i, t):
    ct.store(out, (2 * i,), t)
    ct.store(out, (2 * i + 1,), -t)


OFFSET = 3


@ct.kernel
def with_helpers(x, out, K: ct.Constant[int]):
    i = ct.bid(0)
    t = load_row(x, i, 4)
    a, b, n = both(t, K)
    assert n == 4
    store_twice(out, i, a + b + OFFSET + n)


@pytest.mark.parametrize("k", [1, 3])
def test_helper_functions(it, rng, k):
    x = it.rand(rng, 10, "int32", low=-50, high=50)
    out = it.poison(24, np.int32)
    it.launch(with_helpers, (3,), x, out, k)
    xp = np.zeros(12, np.int32)
    xp[:10] = x
    r = (np.maximum(xp, 0) * k + 1) + (np.minimum(xp, 0) * k - 1) + 3 + 4
    want = np.empty(24, np.int32)
    for i in range(3):
        want[8 * i : 8 * i + 4] = r[4 * i : 4 * i + 4]
        want[8 * i + 4 : 8 * i + 8] = -r[4 * i : 4 * i + 4]
    it.assert_same(out, want)


def make_kernel(factor):
    def inner(t):
        return t * factor

    @ct.kernel
    def closure_kernel(x, out):
        ct.store(out, (0,), inner(ct.load(x, (0,), (4,))))

    return closure_kernel


def test_closures(it, rng):
    x = it.rand(rng, 4, "float32")
    for factor in (2.0, -0.5):
        out = it.poison(4, np.float32)
        it.launch(make_kernel(factor), (1,), x, out)
        it.assert_same(out, x * np.float32(factor))


def recurse(t, n):
    return recurse(t, n - 1) if n > 0 else t


@ct.kernel
def recursive(x, out):
    ct.store(out, (0,), recurse(ct.load(x, (0,), (4,)), 3))


def test_static_recursion_terminates(it, rng):
    x = it.rand(rng, 4, "int8")
    out = it.poison(4, np.int8)
    it.launch(recursive, (1,), x, out)
    it.assert_same(out, x)
