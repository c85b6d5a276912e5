"""astype between every pair of dtypes, against an exact (Python integer/Fraction) reference.

Conversions round to nearest even in one step; float to integer truncates toward zero and
saturates, NaN giving 0; integer to integer wraps; anything to bool is `!= 0`.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import torch

import tilelang as ct

ALL_DTYPES = ["bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "bfloat16", "float32", "float64"]
# (explicit mantissa bits, minimum normal exponent, maximum exponent)
FLOAT_FORMATS = {"float16": (10, -14, 15), "bfloat16": (7, -126, 127), "float32": (23, -126, 127),
                 "float64": (52, -1022, 1023)}


def round_to_float(value: Fraction, name: str) -> float:
    """`value` rounded to nearest even in the float format `name`, as a Python float."""
    mant, emin, emax = FLOAT_FORMATS[name]
    if value == 0:
        return 0.0
    sign, m = (-1 if value < 0 else 1), abs(value)
    e = math.floor(math.log2(m))  # may be off by one for huge/tiny Fractions: fix below
    while Fraction(2) ** e > m:
        e -= 1
    while Fraction(2) ** (e + 1) <= m:
        e += 1
    ulp = Fraction(2) ** (max(e, emin) - mant)
    q, r = divmod(m, ulp)
    if r * 2 > ulp or (r * 2 == ulp and q % 2 == 1):
        q += 1
    result = q * ulp
    if result > Fraction(2) ** emax * (2 - Fraction(2) ** -mant):  # beyond the largest finite
        return sign * math.inf
    return sign * float(result)


def reference_cast(x: np.ndarray, dst: str, np_dtype) -> np.ndarray:
    d = np_dtype(dst)
    src_float = x.dtype.kind == "f" or x.dtype == np_dtype("bfloat16")
    if d.kind == "b":
        return (x.astype(np.float64) if src_float else x) != 0
    values = x.astype(np.float64).tolist() if src_float else [int(v) for v in x.tolist()]
    out = []
    for v in values:
        if d.kind in "iu":
            info = np.iinfo(d)
            if src_float:
                v = 0 if math.isnan(v) else info.max if v == math.inf else \
                    info.min if v == -math.inf else min(max(math.trunc(v), info.min), info.max)
            out.append(int(v) % 2 ** (8 * d.itemsize))  # wrap (ints) / already saturated
        elif isinstance(v, float) and not math.isfinite(v):
            out.append(v)
        else:
            r = round_to_float(Fraction(v), dst)
            out.append(math.copysign(r, v) if r == 0 else r)
    if d.kind in "iu":
        return np.array(out, np.uint64).astype(d)
    return np.array(out, np.float64).astype(d)  # exact: every value is representable


def sample(rng, dtype, it, n: int) -> np.ndarray:
    d = it.np_dtype(dtype)
    if not it.is_float(d):
        return it.rand(rng, n, dtype)
    mags = np.exp2(rng.uniform(-30, 70, n)) * rng.choice([-1, 1], n)
    small = rng.uniform(-300, 300, n)  # the range of the small integer types, with fractions
    x = np.where(rng.random(n) < 0.5, mags, small)
    x[:10] = [np.nan, np.inf, -np.inf, -0.0, 0.0, 127.5, -128.9, 255.99, 2.0**63, -(2.0**63)]
    x[10:14] = [2.0**64, 65519.9, 2.0**31, -(2.0**31) - 0.5]
    with np.errstate(over="ignore"):
        return x.astype(d)


@ct.kernel
def cast_kernel(x, y, B: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, (i,), (B,))
    r = ct.astype(t, y.dtype)
    assert r.dtype == y.dtype
    ct.store(y, (i,), r)


@pytest.mark.parametrize("dst", ALL_DTYPES)
@pytest.mark.parametrize("src", ALL_DTYPES)
def test_astype_pairs(it, rng, src, dst):
    n = 45
    x = sample(rng, src, it, n)
    y = it.poison(n, dst)
    it.launch(cast_kernel, (3,), x, y, 16)
    it.assert_same(y, reference_cast(x, dst, it.np_dtype))


NEAR_TIES = {  # just off a tie of the destination: rounding through a narrower format ties
    ("float64", "bfloat16"): [1 + 2**-8 + 2**-30, -(1 + 2**-8 + 2**-40), 3 * 2**-9 + 2**-35,
                              1 + 2**-8],
    ("int32", "bfloat16"): [2**24 + 2**16 + 1, 2**25 + 2**17 + 3, 2**24 + 2**16,
                            -(3 * 2**24 + 2**16 + 1)],
    ("int64", "bfloat16"): [2**60 + 2**52 + 1, -(2**60 + 2**52 + 1), 2**24 + 2**16 + 1, -(2**63)],
    ("uint32", "bfloat16"): [2**31 + 2**23 + 1, 2**24 + 2**16 + 1, 2**32 - 1, 2**24 + 2**16],
    ("uint64", "bfloat16"): [2**63 + 2**55 + 1, 2**64 - 1, 2**40 + 2**32 + 1, 0],
    ("int64", "float32"): [2**62 + 2**38 + 1, -(2**62 + 2**38 + 1), 2**53 + 1, 2**62 + 2**38],
    ("uint64", "float32"): [2**63 + 2**39 + 1, 2**64 - 1, 2**53 + 2**29 + 1, 1],
    ("float64", "float16"): [1 + 2**-11 + 2**-40, -(1 + 2**-11 + 2**-30), 65519.99, 65520.0],
    ("float64", "float32"): [1 + 2**-24 + 2**-60, 2**-149 * 0.5000001, -(2.0**-150), 3.5e38],
}


@pytest.mark.parametrize(("src", "dst"), list(NEAR_TIES))
def test_astype_rounds_once(it, src, dst):
    x = np.array(NEAR_TIES[src, dst], it.np_dtype(src))
    y = it.poison(4, dst)
    it.launch(cast_kernel, (1,), x, y, 4)
    it.assert_same(y, reference_cast(x, dst, it.np_dtype))


@ct.kernel
def cast_spellings(x, y0, y1, y2, y3, y4, DT: ct.Constant):
    t = ct.load(x, (0,), (8,))
    ct.store(y0, (0,), t.astype(DT))
    ct.store(y1, (0,), ct.astype(t, DT))
    ct.store(y2, (0,), ct.astype(t, y2.dtype))
    ct.store(y3, (0,), t.astype(DT).astype(ct.float32).astype(DT))
    ct.store(y4, (0,), t.astype(ct.float16, rounding_mode=ct.RoundingMode.RN))


@pytest.mark.parametrize("spelling", [ct.float16, np.float16, np.dtype("float16"), torch.float16])
def test_dtype_spellings(it, rng, spelling):
    x = it.rand(rng, 8, "float32")
    ys = [it.poison(8, "float16") for _ in range(5)]
    it.launch(cast_spellings, (1,), x, *ys, spelling)
    for y in ys:
        it.assert_same(y, x.astype(np.float16))


@ct.kernel
def cast_same(x, y):
    t = ct.load(x, (0, 0), (4, 4))
    ct.store(y, (0, 0), t.astype(t.dtype).astype(x.dtype))


def test_astype_same_dtype_is_identity(it, rng):
    x = it.rand(rng, (4, 4), "bfloat16", special=True)
    y = it.poison((4, 4), "bfloat16")
    it.launch(cast_same, (1,), x, y)
    it.assert_same(y, x)


@ct.kernel
def cast_rounding_int(x, y):
    ct.store(y, (0,), ct.astype(ct.load(x, (0,), (4,)), ct.int32,
                                rounding_mode=ct.RoundingMode.RZ))


def test_rounding_mode_only_float_to_float(it):
    with pytest.raises(ct.TileTypeError):
        it.launch(cast_rounding_int, (1,), np.zeros(4, np.float32), np.zeros(4, np.int32))
