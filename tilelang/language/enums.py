"""Language: enumerations used as constant arguments (padding and rounding modes)."""

from __future__ import annotations

import enum


class PaddingMode(enum.Enum):
    """Value given to the elements of a loaded tile that fall outside the array."""

    UNDETERMINED = "undetermined"  # unspecified; tilelang reads zeros on GPU and interpreter
    ZERO = "zero"
    NEG_ZERO = "neg_zero"
    NAN = "nan"
    POS_INF = "pos_inf"
    NEG_INF = "neg_inf"


class RoundingMode(enum.Enum):
    """Rounding of floating-point results (accepted by the ops that document it)."""

    RN = "nearest_even"
    RZ = "zero"
    RM = "negative_inf"
    RP = "positive_inf"
    RA = "nearest_away"
    FULL = "full"
    APPROX = "approx"
    RZI = "nearest_int_to_zero"
