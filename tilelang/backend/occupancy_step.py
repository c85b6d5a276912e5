"""Backend: a kernel held back from one more block an SM by a few registers gets them capped.

ptxas allocates what a kernel's code wants; a block of 8 warps at 134 registers a thread takes
34,816 of an SM's 65,536 registers, so one block an SM runs where 128 would have let two. When
the shared memory, warps and block slots would allow one more block, and the registers that
block needs are within an eighth of what ptxas chose, the kernel is assembled again asking for
that many blocks (`.minnctapersm`: ptxas caps the registers to fit them), and the capped code is
kept when it spills nothing, or at most MAX_SPILL_BYTES where the SM ran at most LOW_WARPS
warps. cuTile's fused MoE kernel (8 warps at 138 registers, one block an SM) took 128 and two:
0.733 -> 0.68 ms (H200, twenty-first session). A kernel with an occupancy hint, with
setmaxnreg (warp-specialized: the producer hands its registers over), or reading the grid's
size (persistent) is left as it is. TILELANG_OCCUPANCY_STEP=0 turns it off.

The other way round, the register floor: where a kernel would spill even at the most registers
a thread may have, ptxas (13.0) without a directive gives it 32 and spills the rest, several
times more: cuTile's `matmul_kernel` at 256 x 256 x 64 tiles of float32, 8 warps, spilled
15.5 KB a thread at 32 registers and 3 KB at 255; its fmha at 64 x 256 tiles, 4 warps, 28.5 KB
against 10 KB. Such a kernel (spills, no directive, fewer registers than one block's share) is
assembled again with `.minnctapersm 1`, and that code is kept when it spills less. That
applies with an occupancy hint too (a hint of 1 adds no directive). TILELANG_REGISTER_FLOOR=0
turns it off.

The figures are ptxas's (`-v`), so this runs where the ptxas command is installed; elsewhere
kernels are assembled as they are. The cubin stage then assembles the PTX chosen through
`cubin()`, which under `auto` takes the same command (`assemble` remembers the code, so
nothing is assembled twice; compiler._cubin_stage).
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass

from tilelang.backend.assemble import Resources, assemble, resources
from tilelang.backend.occupancy import (
    REGISTER_UNIT,
    REGISTERS_PER_SM,
    REGISTERS_PER_THREAD,
    SUB_PARTITIONS,
    WARP,
    occupancy,
)
from tilelang.errors import TileCompilerExecutionError

SLACK = 8  # the cap may take up to 1/SLACK of the registers ptxas chose
MAX_SPILL_BYTES = 32  # spilled a thread by the capped code, at most (the MoE kernel: 16),
LOW_WARPS = 16  # and only where at most this many warps an SM ran: an SM that starved for
# warps gains most from one more block; with more, the spills' traffic may cost what the block
# buys (the RMS norm sample's column sums: 6 -> 7 blocks of 4 warps for 32 bytes: not taken)


@dataclass(frozen=True)
class Step:
    """One more block an SM: `blocks` of them, each thread at most `registers`."""

    blocks: int
    registers: int
    before: int  # the registers ptxas chose without the cap
    warps: int = 0  # the warps an SM ran without it


def next_step(ptx: str, arch: str, threads: int, registers: int, shared_bytes: int) -> Step | None:
    """The step to ask for, or None: the kernel is not held back by its registers alone, the
    registers one more block needs are too far below `registers`, the kernel says itself how
    many blocks (or registers) it wants, or it reads the grid's size (`ct.num_blocks`: a
    persistent kernel walks its work with the blocks it launched, so a slot for one more
    block an SM would idle and only the cap would remain)."""
    if _DIRECTIVES.search(ptx) or "setmaxnreg" in ptx or "%nctaid" in ptx:
        return None
    now = occupancy(arch, threads, registers, shared_bytes)
    if now.blocks_per_sm == 0 or now.limited_by != "registers":
        return None
    blocks = now.blocks_per_sm + 1
    cap = registers_for(blocks, threads)
    if cap < registers - registers // SLACK:
        return None
    if occupancy(arch, threads, cap, shared_bytes).blocks_per_sm < blocks:
        return None  # something else (shared memory, warps) stops the next block
    return Step(blocks, cap, registers, now.warps_per_sm)


def registers_for(blocks: int, threads: int) -> int:
    """The most registers a thread may have for `blocks` blocks of `threads` to fit an SM
    (whole allocation units of 8 a thread, each block's warps spread over the four
    sub-partitions)."""
    warps = -(-threads // WARP)
    warps_per_part = -(-warps * blocks // SUB_PARTITIONS)
    per_warp = REGISTERS_PER_SM // SUB_PARTITIONS // warps_per_part
    return per_warp // REGISTER_UNIT * REGISTER_UNIT // WARP


def with_blocks(ptx: str, blocks: int) -> str:
    """`ptx` asking ptxas for `blocks` blocks an SM: `.minnctapersm` after each entry's
    `.reqntid` / `.maxntid` (ptxas needs the block's size to use it)."""
    return _THREADS.sub(lambda m: f"{m.group(0)}\n.minnctapersm {blocks}", ptx)


# the performance directives that fix a kernel's registers or blocks an SM already
_DIRECTIVES = re.compile(r"^\s*\.(minnctapersm|maxnreg)\b", re.M)
_THREADS = re.compile(r"^\s*\.(reqntid|maxntid)\s+[\d, ]+$", re.M)


@dataclass(frozen=True)
class Assembled:
    cubin: bytes
    ptx: str  # what was assembled: the kernel's PTX, or it with `.minnctapersm`
    log: str  # ptxas's -v lines for it
    step: Step | None
    floor: Floor | None = None


@dataclass(frozen=True)
class Floor:
    """The register floor taken: ptxas's figures for the kernel without the directive."""

    registers: int
    spill_stores: int  # bytes


def assemble_stepped(ptx: str, arch: str, name: str, threads: int,
                     dynamic_shared: int, *, step: bool = True,
                     floor: bool = True) -> Assembled | None:
    """The kernel assembled by the ptxas command, at its register floor or (`step`) the next
    occupancy step where it takes either; None where the command is not installed (or
    rejects the PTX: the caller's assembler then reports it)."""
    if shutil.which("ptxas") is None:
        return None
    try:
        code, log = assemble(ptx, arch)
    except TileCompilerExecutionError:
        return None
    plain = Assembled(code, ptx, log, None)
    found = resources(log).get(name)
    if found is None:
        return plain
    if floor and starved(ptx, threads, found.registers, found.spill_stores + found.spill_loads):
        return _floored(plain, arch, name, found)
    if not step:
        return plain
    next_one = next_step(ptx, arch, threads, found.registers,
                         found.shared_bytes + dynamic_shared)
    if next_one is None:
        return plain
    stepped = with_blocks(ptx, next_one.blocks)
    try:
        capped, capped_log = assemble(stepped, arch)
    except TileCompilerExecutionError:
        return plain
    after = resources(capped_log).get(name)
    allowed = MAX_SPILL_BYTES if next_one.warps <= LOW_WARPS else 0
    if after is None or max(after.spill_stores, after.spill_loads) > allowed or \
            occupancy(arch, threads, after.registers,
                      after.shared_bytes + dynamic_shared).blocks_per_sm < next_one.blocks:
        return plain
    return Assembled(capped, stepped, capped_log,
                     Step(next_one.blocks, after.registers, found.registers, next_one.warps))


def starved(ptx: str, threads: int, registers: int, spill_bytes: int) -> bool:
    """Whether ptxas spilled a kernel that says nothing of its registers while giving it
    fewer than one block's threads may have (the register floor)."""
    return spill_bytes > 0 and not _DIRECTIVES.search(ptx) and "setmaxnreg" not in ptx and \
        registers < min(REGISTERS_PER_THREAD, registers_for(1, threads))


def _floored(plain: Assembled, arch: str, name: str, found: Resources) -> Assembled:
    """`plain` assembled again asking for one block an SM, if that spills less."""
    ptx = with_blocks(plain.ptx, 1)
    try:
        code, log = assemble(ptx, arch)
    except TileCompilerExecutionError:
        return plain
    after = resources(log).get(name)
    if after is None or after.spill_stores + after.spill_loads >= \
            found.spill_stores + found.spill_loads:
        return plain
    return Assembled(code, ptx, log, None, Floor(found.registers, found.spill_stores))
