"""astype between floats with a rounding mode (RZ, RM, RP, RA), against an exact Fraction
reference of IEEE 754's directed roundings: ties, values just off them, subnormals of the
target, overflow, infinities, NaN and signed zeros, exhaustively where the source has 16 bits."""

from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct

R = ct.RoundingMode
# (explicit mantissa bits, minimum normal exponent, maximum exponent)
FORMATS = {"float16": (10, -14, 15), "bfloat16": (7, -126, 127), "tfloat32": (10, -126, 127),
           "float32": (23, -126, 127)}
BLOCK = 1024


def round_directed(value: float, name: str, mode: R) -> float:
    """`value` (a finite float) in the format `name` with rounding `mode`, exactly."""
    mant, emin, emax = FORMATS[name]
    m = abs(Fraction(value))
    if m == 0:
        return value
    e = max(math.floor(math.log2(m)), emin)
    while Fraction(2) ** e > m and e > emin:
        e -= 1
    while Fraction(2) ** (e + 1) <= m:
        e += 1
    ulp = Fraction(2) ** (e - mant)
    q, r = divmod(m, ulp)
    negative = value < 0
    if mode is R.RZ:
        up = False
    elif mode in (R.RM, R.RP):
        up = r > 0 and (negative == (mode is R.RM))
    elif mode is R.RA:
        up = r * 2 >= ulp
    else:  # RN
        up = r * 2 > ulp or (r * 2 == ulp and q % 2 == 1)
    largest = (2 - Fraction(2) ** -mant) * Fraction(2) ** emax
    result = float((q + up) * ulp)
    if (q + up) * ulp > largest:  # beyond the format: infinity unless the mode truncates
        outward = mode in (R.RN, R.RA) or (mode is R.RM and negative) or \
            (mode is R.RP and not negative)
        result = math.inf if outward else float(largest)
    return -result if negative else result


def reference(x: np.ndarray, name: str, mode: R) -> np.ndarray:
    values = x.astype(np.float64).tolist()
    return np.array([round_directed(v, name, mode) if math.isfinite(v) else v for v in values])


@ct.kernel
def cast_rounded(x, y, D: ct.Constant, M: ct.Constant, FROM_TF32: ct.Constant[bool]):
    t = ct.load(x, (ct.bid(0),), (BLOCK,))
    if FROM_TF32:
        t = t.astype(ct.tfloat32)  # exact: the inputs are tfloat32 values
    ct.store(y, (ct.bid(0),), t.astype(D, rounding_mode=M).astype(y.dtype))


def _bits(rng: np.random.Generator, n: int, dtype: np.dtype) -> np.ndarray:
    """Random bit patterns of `dtype` (all exponents equally likely), finite ones only."""
    unsigned = np.dtype(f"u{dtype.itemsize}")
    raw = rng.integers(0, np.iinfo(unsigned).max, n, dtype=unsigned, endpoint=True)
    x = raw.view(dtype)
    with np.errstate(invalid="ignore"):  # signalling NaNs
        return x[np.isfinite(x.astype(np.float64))]


def _near_ties(rng: np.random.Generator, n: int, src: np.dtype, dst: str) -> np.ndarray:
    """Source values at, just below and just above the midpoints of neighbouring `dst` values
    (and on the values themselves), over the target's whole range, subnormals included."""
    mant, emin, emax = FORMATS[dst]
    e = rng.integers(emin - mant - 1, emax + 1, n)
    k = rng.integers(0, 2 ** (mant + 1), n).astype(np.float64)
    base = np.ldexp(k, e - mant)  # a dst value (or beyond: the overflow region)
    half = np.ldexp(np.ones(n), np.maximum(e, emin) - mant - 1)
    offsets = rng.choice([0.0, 1.0, 1.0 + 2.0**-20, 1.0 - 2.0**-20], n)
    x = (base + half * offsets) * rng.choice([-1.0, 1.0], n)
    return x.astype(src)


SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 65519.99, 65520.0, 65536.0,
            -65520.0, 3.4028235e38, -3.5e38, 1.0 + 2.0**-11, -(1.0 + 2.0**-11), 6e-8, 3e-8]


def inputs(rng: np.random.Generator, src: str, dst: str) -> np.ndarray:
    src_np = np.dtype(ml_dtypes.bfloat16) if src == "bfloat16" else \
        np.dtype("float32" if src == "tfloat32" else src)
    if src_np.itemsize == 2:  # every value of the source
        x = np.arange(2**16, dtype=np.uint16).view(src_np)
    else:
        with np.errstate(over="ignore"):  # the specials overflow narrow sources to infinity
            specials = np.array(SPECIALS).astype(src_np)
        x = np.concatenate([_bits(rng, 1500, src_np), _near_ties(rng, 3000, src_np, dst),
                            specials])
    if src == "tfloat32":  # float32 holding tfloat32 values
        x = (x.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)
    return x


CASES = [
    ("float64", "float32", R.RZ), ("float64", "float32", R.RM), ("float64", "float32", R.RP),
    ("float64", "float32", R.RN), ("float64", "tfloat32", R.RZ), ("float64", "float16", R.RZ),
    ("float64", "bfloat16", R.RZ), ("float32", "tfloat32", R.RZ), ("float32", "tfloat32", R.RA),
    ("float32", "float16", R.RZ), ("float32", "bfloat16", R.RZ), ("tfloat32", "float16", R.RZ),
    ("tfloat32", "bfloat16", R.RZ), ("float16", "bfloat16", R.RZ), ("bfloat16", "float16", R.RZ),
    ("bfloat16", "float16", R.RM), ("bfloat16", "float16", R.RP), ("bfloat16", "float16", R.RA),
]


@pytest.mark.parametrize(("src", "dst", "mode"), CASES)
def test_rounding_modes_against_exact_reference(it, rng, src, dst, mode):
    x = inputs(rng, src, dst)
    load_dtype = "float32" if src == "tfloat32" else src
    x = x.astype(it.np_dtype(load_dtype))
    out = "float32" if dst == "tfloat32" else dst
    y = it.poison(x.size, out)
    it.launch(cast_rounded, (-(-x.size // BLOCK),), x, y, getattr(ct, dst), mode,
              src == "tfloat32")
    with np.errstate(invalid="ignore"):  # NaN
        want = reference(x, dst, mode).astype(it.np_dtype(out))
    it.assert_same(y, want)


@ct.kernel
def exact_with_modes(x, y, z, w):
    t = ct.load(x, (0,), (64,))
    ct.store(y, (0,), t.astype(ct.float64, rounding_mode=ct.RoundingMode.RM))
    ct.store(z, (0,), t.astype(ct.float32, rounding_mode=ct.RoundingMode.RA))
    ct.store(w, (0,), t.astype(ct.tfloat32, rounding_mode=ct.RoundingMode.RZ).astype(ct.float32))


def test_widening_ignores_the_mode(it, rng):
    x = it.rand(rng, 64, "float16", special=True)
    y, z, w = it.poison(64, "float64"), it.poison(64, "float32"), it.poison(64, "float32")
    it.launch(exact_with_modes, (1,), x, y, z, w)
    it.assert_same(y, x.astype(np.float64))
    it.assert_same(z, x.astype(np.float32))
    it.assert_same(w, x.astype(np.float32))


@ct.kernel
def scalar_rounded(x, y):
    s = ct.load(x, (0,), (1,)).reshape(())  # a 0-d tile: one register on the GPU
    ct.store(y, (0,), ct.astype(s, ct.float32, rounding_mode=ct.RoundingMode.RP).reshape((1,)))


def test_scalar_rounded_up(it):
    x = np.array([1.0 + 2.0**-40], np.float64)
    y = it.poison(1, "float32")
    it.launch(scalar_rounded, (1,), x, y)
    it.assert_same(y, np.array([1.0 + 2.0**-23], np.float32))
