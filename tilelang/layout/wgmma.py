"""Hopper warpgroup MMA (`wgmma.mma_async`, sm_90a): the accumulator's register layout and the
shared-memory layouts (128-byte swizzle) its operands are read from through descriptors.

A warpgroup is 4 warps. `wgmma.mma_async.m64nNk16` multiplies a 64 x 16 slice of A by a 16 x N
slice of B into a 64 x N accumulator held in the warpgroup's registers. A block's warpgroups
split the tile's rows; a warpgroup with more than 64 rows issues one instruction per 64.

Shared memory (PTX ISA, "Shared Memory Matrix Layout", 128B swizzling): a *swizzle atom* is 8
rows of 128 bytes; 16-byte chunk `c` of row `r` is stored at chunk `c ^ (r % 8)`, so the 8 rows
of one column of chunks fall into different banks. The atom must start at a 1024-byte boundary
(the hardware applies the XOR to address bits 4-6 from bits 7-9).
- A (M x K, K contiguous) is *K-major*: rows of 64 16-bit elements of K; atoms stacked along M
  (SBO, the stride between 8-row groups, is 1024), then whole M x 64 panels along K.
- B (K x N, N contiguous) is *MN-major* (the instruction's transposed-B form): rows of 64
  elements of N, one row per k; atoms side by side along N (LBO, 1024), then 8-row groups of k
  (SBO, BN / 64 * 1024). A given (K x M, M contiguous: a column-major A) is MN-major the same
  way, M in N's place (the transposed-A form, 16-bit only). *Panel-major*, as a TMA box writes
  it (a box is one 64-element panel, its rows one after another): 8-row groups of k first (SBO,
  1024), then the K x 64 panels along N (LBO, BK * 128); byte for byte the K-major formula with
  rows and columns named the other way.
"""

from __future__ import annotations

from dataclasses import dataclass

from .linear import LinearLayout
from .maps import log2_exact

WARPGROUP = 4  # warps
ATOM_BYTES = 1024  # 8 rows x 128 bytes
ROW_BYTES = 128
CHUNK_BYTES = 16
INSTR_M = 64
INSTR_K_BYTES = 32  # one instruction's depth: k16 of 16-bit, k32 of 8-bit elements
MAX_N = 256
SWIZZLE_128B = 1  # descriptor bits 62-63


def accumulator_layout(m: int, n: int, num_warps: int) -> LinearLayout:
    """The m x n float32 accumulator of wgmma over `num_warps // 4` warpgroups stacked along M.

    Per warpgroup and per 64 rows (PTX ISA, "Matrix fragments for wgmma ... D"): warp w of the
    warpgroup holds rows 16w..16w+15; lane l holds rows l/4 and l/4 + 8, columns 2(l%4) and
    2(l%4) + 1 of each 8-column block; register 4i + j is block i, j = (row + 8, col + 1) bits.
    """
    groups = num_warps // WARPGROUP
    rows_per_group = m // groups
    reps_m = rows_per_group // INSTR_M
    regs = [(0, 1), (8, 0)] + [(0, 8 << j) for j in range(log2_exact(n // 8, "n / 8"))]
    regs += [(INSTR_M << j, 0) for j in range(log2_exact(reps_m, "rows per warpgroup / 64"))]
    lanes = [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)]
    warps = [(16, 0), (32, 0)]
    warps += [(rows_per_group << j, 0) for j in range(log2_exact(groups, "warpgroups"))]
    return LinearLayout({"register": regs, "lane": lanes, "warp": warps}, (m, n))


def instr_k(itemsize: int) -> int:
    """The K of one instruction: 16 for 16-bit inputs, 32 for 8-bit ones."""
    return INSTR_K_BYTES // itemsize


def fits(m: int, n: int, k: int, itemsize: int, num_warps: int) -> bool:
    """Whether an (m x k) @ (k x n) tile product of `itemsize`-byte inputs maps onto wgmma
    with these layouts (a row of 128 bytes along K; 8-bit B must be K-major: caller's check)."""
    if itemsize not in (1, 2) or num_warps % WARPGROUP or num_warps < WARPGROUP:
        return False
    groups, threads = num_warps // WARPGROUP, 32 * num_warps
    chunk = CHUNK_BYTES // itemsize
    powers = all(x > 0 and x & (x - 1) == 0 for x in (m, n, k))
    return (powers and m % (INSTR_M * groups) == 0 and k % (ROW_BYTES // itemsize) == 0
            and n % 64 == 0 and n <= MAX_N
            and m * n // threads <= 128  # accumulator registers per thread
            and (m * k // chunk) % threads == 0 and (k * n // chunk) % threads == 0)


@dataclass(frozen=True)
class Operand:
    """One operand tile in shared memory: `rows` x `cols` elements of `itemsize` bytes, `cols`
    contiguous in global memory. K-major (A: rows = M, cols = K; B given transposed: rows = N,
    cols = K) or MN-major (B: rows = K, cols = N; A given transposed: rows = K, cols = M;
    16-bit only)."""

    rows: int
    cols: int
    k_major: bool
    itemsize: int = 2
    panel_major: bool = False  # MN-major laid out as TMA boxes write it (see the module doc)

    @property
    def panels_first(self) -> bool:
        """Whole rows x 128-byte panels one after another (K-major, or panel-major)."""
        return self.k_major or self.panel_major

    @property
    def bytes(self) -> int:
        return self.rows * self.cols * self.itemsize

    @property
    def row_elems(self) -> int:
        return ROW_BYTES // self.itemsize

    def chunk_offset(self, row: int, chunk: int) -> int:
        """Byte offset of 16-byte chunk `chunk` of tile row `row`."""
        panel, within = divmod(chunk, ROW_BYTES // CHUNK_BYTES)
        swizzled = (within ^ (row % 8)) * CHUNK_BYTES
        if self.panels_first:  # panels of 128 bytes of columns, each rows x 128 bytes
            return panel * self.rows * ROW_BYTES + row * ROW_BYTES + swizzled
        # MN-major: 8-row groups of k, each (cols / row_elems) atoms along N
        group, r = divmod(row, 8)
        return group * self.stride_bytes + panel * ATOM_BYTES + r * ROW_BYTES + swizzled

    @property
    def leading_bytes(self) -> int:
        """LBO: unused by K-major swizzled layouts (1 by convention); the stride between
        64-element panels along N (MN-major)."""
        if self.k_major:
            return CHUNK_BYTES
        return self.rows * ROW_BYTES if self.panel_major else ATOM_BYTES

    @property
    def stride_bytes(self) -> int:
        """SBO: the stride between 8-row groups along M (K-major) or along K (MN-major)."""
        if self.panels_first:
            return ATOM_BYTES
        return (self.cols // self.row_elems) * ATOM_BYTES

    def step_offset(self, k_step: int, m_block: int = 0) -> int:
        """Byte offset of the slice one instruction reads: the k_step-th 32 bytes of K (and,
        for A, rows 64 m_block..). Inside a 128-byte row the start moves by 32 bytes per step:
        the hardware swizzles the absolute address, so the slice needs no re-layout."""
        if self.k_major:
            panel, within = divmod(INSTR_K_BYTES * k_step, ROW_BYTES)
            return panel * self.rows * ROW_BYTES + m_block * INSTR_M * ROW_BYTES + within
        return (instr_k(self.itemsize) * k_step // 8) * self.stride_bytes + \
            self.m_offset(m_block * INSTR_M)

    def m_offset(self, m: int) -> int:
        """Byte offset of A's row m (a multiple of 64 when M-major) in the first K slice: where
        a warpgroup's rows, or one instruction's 64, start."""
        if self.k_major:
            return m * ROW_BYTES
        atoms, within = divmod(m, self.row_elems)
        assert within == 0, "an M-major A splits into whole 128-byte atoms along M"
        return atoms * self.leading_bytes

    def descriptor_bits(self) -> int:
        """The descriptor without its start address (bits 0-13)."""
        return ((self.leading_bytes >> 4) << 16) | ((self.stride_bytes >> 4) << 32) | \
            (SWIZZLE_128B << 62)


def copy_layout(rows: int, cols: int, itemsize: int, num_warps: int) -> LinearLayout:
    """The rows x cols tile as a ring stage's copies hold it (simt/stage_copies.py): its
    16-byte chunks numbered row by row, chunk q = tid + threads * i is thread tid's i-th, so
    register j * elems + e holds element e of the thread's chunk j. An operand gathered by
    rows into a stage takes this layout: each thread's row indices are then in its registers
    (register j * elems holds chunk j's). Needs whole rows of chunks, powers of two, and at
    least one chunk a thread."""
    elems = CHUNK_BYTES // itemsize
    per_row, threads = cols // elems, 32 * num_warps
    chunks = rows * per_row
    log2_exact(per_row, "16-byte chunks a row")
    chunk_bits = log2_exact(chunks, "chunks")
    if chunks < threads:
        raise ValueError(f"{chunks} chunks for {threads} threads")

    def chunk(bit: int) -> tuple[int, int]:  # bit `bit` of q as (row, column) offsets
        q = 1 << bit
        return (0, q * elems) if q < per_row else (q // per_row, 0)

    thread_bits = log2_exact(threads, "threads")
    regs = [(0, 1 << j) for j in range(log2_exact(elems, "elements a chunk"))]
    regs += [chunk(b) for b in range(thread_bits, chunk_bits)]
    lanes = [chunk(b) for b in range(5)]
    warps = [chunk(b) for b in range(5, thread_bits)]
    return LinearLayout({"register": regs, "lane": lanes, "warp": warps}, (rows, cols))


def read_by_instruction(op: Operand, start: int, rows: int, k: int) -> dict[tuple[int, int], int]:
    """What one wgmma reads through a descriptor at byte `start` (relative to a 1024-aligned
    base): (i, kk) -> byte offset of element i (M or N index), kk (0..k-1) — a model of the
    PTX canonical layouts, for tests."""
    out = {}
    size = op.itemsize
    for i in range(rows):
        for kk in range(k):
            if op.k_major:  # row i, byte size * kk in its 128-byte row; 8-row groups by SBO
                linear = start + (i // 8) * op.stride_bytes + (i % 8) * ROW_BYTES + size * kk
            else:  # row kk of the atom column i // 64; groups of 8 k by SBO, atoms by LBO
                linear = start + (kk // 8) * op.stride_bytes + (i // 64) * op.leading_bytes + \
                    (kk % 8) * ROW_BYTES + size * (i % 64)
            out[(i, kk)] = swizzle(linear)
    return out


def swizzle(address: int) -> int:
    """The 128-byte swizzle the hardware applies: address bits 4-6 ^= bits 7-9."""
    return address ^ (((address >> 7) & 7) << 4)
