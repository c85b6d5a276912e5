"""Testing: the reproducers of wrong answers found by fuzzing (issue 22), for every tier.

Each `make_*` returns a kernel; each `expected_*` what the docs say it computes.
"""

from __future__ import annotations

import numpy as np

import tilelang as ct


def make_nan_extrema(n: int, propagate_nan: bool) -> ct.Kernel:
    """out = [max, min, argmax, argmin] of a row of `n` elements (as float32)."""

    @ct.kernel
    def extrema(x, out):
        t = ct.load(x, (0,), (n,))
        ct.store(out, (0,), ct.max(t, axis=0, keepdims=True, propagate_nan=propagate_nan))
        ct.store(out, (1,), ct.min(t, axis=0, keepdims=True, propagate_nan=propagate_nan))
        first = ct.argmax(t, axis=0, keepdims=True, propagate_nan=propagate_nan)
        ct.store(out, (2,), first.astype(ct.float32))
        last = ct.argmin(t, axis=0, keepdims=True, propagate_nan=propagate_nan)
        ct.store(out, (3,), last.astype(ct.float32))

    return extrema


def expected_extrema(x: np.ndarray, propagate_nan: bool) -> np.ndarray:
    """docs/language.md: NaNs are ignored (an all-NaN row gives NaN and index 0), or with
    propagate_nan the first NaN wins."""
    nans = np.isnan(x)
    if nans.all() or (propagate_nan and nans.any()):
        first = int(np.argmax(nans))
        return np.array([np.nan, np.nan, first, first], np.float32)
    return np.array([np.nanmax(x), np.nanmin(x), np.nanargmax(x), np.nanargmin(x)], np.float32)


def make_int_division(shape: tuple[int, ...], divisor: tuple[int, ...]) -> ct.Kernel:
    """q = a // b, r = a % b over whole arrays of `shape` (one block), b of shape `divisor`
    broadcast; also a // 0 and a % 0 with a `ct.full` divisor of zeros."""

    @ct.kernel
    def divide(a, b, q, r, q0, r0):
        x = ct.load(a, (0,) * len(shape), shape)
        y = ct.load(b, (0,) * len(divisor), divisor)
        ct.store(q, (0,) * len(shape), x // y)
        ct.store(r, (0,) * len(shape), x % y)
        zero = ct.full(shape, 0, x.dtype)
        ct.store(q0, (0,) * len(shape), x // zero)
        ct.store(r0, (0,) * len(shape), x % zero)

    return divide


def expected_division(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Python's floor division and modulo; a zero divisor gives 0 (and MIN // -1 wraps)."""
    a, b = np.broadcast_arrays(a, b)
    safe = np.where(b == 0, 1, b)
    with np.errstate(all="ignore"):
        q = np.where(b == 0, 0, np.floor_divide(a, safe)).astype(a.dtype)
        r = np.where(b == 0, 0, np.remainder(a, safe)).astype(a.dtype)
    return q, r


def division_operands(dtype: np.dtype, shape: tuple[int, ...], rng: np.random.Generator,
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Dividends with the dtype's extremes; divisors of zeros, -1 and small values."""
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    a.flat[:3] = [info.min, info.max, 0][: a.size]
    choices = np.array([0, 1, 2, 3, 7] + ([-1, -2, -7] if info.min < 0 else [255]))
    b = rng.choice(choices, (1, *shape[1:])).astype(dtype)
    b.flat[:2] = [-1 if info.min < 0 else 0, 0]  # MIN // -1 and MAX // 0 at the front
    return a, b
