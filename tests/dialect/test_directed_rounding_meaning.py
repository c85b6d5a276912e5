"""dialect/directed.py, the NumPy meaning of RZ/RM/RP arithmetic, against an exact reference
(Python's Fraction and integer square roots) on awkward inputs of every float dtype: random bit
patterns, subnormals, values near the largest finite one (overflow), exact results, exact
cancellations (the sign of a zero sum), tiny quotients and products (underflow), infinities
and NaN."""

from __future__ import annotations

import math
import zlib
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from tilelang.dialect import directed

BF16 = np.dtype(ml_dtypes.bfloat16)
# (explicit mantissa bits, minimum normal exponent, maximum exponent)
FORMATS = {np.dtype(np.float64): (52, -1022, 1023), np.dtype(np.float32): (23, -126, 127),
           np.dtype(np.float16): (10, -14, 15), BF16: (7, -126, 127)}
DTYPES = list(FORMATS)
OPS = {"tile.add": lambda a, b: a + b, "tile.sub": lambda a, b: a - b,
       "tile.mul": lambda a, b: a * b, "tile.div": lambda a, b: a / b}


def round_exact(value: Fraction, dtype: np.dtype, mode: str) -> float:
    """Non-zero `value` rounded to `dtype` toward zero, -inf or +inf (IEEE 754)."""
    mant, emin, emax = FORMATS[dtype]
    negative, m = value < 0, abs(value)
    e = max(m.numerator.bit_length() - m.denominator.bit_length(), emin)
    while e > emin and Fraction(2) ** e > m:
        e -= 1
    while Fraction(2) ** (e + 1) <= m:
        e += 1
    ulp = Fraction(2) ** (e - mant)
    q, r = divmod(m, ulp)
    outward = mode == ("negative_inf" if negative else "positive_inf")
    rounded = (q + (outward and r > 0)) * ulp
    largest = (2 - Fraction(2) ** -mant) * Fraction(2) ** emax
    if rounded > largest:
        result = math.inf if outward else float(largest)
    else:
        result = float(rounded)
    return -result if negative else result


def reference(name: str, x: float, y: float, mode: str, dtype: np.dtype) -> float | None:
    """The exact result rounded; None where IEEE's special cases decide (NaN, inf, x / 0)."""
    if not (math.isfinite(x) and math.isfinite(y)) or (name == "tile.div" and y == 0):
        return None
    exact = OPS[name](Fraction(x), Fraction(y))
    if exact != 0:
        return round_exact(exact, dtype, mode)
    if name in ("tile.mul", "tile.div"):
        return math.copysign(0.0, math.copysign(1, x) * math.copysign(1, y))
    second = -y if name == "tile.sub" else y
    if x == 0 and second == 0 and math.copysign(1, x) == math.copysign(1, second):
        return x  # (+0) + (+0) and (-0) + (-0) keep their sign
    return -0.0 if mode == "negative_inf" else 0.0


def sqrt_reference(x: float, mode: str, dtype: np.dtype) -> float | None:
    if not math.isfinite(x) or x <= 0:
        return None
    scale = 1200  # sqrt(x) * 2**scale to the integer below: far below any dtype's ulp
    n = Fraction(x) * 4**scale
    root = math.isqrt(n.numerator // n.denominator)
    exact = Fraction(root, 2**scale)
    if root * root * n.denominator != n.numerator:  # inexact: a sticky bit below the integer
        exact += Fraction(1, 2 ** (scale + 1))
    return round_exact(exact, dtype, mode)


def awkward(rng: np.random.Generator, n: int, dtype: np.dtype) -> np.ndarray:
    """Random bits, ordinary values, subnormals, values near the largest, small integers."""
    info = ml_dtypes.finfo(dtype)
    unsigned = np.dtype(f"u{dtype.itemsize}")
    with np.errstate(all="ignore"):
        raw = rng.integers(0, np.iinfo(unsigned).max, n, dtype=unsigned, endpoint=True)
        parts = [
            raw.view(dtype),
            (rng.standard_normal(n) * 3).astype(dtype),
            (rng.integers(-40, 40, n) * float(info.smallest_subnormal)).astype(dtype),
            (rng.choice([-1, 1], n) * float(info.max) * rng.uniform(0.3, 1, n)).astype(dtype),
            rng.integers(-6, 7, n).astype(dtype),
            np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0], dtype),
        ]
    return np.concatenate(parts)


def same(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1, a) == math.copysign(1, b)


def operands(rng: np.random.Generator, dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    x = awkward(rng, 120, dtype)
    y = awkward(rng, 120, dtype)
    rng.shuffle(y)
    y[:30] = -x[:30]  # exact cancellations (and x / -x)
    y[30:40] = x[30:40]  # x - x
    return x, y


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


@pytest.mark.parametrize("mode", directed.MODES)
@pytest.mark.parametrize("name", list(OPS))
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_binary_against_exact_reference(rng, dtype, name, mode):
    x, y = operands(rng, dtype)
    got = directed.binary(name, x, y, mode)
    assert got.dtype == dtype
    with np.errstate(all="ignore"):  # NaN, infinities, signalling NaNs
        nearest = OPS[name](x.astype(np.float64), y.astype(np.float64))
    for a, b, r, n in zip(x.tolist(), y.tolist(), got.tolist(), nearest.tolist(), strict=True):
        want = reference(name, a, b, mode, dtype)
        if want is None:  # IEEE's special cases: the round-to-nearest result
            with np.errstate(all="ignore"):
                want = float(np.asarray(n).astype(dtype))
        assert same(r, want), f"{a!r} {name} {b!r} ({mode}): {r!r}, want {want!r}"


@pytest.mark.parametrize("mode", directed.MODES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_sqrt_against_exact_reference(rng, dtype, mode):
    x = np.abs(awkward(rng, 150, dtype))
    x = np.concatenate([x, np.array([-1.0, -0.0, 4.0, 2.0], dtype)])
    got = directed.sqrt(x, mode)
    assert got.dtype == dtype
    for a, r in zip(x.tolist(), got.tolist(), strict=True):
        want = sqrt_reference(a, mode, dtype)
        if want is None:
            with np.errstate(invalid="ignore"):
                want = float(np.sqrt(np.float64(a)))
        assert same(r, want), f"sqrt({a!r}) ({mode}): {r!r}, want {want!r}"


def test_directions_on_simple_cases():
    one, tiny = np.float32(1), np.float32(1e-10)
    up = np.nextafter(one, np.float32(2))
    down = np.nextafter(one, np.float32(0))
    assert directed.binary("tile.add", one, tiny, "positive_inf") == up
    assert directed.binary("tile.add", one, tiny, "negative_inf") == one
    assert directed.binary("tile.sub", one, tiny, "zero") == down
    third = directed.binary("tile.div", np.float32(1), np.float32(3), "positive_inf")
    assert third == np.nextafter(directed.binary("tile.div", np.float32(1), np.float32(3),
                                                 "zero"), np.float32(1))
    big = np.float16(65504)
    assert directed.binary("tile.mul", big, np.float16(2), "zero") == big  # no overflow
    assert np.isinf(directed.binary("tile.mul", big, np.float16(2), "positive_inf"))
    assert directed.binary("tile.mul", -big, np.float16(2), "positive_inf") == -big


def test_exact_zero_sum_is_negative_only_toward_minus_infinity():
    x, y = np.array([1.5, 0.0, 0.0, -0.0]), np.array([-1.5, 0.0, -0.0, -0.0])
    rm = directed.binary("tile.add", x, y, "negative_inf")
    rp = directed.binary("tile.add", x, y, "positive_inf")
    assert np.signbit(rm).tolist() == [True, False, True, True]
    assert np.signbit(rp).tolist() == [False, False, False, True]


def test_broadcast_scalar_operand():
    x = np.array([1.0, 2.0, 3.0], np.float32)
    got = directed.binary("tile.div", x, np.float32(3), "positive_inf")
    assert got.shape == (3,) and got[2] == 1 and Fraction(float(got[0])) > Fraction(1, 3)
