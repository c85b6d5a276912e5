"""Plans for converting a distributed value between layouts, and per-thread enumeration."""

from __future__ import annotations

import enum
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from . import gf2
from .linear import IN_DIMS, LinearLayout
from .maps import Coord
from .shape_ops import flatten


class ConversionKind(enum.Enum):
    IDENTICAL = "identical"
    REGISTER_PERMUTATION = "register_permutation"
    WARP_SHUFFLE = "warp_shuffle"
    SHARED_MEMORY = "shared_memory"


# A shuffle plan whose source register depends on the reading lane takes one shuffle per
# possible source register (then a select); beyond this many, shared memory is cheaper.
MAX_SHUFFLE_ROUNDS = 4


@dataclass(frozen=True)
class LaneShuffle:
    """A conversion that stays inside each warp, as linear maps over GF(2).

    Lane l's dst register r is src register A.r ^ B.l of lane C.r ^ D.l, in the same warp.
    Each matrix is given by its columns, one bit mask per input bit (A, C per dst register bit;
    B, D per lane bit).
    """

    a: tuple[int, ...]
    b: tuple[int, ...]
    c: tuple[int, ...]
    d: tuple[int, ...]

    def source(self, register: int, lane: int) -> tuple[int, int]:
        """(src register, src lane) that dst (register, lane) reads."""
        return (gf2.matvec(self.a, register) ^ gf2.matvec(self.b, lane),
                gf2.matvec(self.c, register) ^ gf2.matvec(self.d, lane))

    def register_choices(self) -> tuple[int, ...]:
        """The values B.l takes over the lanes: one shuffle round each."""
        span = {0}
        for column in self.b:
            span |= {v ^ column for v in span}
        return tuple(sorted(span))

    def reads_own_lane(self, register: int) -> bool:
        """Whether every lane reads dst `register` from itself (no shuffle needed)."""
        return (not any(self.b) and gf2.matvec(self.c, register) == 0
                and self.d == tuple(1 << k for k in range(len(self.d))))


def lane_shuffle(src: LinearLayout, dst: LinearLayout) -> LaneShuffle | None:
    """The in-warp shuffle plan from src to dst, or None when elements must cross warps.

    Exists when both layouts have the same warp bases and every register and lane basis of dst
    is a combination of src's register and lane bases (the solution need not be unique: src
    replicas hold equal values).
    """
    if src.shape != dst.shape or src.bases["warp"] != dst.bases["warp"]:
        return None
    columns = src._dim_columns("register") + src._dim_columns("lane")
    reg_bits = src.in_bits("register")
    parts: dict[str, list[tuple[int, int]]] = {}
    for dim in ("register", "lane"):
        parts[dim] = []
        for target in dst._dim_columns(dim):
            mask = gf2.solve(columns, target)
            if mask is None:
                return None
            parts[dim].append((mask & ((1 << reg_bits) - 1), mask >> reg_bits))
    regs, lanes = parts["register"], parts["lane"]
    return LaneShuffle(tuple(r for r, _ in regs), tuple(r for r, _ in lanes),
                       tuple(lane for _, lane in regs), tuple(lane for _, lane in lanes))


@dataclass(frozen=True)
class ConversionPlan:
    """How to turn a value in layout `src` into layout `dst`.

    REGISTER_PERMUTATION: dst register r takes src register register_map[r], same
    thread. WARP_SHUFFLE: each dst register is read from another lane of the warp (`shuffle`).
    SHARED_MEMORY: owner slots of src store each element at shared_offset(coord), barrier,
    then every dst slot loads its element.
    """

    kind: ConversionKind
    src: LinearLayout
    dst: LinearLayout
    register_map: tuple[int, ...] | None = None
    shuffle: LaneShuffle | None = None

    def shared_bytes(self, elem_bytes: int) -> int:
        """Shared memory needed by this plan (0 unless it goes through shared memory)."""
        if self.kind is not ConversionKind.SHARED_MEMORY:
            return 0
        return shared_bytes(self.src.shape, elem_bytes)


def plan_conversion(src: LinearLayout, dst: LinearLayout) -> ConversionPlan:
    """Cheapest known plan: identical, in-thread register permutation, shuffles within warps
    (up to MAX_SHUFFLE_ROUNDS per register), or shared memory."""
    if src.shape != dst.shape:
        raise ValueError(f"cannot convert between shapes {src.shape} and {dst.shape}")
    if src == dst:
        return ConversionPlan(ConversionKind.IDENTICAL, src, dst)
    register_map = src.register_permutation_to(dst)
    if register_map is not None:
        return ConversionPlan(ConversionKind.REGISTER_PERMUTATION, src, dst, register_map)
    shuffle = lane_shuffle(src, dst)
    if shuffle is not None and len(shuffle.register_choices()) <= MAX_SHUFFLE_ROUNDS:
        return ConversionPlan(ConversionKind.WARP_SHUFFLE, src, dst, shuffle=shuffle)
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


def register_representatives(layout: LinearLayout) -> tuple[int, ...]:
    """For each register, the thread's first register that holds the same element (itself when
    none before it does; the same for every thread: registers add their bases by XOR). A
    conversion into a layout that repeats elements in a thread's registers computes each
    element once and copies it to its repeats."""
    first: dict[Coord, int] = {}
    return tuple(first.setdefault(layout.apply(r, 0, 0), r) for r in range(layout.num_registers))


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
