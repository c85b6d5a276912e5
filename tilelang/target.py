"""Target: the record of a GPU architecture that passes and backend size their code by.

One place for what an architecture allows (shared memory per block and per SM, resident
threads and blocks, registers, the PTX features it needs), as Triton's `GPUTarget`: the passes
ask `target(arch)` rather than import the backend's tables, and the backend's occupancy
calculator reads the same figures. Figures from the CUDA C programming guide's "Technical
Specifications per Compute Capability" and cuda_occupancy.h.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

# Without the opt-in attribute a launch may use this much dynamic shared memory.
DEFAULT_SHARED_LIMIT = 48 * 1024
RESERVED_SHARED = 1024  # the driver's own shared memory in every block (sm_80 and later)
SHARED_UNIT = 128  # shared memory is allocated per block in units of 128 bytes


@dataclass(frozen=True)
class Target:
    """What one architecture allows a kernel. `shared_per_block` is the most one block may use
    with the opt-in attribute; `shared_per_sm` the SM's largest carve-out."""

    arch: str
    ptx_features: str
    shared_per_block: int
    shared_per_sm: int
    threads_per_sm: int
    blocks_per_sm: int
    registers_per_sm: int = 65536
    default_shared: int = DEFAULT_SHARED_LIMIT
    reserved_shared: int = RESERVED_SHARED

    @property
    def known(self) -> bool:
        return self.ptx_features != ""

    def shared_for(self, occupancy: int) -> int:
        """The most shared memory a block may use when `occupancy` blocks must fit on an SM."""
        share = self.shared_per_sm // max(occupancy, 1) - self.reserved_shared
        return min(self.shared_per_block, share)

    def blocks_for_shared(self, shared_bytes: int) -> int:
        """The blocks that fit on an SM by shared memory, each using `shared_bytes` (the
        driver's reserve added, in whole allocation units); 0 past a block's limit."""
        if shared_bytes > self.shared_per_block:
            return 0
        per_block = -(-(shared_bytes + self.reserved_shared) // SHARED_UNIT) * SHARED_UNIT
        return self.shared_per_sm // per_block


# arch: (PTX features (the oldest PTX ISA with it), shared per block with the opt-in, per SM,
# resident threads, resident blocks)
_TABLE = {
    "sm_80": ("+ptx80", 166912, 164 * 1024, 2048, 32),
    "sm_86": ("+ptx80", 101376, 100 * 1024, 1536, 16),
    "sm_89": ("+ptx80", 101376, 100 * 1024, 1536, 24),
    "sm_90": ("+ptx80", 232448, 228 * 1024, 2048, 32),
}
SUPPORTED = (*_TABLE, "sm_90a")


@functools.cache
def target(arch: str) -> Target:
    """The record of `arch` ("sm_90a" is sm_90's); an architecture not in the table gets the
    limits every launch has (48 KB of shared memory, no opt-in) and no PTX features."""
    base = arch.removesuffix("a")
    if base not in _TABLE:
        return Target(arch, "", DEFAULT_SHARED_LIMIT, DEFAULT_SHARED_LIMIT, 1024, 16)
    features, per_block, per_sm, threads, blocks = _TABLE[base]
    return Target(arch, features, per_block, per_sm, threads, blocks)
