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
- conversion from them is exact: every value is representable in float16 (8-bit floats) or
  float32 (tfloat32), and goes on from there as that dtype would.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from tilelang.dialect.round_to_odd import round_to_odd_float32
from tilelang.language import dtypes as dt
from tilelang.language.dtypes import DType

FLOAT8_NUMPY = {d: np.dtype(getattr(ml_dtypes, d.numpy)) for d in dt.FLOAT8_DTYPES}
TF32_DROPPED_BITS = 13  # float32 keeps 23 mantissa bits, tfloat32 10


def float8_max(dtype: DType) -> float:
    """The largest finite value of an 8-bit float dtype."""
    return float(ml_dtypes.finfo(FLOAT8_NUMPY[dtype]).max)


def to_restricted(x: np.ndarray, dtype: DType) -> np.ndarray:
    """`x` converted to the restricted float `dtype` (the array holds it as NumPy stores it)."""
    f = _exact_float32(x)
    if dtype is dt.tfloat32:
        return _round_to_tfloat32(f)
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


def round_scalar(value: float, dtype: DType) -> float:
    """A Python float converted to `dtype` and back: the value a constant of `dtype` holds."""
    x = np.asarray(value, dtype=np.float64)
    return float(to_restricted(x.reshape(1), dtype)[0])
