"""Dialect: arithmetic with a directed rounding (`rounding_mode` of tile.add/sub/mul/div/sqrt).

With `rounding_mode` = "zero" (RZ), "negative_inf" (RM) or "positive_inf" (RP), the result is
the exact result rounded in that direction to the operands' dtype (IEEE 754): the nearest value
no larger in magnitude, not above, not below. Past the largest finite value RZ gives that value,
RM and RP give it or the infinity of their direction. An exact zero sum of two operands is +0,
except under RM, where it is -0 (unless both are +0). NaN and infinite operands behave as in
round to nearest, and so does division by zero (its result is exact).

How: every dtype is computed through float64. Directed rounding composes: rounding a value in
one direction to float64, then the float64 in the same direction to a narrower format (whose
values are all float64 values), gives that value rounded once. So float32, float16 and bfloat16
operations are the float64 operation on the widened operands, rounded in the same direction
(dialect/rounding.py). The float64 operation starts from NumPy's round-to-nearest result and
moves it one step (np.nextafter) where the exact result lies beyond it in the mode's direction;
which side the exact result lies on is found with error-free transformations (TwoSum; Dekker's
product on operands scaled into [0.5, 2) so that nothing underflows or overflows).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tilelang.dialect import rounding
from tilelang.dialect.semantics import np_dtype
from tilelang.language import dtypes as dt

MODES = ("zero", "negative_inf", "positive_inf")
BINARY = ("tile.add", "tile.sub", "tile.mul", "tile.div")
UNARY = ("tile.sqrt",)
_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's constant, splits a float64 into two 26-bit halves


def is_directed(mode: str | None) -> bool:
    return mode in MODES


def binary(name: str, x: np.ndarray, y: np.ndarray, mode: str) -> np.ndarray:
    """`x <name> y` (`name` one of BINARY; float operands of one dtype) rounded with `mode`."""
    with np.errstate(all="ignore"):  # (signalling NaNs, overflow: all meant)
        a, b = _wide(x), _wide(y)
        if name == "tile.sub":
            result = _add(a, -b, mode)
        else:
            result = {"tile.add": _add, "tile.mul": _mul, "tile.div": _div}[name](a, b, mode)
        return _narrow(result, np.asarray(x).dtype, mode)


def sqrt(x: np.ndarray, mode: str) -> np.ndarray:
    """The square root of float `x` rounded with `mode`."""
    with np.errstate(all="ignore"):
        return _narrow(_sqrt(_wide(x), mode), np.asarray(x).dtype, mode)


def binary_meaning(name: str, mode: str | None,
                   nearest: Callable[[np.ndarray, np.ndarray], np.ndarray]
                   ) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """The NumPy meaning of binary op `name` with attribute `mode` (`nearest` without one)."""
    if not is_directed(mode) or name not in BINARY:
        return nearest
    assert mode is not None
    return lambda x, y: binary(name, x, y, mode)


def unary_meaning(name: str, mode: str | None, nearest: Callable[[np.ndarray], np.ndarray]
                  ) -> Callable[[np.ndarray], np.ndarray]:
    if not is_directed(mode) or name not in UNARY:
        return nearest
    assert mode is not None
    return lambda x: sqrt(x, mode)


# ----- float64 in and out -------------------------------------------------------------------------


def _wide(x: np.ndarray) -> np.ndarray:
    return np.asarray(x).astype(np.float64)  # exact for every float dtype


def _narrow(result: np.ndarray, dtype: np.dtype, mode: str) -> np.ndarray:
    if dtype == np.float64:
        return result
    target = {np.dtype(np.float32): dt.float32, np.dtype(np.float16): dt.float16,
              np_dtype(dt.bfloat16): dt.bfloat16}[np.dtype(dtype)]
    return np.asarray(rounding.cast(result, target, mode))


def _moved(nearest: np.ndarray, error: np.ndarray, mode: str) -> np.ndarray:
    """`nearest` (the float64 result rounded to nearest) rounded instead with `mode`, given
    `error`, a float64 whose sign is that of (exact result - nearest)."""
    if mode == "negative_inf":
        step = error < 0
    elif mode == "positive_inf":
        step = error > 0
    else:  # toward zero: where the exact result is nearer zero than `nearest`
        step = ((error < 0) & (nearest > 0)) | ((error > 0) & (nearest < 0))
    target = {"negative_inf": -np.inf, "positive_inf": np.inf, "zero": 0.0}[mode]
    return np.where(step, np.nextafter(nearest, target), nearest)


def _overflow(nearest: np.ndarray, finite: np.ndarray) -> np.ndarray:
    """Where finite operands gave an infinity, the exact result is on the finite side."""
    return finite & np.isinf(nearest)


def _add(a: np.ndarray, b: np.ndarray, mode: str) -> np.ndarray:
    s = a + b
    virtual = s - a  # TwoSum (Knuth): the rounding error of s, exactly, when s is finite
    error = (a - (s - virtual)) + (b - virtual)
    error = np.where(np.isfinite(s), error, 0.0)
    error = np.where(_overflow(s, np.isfinite(a) & np.isfinite(b)), -s, error)
    result = _moved(s, error, mode)
    if mode == "negative_inf":  # an exact zero sum is -0 here (not +0), unless both were +0
        both_plus_zero = (a == 0) & (b == 0) & ~np.signbit(a) & ~np.signbit(b)
        result = np.where((s == 0) & (error == 0) & ~both_plus_zero, -0.0, result)
    return result


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(p, e): p = a * b rounded, e its error, exactly (a and b well inside the range)."""
    p = a * b
    (ah, al), (bh, bl) = _split(a), _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _split(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = _SPLIT * x
    high = c - (c - x)
    return high, x - high


def _mul(a: np.ndarray, b: np.ndarray, mode: str) -> np.ndarray:
    r = a * b
    ma, ea = np.frexp(a)  # a = ma * 2**ea, 0.5 <= |ma| < 1 (for finite non-zero a)
    mb, eb = np.frexp(b)
    p, e = _two_product(ma, mb)  # ma * mb = p + e exactly
    scaled = np.ldexp(r, -(ea + eb))  # exact: r is near p * 2**(ea+eb), |p| >= 1/4
    error = (p - scaled) + e  # p - scaled is exact (Sterbenz), the sum's sign is right
    usual = np.isfinite(r) & (r != 0)
    finite = np.isfinite(a) & np.isfinite(b)
    error = np.where(usual, error, 0.0)
    error = np.where(finite & (r == 0) & (a != 0) & (b != 0), p, error)  # underflow to zero
    error = np.where(_overflow(r, finite), -r, error)
    return _moved(r, error, mode)


def _div(a: np.ndarray, b: np.ndarray, mode: str) -> np.ndarray:
    q = a / b
    ma, ea = np.frexp(a)
    mb, eb = np.frexp(b)
    scaled = np.ldexp(q, -(ea - eb))  # exact, near ma / mb (within [1/2, 2])
    p, e = _two_product(scaled, mb)
    # exact - q has the sign of (ma / mb - scaled), that is of (ma - scaled * mb) * sign(mb)
    error = ((ma - p) - e) * np.sign(mb)
    usual = np.isfinite(q) & (q != 0)
    finite_nonzero = np.isfinite(a) & np.isfinite(b) & (a != 0) & (b != 0)
    error = np.where(usual, error, 0.0)
    error = np.where(finite_nonzero & (q == 0), np.sign(ma) * np.sign(mb), error)
    error = np.where(_overflow(q, finite_nonzero), -q, error)  # x / 0 is exact: not here
    return _moved(q, error, mode)


def _sqrt(a: np.ndarray, mode: str) -> np.ndarray:
    s = np.sqrt(a)
    m, e = np.frexp(a)
    odd = (e % 2) != 0
    m, e = np.where(odd, m * 2, m), np.where(odd, e - 1, e)  # a = m * 2**e, e even
    scaled = np.ldexp(s, -(e // 2))  # exact, near sqrt(m), within [0.7, 1.5)
    p, err = _two_product(scaled, scaled)
    error = (m - p) - err  # the sign of m - scaled**2, that of sqrt(m) - scaled
    usual = np.isfinite(s) & (a > 0)
    return _moved(s, np.where(usual, error, 0.0), mode)
