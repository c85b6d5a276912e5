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
- conversion from them is exact: every value is representable in float16 (e4m3, e5m2) or
  float32 (e8m0, tfloat32), and goes on from there as that dtype would.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from tilelang.dialect.round_to_odd import round_to_odd_float32
from tilelang.language import dtypes as dt
from tilelang.language.dtypes import DType

FLOAT8_NUMPY = {d: np.dtype(getattr(ml_dtypes, d.numpy)) for d in dt.BYTE_FLOAT_DTYPES}
TF32_DROPPED_BITS = 13  # float32 keeps 23 mantissa bits, tfloat32 10
E8M0_NAN = 0xFF
E8M0_MAX = 0xFE  # 2**127


def float8_max(dtype: DType) -> float:
    """The largest finite value of an 8-bit float dtype."""
    return float(ml_dtypes.finfo(FLOAT8_NUMPY[dtype]).max)


def to_restricted(x: np.ndarray, dtype: DType) -> np.ndarray:
    """`x` converted to the restricted float `dtype` (the array holds it as NumPy stores it)."""
    f = _exact_float32(x)
    if dtype is dt.tfloat32:
        return _round_to_tfloat32(f)
    if dtype is dt.float8_e8m0fnu:
        return e8m0_bits(f).view(FLOAT8_NUMPY[dtype])
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


def round_scalar(value: float, dtype: DType) -> float:
    """A Python float converted to `dtype` and back: the value a constant of `dtype` holds."""
    x = np.asarray(value, dtype=np.float64)
    return float(to_restricted(x.reshape(1), dtype)[0])
