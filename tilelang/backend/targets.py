"""Backend: GPU architectures we generate code for, and the PTX features each needs."""

from __future__ import annotations

import re

from tilelang.errors import TileValueError
from tilelang.target import DEFAULT_SHARED_LIMIT, target
from tilelang.target import SUPPORTED as TARGETS

__all__ = ["DEFAULT_SHARED_LIMIT", "MAX_SHARED_PER_BLOCK", "SUPPORTED", "assembly_arch",
           "check_arch"]

# The figures live in the target record (tilelang/target.py); these tables are its views.
# Oldest PTX ISA that supports each target (PTX ISA release notes); +ptx80 covers sm_80..sm_90a.
SUPPORTED = {arch: target(arch).ptx_features for arch in TARGETS}
# Most shared memory one block may use (bytes, with the kernel's opt-in attribute set).
MAX_SHARED_PER_BLOCK = {arch: target(arch).shared_per_block for arch in TARGETS}


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
