"""How a layout conversion stages a tile in shared memory, chosen by a bank-conflict model.

Two kinds of staging buffers for a tile of padded (power-of-two) shape:
- *padded*: row-major with each row padded by one 32-bit word, accessed one element at a time
  (the classic transpose buffer: a column read hits 32 different banks);
- *swizzled*: row-major with `vector` consecutive elements kept together, and the vector's
  column within a 128-byte line XORed with low bits of the row, so that both the rows the
  source writes and the columns the destination reads spread over the banks. Each side then
  moves up to `vector` consecutive elements per instruction (up to 16 bytes).

A swizzled offset is linear over GF(2) in the coordinate bits, so a thread's offset is the XOR
of a per-thread part and a per-register constant. `choose_staging` prices every candidate by
the shared-memory wavefronts and instructions of the source's stores plus the destination's
loads (warp 0, as the hardware serves it: 32 banks of 4 bytes; 8- and 16-byte accesses in
phases of 16 and 8 lanes) and takes the cheapest.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .linear import LinearLayout
from .maps import Coord

if TYPE_CHECKING:
    from .boxes import BoxBuffer

BANKS = 32
BANK_BYTES = 4
LINE_BYTES = BANKS * BANK_BYTES
MAX_ACCESS_BYTES = 16


@dataclass(frozen=True)
class Staging:
    """A staging buffer for a tile of `shape` (powers of two) with elements of `itemsize`."""

    shape: tuple[int, ...]
    itemsize: int
    vector: int  # consecutive elements kept together (1 for the padded buffer)
    padded: bool  # rows padded by one word (then vector is 1 and nothing is swizzled)

    @property
    def row(self) -> int:
        return self.shape[-1] if self.shape else 1

    @property
    def pitch(self) -> int:
        """Elements from one row to the next."""
        return self.row + (max(1, BANK_BYTES // self.itemsize) if self.padded else 0)

    def swizzle(self) -> tuple[int, int]:
        """(bits, row_shift): the vector column's low `bits` are XORed with the row index
        shifted right by `row_shift` (rows sharing one 128-byte line keep one phase)."""
        if self.padded:
            return 0, 0
        rows = math.prod(self.shape[:-1])
        columns = self.row // self.vector
        per_line = max(1, LINE_BYTES // (self.vector * self.itemsize))
        rows_per_line = max(1, LINE_BYTES // (self.row * self.itemsize))
        bits = min(per_line, columns, max(1, rows // rows_per_line)).bit_length() - 1
        return bits, rows_per_line.bit_length() - 1

    def row_col(self, coord: Sequence[int]) -> tuple[int, int]:
        """The row (all dims but the last, row-major) and column of coord."""
        row = 0
        for c, size in zip(coord[:-1], self.shape[:-1], strict=True):
            row = row * size + c
        return row, coord[-1] if coord else 0

    def offset(self, coord: Sequence[int]) -> int:
        """Element offset of coord in the buffer."""
        row, col = self.row_col(coord)
        if self.padded:
            return row * self.pitch + col
        bits, shift = self.swizzle()
        phase = (row >> shift) & ((1 << bits) - 1)
        vec_col = (col // self.vector) ^ phase
        return row * self.row + vec_col * self.vector + col % self.vector

    def size(self) -> int:
        """Elements the buffer spans."""
        rows = math.prod(self.shape[:-1])
        return (rows - 1) * self.pitch + self.row if self.padded else rows * self.row

    def offset_bases(self, layout: LinearLayout) -> dict[str, tuple[int, ...]]:
        """Per in-dim bit of `layout`, its term of the offset (XORed; swizzled buffers only)."""
        assert not self.padded, "padded offsets are sums, not XORs"
        return {d: tuple(self.offset(v) for v in layout.bases[d]) for d in layout.bases}


def contiguous_registers(layout: LinearLayout, limit: int) -> int:
    """How many consecutive registers hold consecutive elements along the last dim, with the
    first at an offset that is a multiple of that count (a power of two, at most `limit`)."""
    regs = layout.bases["register"]
    ndim = layout.ndim
    run = 1
    while run * 2 <= limit and (run.bit_length() - 1) < len(regs):
        basis = regs[run.bit_length() - 1]
        if tuple(basis) != tuple(run if d == ndim - 1 else 0 for d in range(ndim)):
            break
        run *= 2
    low = run - 1
    others = list(regs[run.bit_length() - 1:]) + list(layout.bases["lane"]) + \
        list(layout.bases["warp"])
    while run > 1 and any(b[-1] & low for b in others):
        run //= 2
        low = run - 1
    return run


def candidates(shape: tuple[int, ...], itemsize: int) -> list[Staging]:
    out = [Staging(shape, itemsize, 1, True)]
    vector = 1
    while vector * itemsize <= MAX_ACCESS_BYTES and vector <= (shape[-1] if shape else 1):
        out.append(Staging(shape, itemsize, vector, False))
        vector *= 2
    return out


@dataclass(frozen=True)
class StagingPlan:
    staging: Staging
    store_vector: int  # elements per store of the source
    load_vector: int  # elements per load of the destination
    cost: float


@functools.lru_cache(maxsize=256)
def choose_staging(src: LinearLayout, dst: LinearLayout, itemsize: int) -> StagingPlan:
    """The cheapest staging buffer for converting src to dst (see the module's docstring);
    remembered per (src, dst, itemsize): a kernel often converts the same pair twice."""
    best = None
    for staging in candidates(tuple(src.shape), itemsize):
        store = min(contiguous_registers(src, staging.vector), staging.vector)
        load = min(contiguous_registers(dst, staging.vector), staging.vector)
        cost = access_cost(src, staging, store, owned_only=True) + \
            access_cost(dst, staging, load, owned_only=False)
        if best is None or cost < best.cost:
            best = StagingPlan(staging, store, load, cost)
    assert best is not None
    return best


def access_cost(layout: LinearLayout, staging: Staging | BoxBuffer, vector: int,
                owned_only: bool) -> float:
    """Wavefronts plus instructions of one warp accessing its elements of `layout` in the
    buffer, `vector` consecutive registers per access."""
    from .conversion import owned_registers

    registers = owned_registers(layout) if owned_only else range(layout.num_registers)
    width = vector * staging.itemsize
    lanes_per_phase = BANKS // max(1, width // BANK_BYTES)
    # A coordinate is the XOR of its register part and its lane part (the layout is linear),
    # and so are a swizzled offset and a padded buffer's row and column (the shape is powers of
    # two): each part is computed once, not once per (register, lane).
    lanes, register_coords = _coordinate_parts(layout)
    itemsize, pitch = staging.itemsize, staging.pitch

    def cost(addresses: list[int]) -> int:
        phases = range(0, layout.num_lanes, lanes_per_phase)
        return sum(_wavefronts(addresses[p:p + lanes_per_phase], width) for p in phases) + 1

    padded = staging if isinstance(staging, Staging) and staging.padded else None
    if padded is not None:
        lane_parts = [padded.row_col(c) for c in lanes]
    else:
        lane_offsets = [staging.offset(c) for c in lanes]
        # Where each lane's access stays inside one aligned block of `unit` bytes, a register
        # whose offset is a multiple of `unit` XORs the blocks, hence every word, with one
        # constant: that permutes the banks, so the register costs what offset 0 costs.
        unit = max(width, BANK_BYTES)
        same = all(o * itemsize % unit + max(width, 1) <= unit for o in lane_offsets)
        unshifted = cost([o * itemsize for o in lane_offsets])
    total = 0.0
    for r in registers:
        if r % vector:
            continue
        reg = register_coords[r]
        if padded is not None:
            row, col = padded.row_col(reg)
            total += cost([((row ^ lr) * pitch + (col ^ lc)) * itemsize for lr, lc in lane_parts])
            continue
        offset = staging.offset(reg)
        if same and offset * itemsize % unit == 0:
            total += unshifted
        else:
            total += cost([(offset ^ o) * itemsize for o in lane_offsets])
    return total


@functools.lru_cache(maxsize=64)
def _coordinate_parts(layout: LinearLayout) -> tuple[tuple[Coord, ...], tuple[Coord, ...]]:
    """The lane part of each lane's coordinates and the register part of each register's (every
    staging candidate prices the same layout)."""
    lanes = tuple(layout.apply(0, lane, 0) for lane in range(layout.num_lanes))
    return lanes, tuple(layout.apply(r, 0, 0) for r in range(layout.num_registers))


def _wavefronts(addresses: Sequence[int], width: int) -> int:
    """Bank conflicts of one phase: the most distinct words any bank must serve."""
    span = max(width, 1) - 1
    words: set[int] = set()
    for a in addresses:
        first, last = a // BANK_BYTES, (a + span) // BANK_BYTES
        if first == last:
            words.add(first)
        else:
            words.update(range(first, last + 1))
    per_bank = [0] * BANKS
    for w in words:
        per_bank[w % BANKS] += 1
    return max(per_bank)


# ----- ldmatrix ----------------------------------------------------------------------------------

MATRIX_ROW = 8  # an ldmatrix row: 8 consecutive 16-bit elements (16 bytes) of the buffer


@dataclass(frozen=True)
class MatrixLoad:
    """How `ldmatrix` (8x8 matrices of 16-bit elements) reads a layout from a swizzled buffer.

    Each lane gets, of each matrix, two elements adjacent along the buffer's rows (`.trans`:
    along its columns) as register r (low half) and r + 1: register bit 0 and lane bits 0-1
    (`.trans`: lane bits 2-4) step through a matrix row. Lane L gives the address of row L % 8
    of matrix L // 8; `address_bits[b]` is the (in-dim, bit) of the layout that lane bit b of
    that address stands for. One instruction fills 2 * count consecutive registers."""

    trans: bool
    count: int  # matrices per instruction: 1, 2 or 4
    address_bits: tuple[tuple[str, int], ...]


def matrix_load(layout: LinearLayout, itemsize: int) -> MatrixLoad | None:
    """The ldmatrix form that reads `layout` (rows along its last dim), or None."""
    if itemsize != 2 or layout.ndim == 0 or layout.shape[-1] < MATRIX_ROW:
        return None
    regs, lanes, warps = (layout.bases[d] for d in ("register", "lane", "warp"))
    if not regs or len(lanes) != 5:
        return None

    def along_row(basis: tuple[int, ...], step: int) -> bool:
        return all(c == (step if d == layout.ndim - 1 else 0) for d, c in enumerate(basis))

    def whole_rows(basis: tuple[int, ...]) -> bool:
        return basis[-1] % MATRIX_ROW == 0

    count = {1: 1, 2: 2}.get(len(regs), 4)
    matrix_bits = [("register", 1), ("register", 2)][:count.bit_length() - 1]
    if along_row(regs[0], 1) and along_row(lanes[0], 2) and along_row(lanes[1], 4):
        trans = False
        row_bits = [("lane", 2), ("lane", 3), ("lane", 4)]
    elif along_row(lanes[2], 1) and along_row(lanes[3], 2) and along_row(lanes[4], 4):
        trans = True
        row_bits = [("register", 0), ("lane", 0), ("lane", 1)]
    else:
        return None
    address_bits = (*row_bits, *matrix_bits)
    in_row = {("lane", 0), ("lane", 1), ("register", 0)} if not trans else \
        {("lane", 2), ("lane", 3), ("lane", 4)}
    others = [b for d, vs in (("register", regs), ("lane", lanes), ("warp", warps))
              for i, b in enumerate(vs) if (d, i) not in in_row]
    if not all(whole_rows(b) for b in others):
        return None
    return MatrixLoad(trans, count, address_bits)


def matrix_staging(shape: tuple[int, ...]) -> Staging:
    """The buffer ldmatrix reads: 16-byte vectors, swizzled so a matrix's 8 rows hit 8
    different 16-byte bank groups."""
    return Staging(shape, 2, MATRIX_ROW, False)
