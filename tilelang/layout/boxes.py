"""Where a tile's elements go in the shared-memory buffer a TMA store reads (sm_90).

A TMA box with the 128-byte swizzle is `box_rows` rows of one 128-byte panel of columns; within
it, row r's 16-byte chunk c sits at chunk c ^ (r % 8) (the hardware's swizzle, what wgmma's
operands use too). A tile of (rows, cols) is cut into boxes: its column panels, and groups of at
most 256 rows (a box's limit), each box 1024-byte aligned, one after the other with the panels
innermost. With powers of two everywhere, an element's offset is linear over GF(2) in the bits
of its coordinates, so a thread's offset is the XOR of a per-thread part and a per-register
constant, as in a swizzled staging buffer (layout/staging.py).

A big tile is stored in rounds of a few boxes through two slots of shared memory (`rounds`), so
that a persistent kernel's epilogue leaves room for one more stage of its ring.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .linear import LinearLayout

PANEL_BYTES = 128  # a box's row with the 128-byte swizzle
CHUNK_BYTES = 16  # the unit the swizzle moves
SWIZZLE_ROWS = 8  # rows until the pattern repeats (1024 bytes)
MAX_BOX_ROWS = 256  # the largest box dimension a tensor map takes
BUFFER_BYTES = 32 * 1024  # a store's shared memory, unless one box alone takes more


@dataclass(frozen=True)
class BoxBuffer:
    """The boxes of a (rows, cols) tile of `itemsize`-byte elements (the last two tile dims;
    the others are 1)."""

    rows: int
    cols: int
    itemsize: int
    padded = False  # what layout.staging.access_cost, which prices accesses to it, reads
    pitch = 0

    @staticmethod
    def fits(rows: int, cols: int, itemsize: int) -> bool:
        """Powers of two, whole panels of columns, whole swizzle patterns of rows."""
        def power(x: int) -> bool:
            return x > 0 and x & (x - 1) == 0
        return power(rows) and power(cols) and (cols * itemsize) % PANEL_BYTES == 0 and \
            rows >= SWIZZLE_ROWS

    @property
    def box_cols(self) -> int:
        return PANEL_BYTES // self.itemsize

    @property
    def box_rows(self) -> int:
        return min(self.rows, MAX_BOX_ROWS)

    @property
    def panels(self) -> int:
        return self.cols // self.box_cols

    @property
    def box_bytes(self) -> int:
        return self.box_rows * PANEL_BYTES

    def boxes(self) -> list[tuple[int, int]]:
        """(first row, first column) of each box, in buffer order."""
        return [(r, p * self.box_cols) for r in range(0, self.rows, self.box_rows)
                for p in range(self.panels)]

    def size_bytes(self) -> int:
        return self.rows * self.cols * self.itemsize

    def offset(self, coord: Sequence[int]) -> int:
        """Element offset of coord (its last two entries are row and column)."""
        row, col = coord[-2], coord[-1]
        box = self.box_of(coord)
        r, c = row % self.box_rows, (col % self.box_cols) * self.itemsize
        byte = box * self.box_bytes + r * PANEL_BYTES + \
            (((c // CHUNK_BYTES) ^ (r % SWIZZLE_ROWS)) * CHUNK_BYTES) + c % CHUNK_BYTES
        return byte // self.itemsize

    def rounds(self, layout: LinearLayout) -> list[list[int]]:
        """The boxes stored together, round by round. All at once when they fit in
        BUFFER_BYTES; else rounds through two slots (a round's writes overlap the previous
        round's store), when each thread's elements of a box are the same registers in every
        thread (no lane or warp bit moves an element to another box)."""
        count = len(self.boxes())
        if count * self.box_bytes <= BUFFER_BYTES or not self._boxes_by_register(layout):
            return [list(range(count))]
        per_round = max(1, BUFFER_BYTES // (2 * self.box_bytes))
        return [list(range(n, min(n + per_round, count))) for n in range(0, count, per_round)]

    def buffer_bytes(self, rounds: list[list[int]]) -> int:
        return min(2, len(rounds)) * max(map(len, rounds)) * self.box_bytes

    def box_of(self, coord: Sequence[int]) -> int:
        return (coord[-2] // self.box_rows) * self.panels + coord[-1] // self.box_cols

    def _boxes_by_register(self, layout: LinearLayout) -> bool:
        return all(b[-2] < self.box_rows and b[-1] < self.box_cols
                   for d in ("lane", "warp") for b in layout.bases[d])

    def offset_bases(self, layout: LinearLayout) -> dict[str, tuple[int, ...]]:
        """Per in-dim bit of `layout`, its term of the offset (terms combine by XOR)."""
        return {d: tuple(self.offset(v) for v in layout.bases[d]) for d in layout.bases}
