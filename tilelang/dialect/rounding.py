"""Dialect: astype's rounding modes between floats (`tile.cast`'s `rounding_mode`), in NumPy.

Without the attribute a cast rounds to nearest even (dialect/semantics.py). With it:
- "zero" (RZ): the nearest value of the target no larger in magnitude (a finite value beyond
  the target's range becomes its largest finite value);
- "negative_inf" (RM) / "positive_inf" (RP): the nearest value not above / not below (past the
  largest finite value, -inf for RM of a negative value, +inf for RP of a positive one);
- "nearest_away" (RA): nearest, ties away from zero.
NaN stays NaN, infinities and zeros keep their sign. A conversion that is exact (to a wider
format) gives the same value whatever the mode.

Each is the round-to-nearest result moved by at most one step (one unit in the last place of
the target) in the mode's direction: the GPU lowering (passes/simt/rounding.py) must agree.
"""

from __future__ import annotations

import numpy as np

from tilelang.dialect.semantics import cast as cast_to_nearest
from tilelang.dialect.semantics import widen_restricted
from tilelang.language import dtypes as dt
from tilelang.language.dtypes import DType

MODES = ("zero", "negative_inf", "positive_inf", "nearest_away")
_BITS = {16: np.uint16, 32: np.uint32, 64: np.uint64}


def cast(x: np.ndarray, dtype: DType, mode: str | None) -> np.ndarray:
    """`x` converted to `dtype` with rounding `mode` (None: to nearest even)."""
    x = widen_restricted(np.asarray(x))  # float8_e5m3fnu: its values, exactly in float32
    nearest = np.asarray(cast_to_nearest(x, dtype))
    if mode is None or not dtype.is_float:
        return nearest
    return round_from_nearest(np.asarray(x), nearest, dtype, mode)


def ulp_bits(dtype: DType) -> int:
    """One unit in the last place, on the bits that hold `dtype` (tfloat32: float32's bits)."""
    return 1 << 13 if dtype is dt.tfloat32 else 1


def round_from_nearest(x: np.ndarray, nearest: np.ndarray, dtype: DType,
                       mode: str) -> np.ndarray:
    """The conversion of float `x` to `dtype` with `mode`, given `nearest`, the same conversion
    rounded to nearest even."""
    if mode not in MODES:
        raise ValueError(f"unknown rounding mode {mode!r}")
    with np.errstate(invalid="ignore", over="ignore"):
        exact, near = np.abs(x.astype(np.float64)), np.abs(nearest.astype(np.float64))
        bits = nearest.view(_BITS[nearest.dtype.itemsize * 8])
        step = bits.dtype.type(ulp_bits(dtype))
        if mode == "nearest_away":  # a tie rounded toward zero goes one step out instead
            outward = np.abs((bits + step).view(nearest.dtype).astype(np.float64))
            up = (near < exact) & (exact - near == outward - exact)
            down = np.zeros_like(up)
        else:
            negative = np.signbit(x)
            truncate = {"zero": np.ones_like(negative), "negative_inf": ~negative,
                        "positive_inf": negative}[mode]
            down = truncate & (near > exact)  # magnitude one step toward zero
            up = ~truncate & (near < exact)  # magnitude one step away from zero
    moved = bits + up.astype(bits.dtype) * step - down.astype(bits.dtype) * step
    return moved.view(nearest.dtype)
