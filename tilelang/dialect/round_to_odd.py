"""Dialect: float32 "rounded to odd", the first step of the conversions that must round once.

semantics.cast (to bfloat16) and restricted.to_restricted (to tfloat32 and the 8-bit floats)
both narrow float64 and wide integers this way before the final rounding.
"""

from __future__ import annotations

import numpy as np


def round_to_odd_float32(x: np.ndarray) -> np.ndarray:
    """float64 or 32/64-bit integers as float32, rounded toward zero with the last bit set when
    inexact ("round to odd"): rounding that to bfloat16 then equals rounding `x` directly."""
    if x.dtype.kind in "iu":  # keep the top 24 bits of |x| exactly, the rest as a sticky bit
        m = x.astype(np.uint64)
        if x.dtype.kind == "i":
            m = np.where(x < 0, ~m + np.uint64(1), m)
        shift = np.maximum(np.frexp(m.astype(np.float64))[1] - 24, 0).astype(np.uint64)
        q = m >> shift
        q |= ((q << shift) != m).astype(np.uint64)
        f = np.ldexp(q.astype(np.float64), shift.astype(np.int32)).astype(np.float32)
        return np.where(x < 0, -f, f)
    f = x.astype(np.float32)
    wide = f.astype(np.float64)
    f = np.where(np.abs(wide) > np.abs(x), np.nextafter(f, np.float32(0)), f)
    inexact = (wide != x) & ~np.isnan(x)
    return (f.view(np.uint32) | inexact.astype(np.uint32)).view(np.float32)
