"""Dialect: the meaning of conversions to the restricted floats (tfloat32 and the 8-bit floats).

These dtypes support no arithmetic; `astype` is how values get in and out. The rules, which the
GPU lowering (passes/simt/restricted.py) must match:
- conversion to any of them rounds to nearest, ties to even, once (a float64 or integer source is
  first narrowed to float32 rounding to odd, which keeps the final rounding exact);
- to float8_e4m3fn / float8_e5m2 it saturates: a value beyond the largest finite one (infinities
  included) becomes that value with its sign (448 and 57344), as PTX's `cvt.rn.satfinite` does
  (sm_90 has no other fp8 conversion); NaN stays NaN;
- tfloat32 keeps float32's range and encoding (the low 13 mantissa bits are zero), so a value
  that rounds past the largest one becomes infinity, as float32 does;
- to float8_e8m0fnu (an exponent alone: 2**(bits - 127), 0xFF NaN; no sign, zero or infinity)
  a positive value rounds to the nearest power of two (1.5 * 2**e, the tie, up), saturating:
  below 2**-127 (zero included) is 2**-127, beyond 2**127 (+inf included) is 2**127; negative
  values and NaN are NaN. Zero padding of a scale array thus gives the smallest scale, not NaN;
- to float4_e2m1fn (0, 0.5, 1, 1.5, 2, 3, 4, 6 and negatives; no inf or NaN) it rounds to
  nearest, ties to even, and saturates: beyond 6 (infinities included) is 6 with its sign; the
  sign survives rounding to zero (-0.25 is -0); NaN is +6 (PTX's `satfinite` gives NaN-less
  formats their largest value; ml_dtypes would give -0);
- to float8_e5m3fnu (no sign; 5 exponent bits, bias 15, 3 mantissa bits: subnormals
  m * 2**-17, 1.75 * 2**16 = 114688 the largest, 0xFF NaN, no infinity) it rounds to nearest,
  ties to even, and saturates: beyond 114688 (+inf included) is 114688; -0.0 is zero; other
  negative values (-inf included) and NaN are NaN (0xFF). cuTile's constants refuse negative
  values (the front end raises its error); its run-time rule on sm_107 is not in its source;
- conversion from them is exact: every value is representable in float16 (e4m3, e5m2, e2m1)
  or float32 (e8m0, e5m3fnu, tfloat32), and goes on from there as that dtype would.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from tilelang.dialect.round_to_odd import round_to_odd_float32
from tilelang.dialect.float8_e5m3 import (
    E5M3_MAX_VALUE,
    E5M3FNU,
    e5m3_codes,
    widen_restricted,
)
from tilelang.language import dtypes as dt
from tilelang.language.dtypes import DType

FLOAT8_NUMPY = {d: np.dtype(getattr(ml_dtypes, d.numpy)) for d in dt.REGISTER_BYTE_DTYPES
                if d is not dt.float8_e5m3fnu} | {dt.float8_e5m3fnu: E5M3FNU}
TF32_DROPPED_BITS = 13  # float32 keeps 23 mantissa bits, tfloat32 10
E8M0_NAN = 0xFF
E8M0_MAX = 0xFE  # 2**127
E2M1_MAX = 0x7  # 6.0; 0x8 is the sign bit
# float4_e2m1fn's code of |x| is the number of these it passes (> for a tie that rounds down
# to an even code, >= for one that rounds up); 5.0 and beyond is 6: saturation
E2M1_STEPS = ((0.25, False), (0.75, True), (1.25, False), (1.75, True), (2.5, False),
              (3.5, True), (5.0, False))


def float8_max(dtype: DType) -> float:
    """The largest finite value of an 8-bit float dtype."""
    if dtype is dt.float8_e5m3fnu:
        return E5M3_MAX_VALUE
    return float(ml_dtypes.finfo(FLOAT8_NUMPY[dtype]).max)


def to_restricted(x: np.ndarray, dtype: DType) -> np.ndarray:
    """`x` converted to the restricted float `dtype` (the array holds it as NumPy stores it)."""
    f = _exact_float32(widen_restricted(x))
    if dtype is dt.float8_e5m3fnu:
        return e5m3_codes(f).view(E5M3FNU)
    if dtype is dt.tfloat32:
        return _round_to_tfloat32(f)
    if dtype is dt.float8_e8m0fnu:
        return e8m0_bits(f).view(FLOAT8_NUMPY[dtype])
    if dtype is dt.float4_e2m1fn:
        return e2m1_codes(f).view(FLOAT8_NUMPY[dtype])
    limit = float8_max(dtype)
    return np.clip(f, -limit, limit).astype(FLOAT8_NUMPY[dtype])


def _exact_float32(x: np.ndarray) -> np.ndarray:
    """float32 values from which one more rounding to <= 22 mantissa bits is exact."""
    if x.dtype == np.bool_:
        return x.astype(np.float32)
    if x.dtype.kind in "iu" or x.dtype == np.float64:
        return round_to_odd_float32(x)
    return x.astype(np.float32)  # float16, bfloat16, the 8-bit floats: exact


def _round_to_tfloat32(f: np.ndarray) -> np.ndarray:
    bits = np.ascontiguousarray(f, dtype=np.float32).view(np.uint32)
    special = (bits & np.uint32(0x7F800000)) == np.uint32(0x7F800000)  # inf and NaN stay
    half = np.uint32((1 << (TF32_DROPPED_BITS - 1)) - 1)
    odd = (bits >> np.uint32(TF32_DROPPED_BITS)) & np.uint32(1)
    rounded = (bits + half + odd) & np.uint32(~((1 << TF32_DROPPED_BITS) - 1) & 0xFFFFFFFF)
    return np.where(special, bits, rounded).astype(np.uint32).view(np.float32)


def e8m0_bits(f: np.ndarray) -> np.ndarray:
    """The float8_e8m0fnu bytes of float32 values (the GPU lowering computes the same on the
    float32 bits): the exponent field, plus one when the mantissa is at least half."""
    bits = np.ascontiguousarray(f, dtype=np.float32).view(np.uint32).astype(np.int64)
    exponent, mantissa = (bits >> 23) & 0xFF, bits & 0x7FFFFF
    normal = exponent + (mantissa >= 0x400000)
    subnormal = (mantissa >= 0x600000).astype(np.int64)  # 1.5 * 2**-127: the tie, up
    out = np.minimum(np.where(exponent == 0, subnormal, normal), E8M0_MAX)
    nan = np.isnan(f) | (bits >> 31 == 1) & (bits != 0x80000000)  # -0.0 is zero
    return np.where(nan, E8M0_NAN, out).astype(np.uint8)


def e2m1_codes(f: np.ndarray) -> np.ndarray:
    """float4_e2m1fn's codes (one a byte) of float32 values: the steps |f| passes, the sign bit
    on top; NaN is +6 (the GPU lowering computes the same with float32 comparisons)."""
    f = np.ascontiguousarray(f, dtype=np.float32)
    magnitude = np.abs(f)
    code = np.zeros(f.shape, np.uint8)
    for step, up in E2M1_STEPS:
        code += (magnitude >= step) if up else (magnitude > step)
    sign = (f.view(np.uint32) >> np.uint32(31)).astype(np.uint8) << np.uint8(3)
    return np.where(np.isnan(f), np.uint8(E2M1_MAX), code | sign).astype(np.uint8)


def round_scalar(value: float, dtype: DType) -> float:
    """A Python float converted to `dtype` and back: the value a constant of `dtype` holds."""
    x = np.asarray(value, dtype=np.float64)
    return float(widen_restricted(to_restricted(x.reshape(1), dtype))[0])
