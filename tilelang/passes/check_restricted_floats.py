"""Passes (simt): tile-check-restricted-floats: the target supports the kernel's 8-bit floats.

cuTile's rule: float8_e4m3fn and float8_e5m2 need sm_90 or newer. The first op that uses one
on an older target is an error naming its line (simt/restricted.check_arch). It runs first in
the simt stage, before anything is lowered for the target; the IR is left as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir

from tilelang.passes.ir_utils import name
from tilelang.passes.simt import restricted

NAME = "tile-check-restricted-floats"


@dataclass(frozen=True)
class Options:
    chip: str = "sm_90"


def run(module: ir.Operation, options: Options) -> None:
    """Reject 8-bit floats on targets older than sm_90 (cuTile's rule)."""
    for op in module.regions[0].blocks[0].operations:
        if name(op) == "func.func":
            restricted.check_arch(op.operation, options.chip)
