"""Language: enumerations used as constant arguments (padding, rounding, memory order)."""

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


class MemoryOrder(enum.Enum):
    """Memory ordering of an atomic operation (cuTile's values)."""

    WEAK = "weak"  # not atomic: cuTile's default for loads and stores; atomics reject it
    RELAXED = "relaxed"  # atomic, but orders nothing else
    ACQUIRE = "acquire"  # later accesses of the block are not moved before it
    RELEASE = "release"  # earlier accesses of the block are not moved after it
    ACQ_REL = "acq_rel"  # both


class MemoryScope(enum.Enum):
    """The threads an atomic operation's ordering is guaranteed for (cuTile's values)."""

    NONE = "none"  # no scope: only for WEAK accesses; atomics reject it
    BLOCK = "block"  # the threads of the same block
    DEVICE = "device"  # every thread on the same GPU
    SYS = "sys"  # the whole system: other GPUs and the host
