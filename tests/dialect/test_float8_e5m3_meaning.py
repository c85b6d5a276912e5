"""float8_e5m3fnu's meaning (dialect/float8_e5m3.py, dialect/restricted.py) against an exact
reference on Fractions: every one of the 256 codes, and conversion to it (nearest, ties to even,
saturating at 114688, NaN for NaN and negative values, -0.0 is zero) from float32, float64 and
integers, on random values and on every midpoint between neighbouring codes.

The reference is written from the format's definition (no sign, 5 exponent bits with bias 15,
3 mantissa bits, subnormals, 0xFF NaN, no infinity), which cuTile's float encoding test lists
value by value.
"""

from __future__ import annotations

import bisect
import math
from fractions import Fraction

import numpy as np
import pytest

from tilelang.dialect.float8_e5m3 import E5M3FNU, e5m3_codes, e5m3_values, widen_restricted
from tilelang.dialect.restricted import round_scalar, to_restricted
from tilelang.dialect.semantics import cast, hold
from tilelang.language import dtypes as dt

E5M3 = dt.float8_e5m3fnu


def exact(code: int) -> Fraction | None:
    """The value of `code` (None for NaN), from the definition."""
    if code == 0xFF:
        return None
    exponent, mantissa = code >> 3, code & 7
    if exponent == 0:
        return Fraction(mantissa, 8) * Fraction(1, 2 ** 14)
    return (1 + Fraction(mantissa, 8)) * Fraction(2) ** (exponent - 15)


FINITE = [exact(c) for c in range(255)]  # increasing with the code
LARGEST = FINITE[-1]


def encode(v: Fraction | float | int) -> int:
    """The code of the value nearest `v` (ties to the even code, beyond the largest finite
    value that value, negative values and NaN NaN; -0.0 is zero)."""
    if isinstance(v, float):
        if math.isnan(v) or math.copysign(1.0, v) < 0 and v != 0:
            return 0xFF
        if math.isinf(v):
            return 0xFE
    q = Fraction(v)
    if q < 0:
        return 0xFF
    if q >= LARGEST:
        return 0xFE
    i = bisect.bisect_left(FINITE, q)
    if FINITE[i] == q:
        return i
    below, above = FINITE[i - 1], FINITE[i]
    if q - below != above - q:
        return i - 1 if q - below < above - q else i
    return i - 1 if (i - 1) % 2 == 0 else i


def test_every_code_decodes_exactly():
    values = e5m3_values(np.arange(256, dtype=np.uint8))
    assert values.dtype == np.float32
    for code in range(256):
        want = exact(code)
        if want is None:
            assert math.isnan(values[code])
        else:
            assert Fraction(float(values[code])) == want, code


def test_landmarks():
    assert exact(0x01) == Fraction(1, 2 ** 17) and exact(0x08) == Fraction(1, 2 ** 14)
    assert exact(0x78) == 1 and LARGEST == 114688
    assert len(set(FINITE)) == 255  # one code per value: no negative zero, no second NaN


def test_every_value_encodes_to_its_code():
    values = e5m3_values(np.arange(255, dtype=np.uint8))
    assert np.array_equal(e5m3_codes(values), np.arange(255, dtype=np.uint8))


def _midpoints() -> list[Fraction]:
    return [(a + b) / 2 for a, b in zip(FINITE, FINITE[1:], strict=False)]


def test_midpoints_and_their_neighbours_from_float32():
    """Each tie between two codes (exact in float32) and the float32 values next to it."""
    ties = np.array([float(m) for m in _midpoints()], np.float32)
    assert all(Fraction(float(t)) == m for t, m in zip(ties, _midpoints(), strict=True))
    x = np.concatenate([ties, np.nextafter(ties, np.float32(0)),
                        np.nextafter(ties, np.float32(np.inf))])
    got = e5m3_codes(x)
    assert [int(c) for c in got] == [encode(float(v)) for v in x]


def test_edges():
    cases = [0.0, -0.0, math.inf, -math.inf, math.nan, -math.nan, -1.0, -2.0 ** -20, 2.0 ** -18,
             3 * 2.0 ** -19, 2.0 ** -19, 114688.0, 118784.0, 118784.5, 2.0 ** 17, 1e30,
             1.0625, 1.1875, 2.0 ** -14 - 2.0 ** -18, 1.5 * 2.0 ** -126]
    x = np.array(cases, np.float64)
    got = to_restricted(x, E5M3)
    assert got.dtype == E5M3FNU
    assert [int(c) for c in got.view(np.uint8)] == [encode(v) for v in cases]
    assert int(e5m3_codes(np.float32(1.0625))[()]) == 0x78  # cuTile's test: ties to even
    assert int(e5m3_codes(np.float32(1.1875))[()]) == 0x7A


def test_random_float32(rng=np.random.default_rng(5)):
    bits = rng.integers(0, 2 ** 32, 20000, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32)
    x = np.concatenate([x, np.abs(x), (rng.random(20000) * 2.0 ** rng.integers(-20, 18, 20000))
                        .astype(np.float32)])
    got = to_restricted(x, E5M3).view(np.uint8)
    assert [int(c) for c in got] == [encode(float(v)) for v in x]


def test_random_float64_rounds_once(rng=np.random.default_rng(6)):
    """Values a float32 rounding would move onto a tie: the result is float64's nearest."""
    mids = np.array([float(m) for m in _midpoints()], np.float64)
    picks = rng.choice(mids, 4000)
    x = np.concatenate([picks * (1 + 2.0 ** -40), picks * (1 - 2.0 ** -40),
                        rng.random(4000) * 2.0 ** rng.integers(-20, 18, 4000)])
    got = to_restricted(x, E5M3).view(np.uint8)
    assert [int(c) for c in got] == [encode(float(v)) for v in x]


def test_integers():
    x = np.array([0, 1, 3, 17, 1000, 65535, 114687, 118784, 118785, 2 ** 40, -1], np.int64)
    got = to_restricted(x, E5M3).view(np.uint8)
    assert [int(c) for c in got] == [encode(int(v)) for v in x]


@pytest.mark.parametrize("dst", [np.float32, np.float64, np.float16, np.int32])
def test_conversion_from_is_its_value_converted(dst):
    codes = np.arange(256, dtype=np.uint8).view(E5M3FNU)
    want = np.array([math.nan if v is None else float(v) for v in map(exact, range(256))])
    with np.errstate(over="ignore", invalid="ignore"):
        got = cast(codes, np.dtype(dst))
    if np.dtype(dst).kind == "f":
        with np.errstate(over="ignore"):
            assert np.array_equal(got, want.astype(dst), equal_nan=True)
    else:
        assert np.array_equal(got, np.where(np.isnan(want), 0, np.trunc(want)).astype(dst))


def test_constants_hold_their_value():
    assert round_scalar(1.5, E5M3) == 1.5
    assert round_scalar(200000.0, E5M3) == 114688.0
    held = hold([0.0, 7.62939453125e-06, 114688.0], E5M3)
    assert held.dtype == E5M3FNU
    assert list(widen_restricted(held)) == [0.0, 7.62939453125e-06, 114688.0]
