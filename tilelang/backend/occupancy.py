"""Backend: theoretical occupancy of a kernel, the way NVIDIA's occupancy calculator
(cuda_occupancy.h) counts it: how many blocks of it fit on one SM at once, and what runs out
first. Named barriers and partitioned global caching (which rarely bind) are not modelled."""

from __future__ import annotations

from dataclasses import dataclass

from tilelang.target import target

# Per SM, from the CUDA C programming guide's "Technical Specifications per Compute Capability"
# and cuda_occupancy.h. Shared memory per SM is the largest carve-out.
WARP = 32
REGISTERS_PER_SM = 65536
REGISTERS_PER_THREAD = 255  # what ptxas may allocate
REGISTER_UNIT = 256  # registers are allocated per warp in units of 256 (8 per thread)
SUB_PARTITIONS = 4  # each quarter of the SM holds a quarter of the registers and its own warps
MAX_THREADS_PER_BLOCK = 1024


@dataclass(frozen=True)
class SmLimits:
    threads: int  # resident threads per SM
    blocks: int  # resident blocks per SM
    shared: int  # shared memory per SM (bytes)
    shared_per_block: int  # most a block may ask for, with the opt-in attribute (bytes)


LIMITS = {arch: SmLimits(t.threads_per_sm, t.blocks_per_sm, t.shared_per_sm, t.shared_per_block)
          for arch in ("sm_80", "sm_86", "sm_89", "sm_90") for t in [target(arch)]}


@dataclass(frozen=True)
class Occupancy:
    """Theoretical occupancy: blocks resident per SM, their warps, and the resources that
    stop one more block from fitting: "registers", "shared memory", "warps" or "blocks" (the
    SM's block slots), joined by ", " when several allow the same count. 0 blocks: the kernel
    cannot launch with these figures."""

    blocks_per_sm: int
    warps_per_sm: int
    max_warps_per_sm: int
    limited_by: str

    @property
    def fraction(self) -> float:
        """Active warps over the SM's most (the calculator's "occupancy")."""
        return self.warps_per_sm / self.max_warps_per_sm

    def __str__(self) -> str:
        return (f"{self.blocks_per_sm} blocks/SM, {self.warps_per_sm}/{self.max_warps_per_sm} "
                f"warps ({self.fraction:.0%}), limited by {self.limited_by}")


def _round_up(x: int, unit: int) -> int:
    return -(-x // unit) * unit


def occupancy(arch: str, threads: int, registers: int, shared_bytes: int) -> Occupancy:
    """Blocks of `threads` threads, each thread with `registers` registers and the block with
    `shared_bytes` of shared memory (static and dynamic), that fit on one SM of `arch`."""
    limits = LIMITS[arch.removesuffix("a")]
    warps = -(-threads // WARP)
    max_warps = limits.threads // WARP

    per_warp = _round_up(registers * WARP, REGISTER_UNIT)
    # the hardware checks a block as if its warps spread over all four sub-partitions
    fits = (registers <= REGISTERS_PER_THREAD
            and per_warp * _round_up(warps, SUB_PARTITIONS) <= REGISTERS_PER_SM)
    if not fits:
        by_registers = 0
    elif per_warp == 0:
        by_registers = limits.blocks
    else:
        warps_per_part = REGISTERS_PER_SM // SUB_PARTITIONS // per_warp
        by_registers = warps_per_part * SUB_PARTITIONS // warps

    by_shared = target(arch).blocks_for_shared(shared_bytes)

    by_warps = max_warps // warps if threads <= MAX_THREADS_PER_BLOCK else 0

    counts = {"registers": by_registers, "shared memory": by_shared, "warps": by_warps,
              "blocks": limits.blocks}
    blocks = min(counts.values())
    limited_by = ", ".join(name for name, n in counts.items() if n == blocks)
    return Occupancy(blocks, blocks * warps, max_warps, limited_by)
