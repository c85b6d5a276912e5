"""Backend: GPU architectures we generate code for, and the PTX features each needs."""

from __future__ import annotations

import re

from tilelang.errors import TileValueError

# Oldest PTX ISA that supports each target (PTX ISA release notes); +ptx80 covers sm_80..sm_90a.
SUPPORTED = {"sm_80": "+ptx80", "sm_86": "+ptx80", "sm_89": "+ptx80", "sm_90": "+ptx80",
             "sm_90a": "+ptx80"}


# Most shared memory one block may use (bytes, with the kernel's opt-in attribute set): CUDA C
# programming guide, "Technical Specifications per Compute Capability".
MAX_SHARED_PER_BLOCK = {"sm_80": 166912, "sm_86": 101376, "sm_89": 101376, "sm_90": 232448,
                        "sm_90a": 232448}
# Without the opt-in attribute a launch may use this much dynamic shared memory.
DEFAULT_SHARED_LIMIT = 48 * 1024


def check_arch(arch: str) -> tuple[str, str]:
    """(chip, PTX features) for `arch`; a clear error, not an LLVM abort, for others."""
    if not re.fullmatch(r"sm_\d+a?", arch):
        raise TileValueError(f"arch must look like 'sm_90', got {arch!r}")
    if arch not in SUPPORTED:
        raise TileValueError(
            f"arch {arch} is not supported; supported: {', '.join(sorted(SUPPORTED))}"
        )
    return arch, SUPPORTED[arch]


def assembly_arch(ptx: str, arch: str) -> str:
    """The arch to assemble `ptx` for on a device of `arch`: its architecture-specific variant
    (sm_90a) when the PTX targets it (wgmma needs it; such a cubin runs on that arch only)."""
    m = re.search(r"^\.target\s+(sm_\d+a)\b", ptx, re.M)
    return m.group(1) if m and m.group(1) == arch + "a" else arch
