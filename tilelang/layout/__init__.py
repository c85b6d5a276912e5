"""Linear layouts: how tile elements are distributed over the registers, lanes and warps."""

from __future__ import annotations

from . import gf2
from .blocked import blocked, default_blocked, in_bounds, padded_shape
from .conversion import (
    ConversionKind,
    ConversionPlan,
    LaneShuffle,
    element_coords,
    is_owner_thread,
    iter_slots,
    lane_shuffle,
    owned_elements,
    owned_registers,
    plan_conversion,
    register_representatives,
    shared_bytes,
    shared_offset,
    shared_offset_bases,
)
from .linear import IN_DIMS, WARP_SIZE, LinearLayout
from .maps import Coord, LinearMap
from .text import LayoutTextError, from_text, to_text

__all__ = [
    "IN_DIMS",
    "WARP_SIZE",
    "ConversionKind",
    "ConversionPlan",
    "Coord",
    "LaneShuffle",
    "LayoutTextError",
    "LinearLayout",
    "LinearMap",
    "blocked",
    "default_blocked",
    "element_coords",
    "from_text",
    "gf2",
    "in_bounds",
    "is_owner_thread",
    "iter_slots",
    "lane_shuffle",
    "owned_elements",
    "owned_registers",
    "padded_shape",
    "plan_conversion",
    "register_representatives",
    "shared_bytes",
    "shared_offset",
    "shared_offset_bases",
    "to_text",
]
