"""Plans for converting a distributed value between layouts, and per-thread enumeration."""

from __future__ import annotations

import enum
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .linear import IN_DIMS, LinearLayout
from .maps import Coord
from .shape_ops import flatten


class ConversionKind(enum.Enum):
    IDENTICAL = "identical"
    REGISTER_PERMUTATION = "register_permutation"
    SHARED_MEMORY = "shared_memory"


@dataclass(frozen=True)
class ConversionPlan:
    """How to turn a value in layout `src` into layout `dst`.

    REGISTER_PERMUTATION: dst register r takes src register register_map[r], same
    thread. SHARED_MEMORY: owner slots of src store each element at
    shared_offset(coord), barrier, then every dst slot loads its element.
    """

    kind: ConversionKind
    src: LinearLayout
    dst: LinearLayout
    register_map: tuple[int, ...] | None = None

    def shared_bytes(self, elem_bytes: int) -> int:
        """Shared memory needed by this plan (0 unless it goes through shared memory)."""
        if self.kind is not ConversionKind.SHARED_MEMORY:
            return 0
        return shared_bytes(self.src.shape, elem_bytes)


def plan_conversion(src: LinearLayout, dst: LinearLayout) -> ConversionPlan:
    """Cheapest known plan: identical, in-thread register permutation, or shared memory."""
    if src.shape != dst.shape:
        raise ValueError(f"cannot convert between shapes {src.shape} and {dst.shape}")
    if src == dst:
        return ConversionPlan(ConversionKind.IDENTICAL, src, dst)
    register_map = src.register_permutation_to(dst)
    if register_map is not None:
        return ConversionPlan(ConversionKind.REGISTER_PERMUTATION, src, dst, register_map)
    return ConversionPlan(ConversionKind.SHARED_MEMORY, src, dst)


# ---- shared memory staging (row-major for now; a swizzle would change only these) ------------


def shared_offset(coord: Sequence[int], shape: Sequence[int]) -> int:
    """Element offset of coord in the shared-memory staging buffer (row-major)."""
    return flatten(coord, shape)


def shared_bytes(shape: Sequence[int], elem_bytes: int) -> int:
    """Bytes of the staging buffer for a tile of (padded) shape."""
    if elem_bytes < 1:
        raise ValueError(f"elem_bytes must be positive, got {elem_bytes}")
    return math.prod(shape) * elem_bytes


def shared_offset_bases(layout: LinearLayout) -> dict[str, tuple[int, ...]]:
    """Per in-dim bit, its contribution to the shared offset of a slot's element.

    Row-major offsets of a power-of-two tile are linear over GF(2): the offset of the
    element of slot (r, l, w) is the XOR (not the sum) of the entries of its set bits.
    """
    return {d: tuple(shared_offset(v, layout.shape) for v in layout.bases[d]) for d in IN_DIMS}


# ---- per-thread enumeration for code generation ---------------------------------------------


def element_coords(layout: LinearLayout, lane: int, warp: int) -> tuple[Coord, ...]:
    """Coordinates held by thread (lane, warp), indexed by register."""
    return tuple(layout.apply(r, lane, warp) for r in range(layout.num_registers))


def owned_registers(layout: LinearLayout) -> tuple[int, ...]:
    """Registers that are a thread's first copy of their element (same for every thread).

    Registers duplicating an earlier register of the same thread are left out, so a
    store through these (by owner threads) writes every element exactly once.
    """
    mask = layout.owner_masks()["register"]
    return tuple(r for r in range(layout.num_registers) if not r & mask)


def is_owner_thread(layout: LinearLayout, lane: int, warp: int) -> bool:
    """Whether thread (lane, warp) must store its owned registers (broadcast bits are 0)."""
    return layout.is_owner(0, lane, warp)


def owned_elements(layout: LinearLayout, lane: int, warp: int) -> tuple[tuple[int, Coord], ...]:
    """(register, coord) pairs thread (lane, warp) stores so each element is written once."""
    if not is_owner_thread(layout, lane, warp):
        return ()
    return tuple((r, layout.apply(r, lane, warp)) for r in owned_registers(layout))


def iter_slots(layout: LinearLayout) -> Iterator[tuple[int, int, int]]:
    """All (register, lane, warp) slots, register fastest."""
    for warp in range(layout.num_warps):
        for lane in range(layout.num_lanes):
            for register in range(layout.num_registers):
                yield register, lane, warp
