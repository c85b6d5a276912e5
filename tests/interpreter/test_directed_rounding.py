"""RZ/RM/RP arithmetic (add, sub, mul, truediv, sqrt) and directed sums, products and scans,
on the interpreter and (marked gpu) on the GPU.

Element-wise results must equal the NumPy meaning bit for bit (dialect/directed.py, itself
checked against exact arithmetic in tests/dialect/test_directed_rounding_meaning.py) on awkward
inputs:
random bit patterns, subnormals, values near overflow, exact results and cancellations, signed
zeros, infinities and NaN, over array lengths that leave partial tiles. A reduction's result
depends on the order of its combinations, which differs between the interpreter and the GPU,
so directed sums and products are checked for what holds in any order: RM below the exact
result, RP above, RZ nearer zero, all within the accumulated rounding; and, bit for bit, on
rows whose directed sum is the same in every order.
"""

from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct
from tilelang.dialect import directed, rounding
from tilelang.language import dtypes as dt

R = ct.RoundingMode
MODES = {R.RZ: "zero", R.RM: "negative_inf", R.RP: "positive_inf"}
DTYPES = ["float32", "float64", "float16", "bfloat16"]
BLOCK = 256


@ct.kernel
def arithmetic(x, y, add, sub, mul, div, root, third, M: ct.Constant):
    i = ct.bid(0)
    a = ct.load(x, (i,), (BLOCK,))
    b = ct.load(y, (i,), (BLOCK,))
    ct.store(add, (i,), ct.add(a, b, rounding_mode=M))
    ct.store(sub, (i,), ct.sub(a, b, rounding_mode=M))
    ct.store(mul, (i,), ct.mul(a, b, rounding_mode=M))
    ct.store(div, (i,), ct.truediv(a, b, rounding_mode=M))
    ct.store(root, (i,), ct.sqrt(a, rounding_mode=M))
    ct.store(third, (i,), ct.truediv(a, 3.0, rounding_mode=M))  # a constant operand


def awkward(rng: np.random.Generator, n: int, dtype: np.dtype) -> np.ndarray:
    """`n` values: random bits, ordinary values, subnormals, near-overflow values, integers and
    the special values, shuffled."""
    info = ml_dtypes.finfo(dtype)
    unsigned = np.dtype(f"u{dtype.itemsize}")
    k = n // 5
    with np.errstate(all="ignore"):
        raw = rng.integers(0, np.iinfo(unsigned).max, k, dtype=unsigned, endpoint=True)
        parts = [
            raw.view(dtype),
            (rng.standard_normal(k) * 3).astype(dtype),
            (rng.integers(-40, 40, k) * float(info.smallest_subnormal)).astype(dtype),
            (rng.choice([-1, 1], k) * float(info.max) * rng.uniform(0.3, 1, k)).astype(dtype),
            np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0], dtype),
        ]
        rest = rng.integers(-6, 7, n - sum(p.size for p in parts)).astype(dtype)
    x = np.concatenate([*parts, rest])
    rng.shuffle(x)
    return x


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("dtype", DTYPES)
def test_arithmetic_equals_the_meaning(it, rng, dtype, mode):
    d = it.np_dtype(dtype)
    n = 3 * BLOCK + 77  # a partial last tile
    x, y = awkward(rng, n, d), awkward(rng, n, d)
    y[:40] = -x[:40]  # exact cancellations: the sign of a zero sum
    y[40:50] = x[40:50]
    outs = [it.poison(n, dtype) for _ in range(6)]
    it.launch(arithmetic, (-(-n // BLOCK),), x, y, *outs, mode)
    m = MODES[mode]
    want = [directed.binary(name, x, y, m) for name in
            ("tile.add", "tile.sub", "tile.mul", "tile.div")]
    want.append(directed.sqrt(x, m))
    want.append(directed.binary("tile.div", x, np.asarray(3.0, d), m))
    for name, got, expected in zip(("add", "sub", "mul", "div", "sqrt", "x / 3"), outs, want,
                                   strict=True):
        try:
            it.assert_same(got, expected)
        except AssertionError as e:
            raise AssertionError(f"{name}: {e}") from None


@ct.kernel
def scalar_ops(x, y, M: ct.Constant):
    s = ct.load(x, (0,), (1,)).reshape(())  # 0-d tiles: one register on the GPU
    t = ct.load(x, (1,), (1,)).reshape(())
    r = ct.add(s, t, rounding_mode=M)
    ct.store(y, (0,), ct.mul(r, r, rounding_mode=M).reshape((1,)))


@pytest.mark.parametrize("mode", list(MODES))
def test_scalar_operands(it, mode):
    x = np.array([1.0, 2.0**-30], np.float32)
    y = it.poison(1, "float32")
    it.launch(scalar_ops, (1,), x, y, mode)
    m = MODES[mode]
    s = directed.binary("tile.add", x[:1], x[1:], m)
    it.assert_same(y, directed.binary("tile.mul", s, s, m))
    assert (y[0] > 1) == (mode is R.RP)


@ct.kernel
def folded(y, M: ct.Constant):
    one = ct.full((16,), 1.0, ct.float32)
    tiny = ct.full((16,), 2.0**-30, ct.float32)
    ct.store(y, (0,), ct.sub(one, tiny, rounding_mode=M))  # constants: folded at compile time


@pytest.mark.parametrize("mode", list(MODES))
def test_folded_constants_keep_the_mode(it, mode):
    y = it.poison(16, "float32")
    it.launch(folded, (1,), y, mode)
    below = np.nextafter(np.float32(1), np.float32(0))
    it.assert_same(y, np.full(16, 1.0 if mode is R.RP else below, np.float32))


# ----- reductions and scans ----------------------------------------------------------------------

ROWS, N, BM = 40, 64, 16  # 40 rows in tiles of 16: the last tile is partial


@ct.kernel
def accumulate(x, y, total, running, product, running_product, M: ct.Constant):
    i = ct.bid(0)
    t = ct.load(x, (i, 0), (BM, N))
    ct.store(total, (i, 0), ct.sum(t, axis=1, keepdims=True, rounding_mode=M))
    ct.store(running, (i, 0), ct.cumsum(t, axis=1, rounding_mode=M))
    u = ct.load(y, (i, 0), (BM, N))
    ct.store(product, (i, 0), ct.prod(u, axis=1, keepdims=True, rounding_mode=M))
    ct.store(running_product, (i, 0), ct.cumprod(u, axis=1, rounding_mode=M))


def _launch_accumulate(it, x: np.ndarray, y: np.ndarray, dtype: str,
                       mode: R) -> list[np.ndarray]:
    outs = [it.poison((ROWS, 1), dtype), it.poison((ROWS, N), dtype),
            it.poison((ROWS, 1), dtype), it.poison((ROWS, N), dtype)]
    it.launch(accumulate, (-(-ROWS // BM),), x, y, *outs, mode)
    return outs


ACCUMULATOR_EPS = {"float64": 2.0**-52}  # float32 for the others (16-bit floats widen)


def _check_bounds(got: np.ndarray, exact: list[list[Fraction]], terms: np.ndarray,
                  dtype: str, mode: R) -> None:
    """Each result is on its mode's side of the exact one, within the accumulated rounding:
    `terms[i, j]` bounds the sum of the magnitudes the result's combinations saw."""
    eps = ACCUMULATOR_EPS.get(dtype, 2.0**-23)
    own = float(ml_dtypes.finfo(got.dtype).eps)
    for (i, j), value in np.ndenumerate(got):
        e, v = exact[i][j], Fraction(float(value))
        where = f"[{i}, {j}]: {float(value)!r} vs exact {float(e)!r} ({mode.name})"
        if mode is R.RM:
            assert v <= e, where
        elif mode is R.RP:
            assert v >= e, where
        else:
            assert abs(v) <= abs(e) and (v == 0 or (v > 0) == (e > 0)), where
        slack = N * eps * float(terms[i, j]) + 2 * own * abs(float(e))
        assert abs(float(v - e)) <= slack, where


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("dtype", DTYPES)
def test_directed_sums_and_products_bound_the_exact_ones(it, rng, dtype, mode):
    """Rounding in one direction keeps a bound in that direction through sums (RZ: only while
    the partial sums keep one sign) and through products of positive numbers."""
    d = it.np_dtype(dtype)
    y = rng.uniform(0.9, 1.1, (ROWS, N)).astype(d)  # products far from overflow and underflow
    x = rng.uniform(0.9, 1.1, (ROWS, N)) * 2.0 ** rng.integers(-12, 12, (ROWS, N))
    if mode is not R.RZ:  # sums that cancel
        x *= rng.choice([-1.0, 1.0], (ROWS, N))
    x = x.astype(d)
    total, running, product, running_product = _launch_accumulate(it, x, y, dtype, mode)
    prefix_sums = [list(np.cumsum([Fraction(float(v)) for v in row])) for row in x]
    prefix_products = [list(np.cumprod([Fraction(float(v)) for v in row])) for row in y]
    magnitudes = np.cumsum(np.abs(x.astype(np.float64)), axis=1)
    sizes = np.abs(np.array([[float(p) for p in row] for row in prefix_products]))
    _check_bounds(running, prefix_sums, magnitudes, dtype, mode)
    _check_bounds(total, [[row[-1]] for row in prefix_sums], magnitudes[:, -1:], dtype, mode)
    _check_bounds(running_product, prefix_products, sizes, dtype, mode)
    _check_bounds(product, [[row[-1]] for row in prefix_products], sizes[:, -1:], dtype, mode)


# below an ulp of 1 in the accumulator (float32 but for float64); float16's least subnormal
TINY = {"float64": 2.0**-70, "float16": 2.0**-24, "float32": 2.0**-30, "bfloat16": 2.0**-30}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("dtype", DTYPES)
def test_sum_of_ones_and_a_tiny_value_is_the_same_in_any_order(it, rng, dtype, mode):
    """Rows of ones with one tiny value: any partial sum holding the tiny value is, rounded
    up, the count of its ones plus one ulp (rounded down or toward zero: the count), whatever
    the order, so the sums and running sums are known exactly."""
    d = it.np_dtype(dtype)
    tiny = TINY[dtype]
    x = np.ones((ROWS, N), d)
    where = rng.integers(0, N, ROWS)
    x[np.arange(ROWS), where] = tiny
    total, running, _, _ = _launch_accumulate(it, x, x, dtype, mode)
    accumulator = np.float64 if dtype == "float64" else np.float32
    ones = np.cumsum(x != tiny, axis=1).astype(accumulator)
    has_tiny = np.arange(N)[None, :] >= where[:, None]
    up = np.nextafter(ones, accumulator(np.inf))
    wide = np.where(has_tiny & (ones == 0), accumulator(tiny), ones)
    if mode is R.RP:
        wide = np.where(has_tiny & (ones > 0), up, wide)
    want = np.asarray(rounding.cast(wide, getattr(dt, dtype), MODES[mode]))
    it.assert_same(running, want.astype(d))
    it.assert_same(total, want[:, -1:].astype(d))
