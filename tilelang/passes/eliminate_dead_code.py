"""Passes (tile-opt): tile-eliminate-dead-code: remove unused ops that write no memory.

Upstream canonicalization keeps IRDL ops (it must assume they have side effects).
"""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir

from tilelang.passes.ir_utils import has_side_effects, name, unused, walk_ops

NAME = "tile-eliminate-dead-code"
REMOVABLE_CONTROL_FLOW = ("scf.for", "scf.if", "scf.while")


@dataclass(frozen=True)
class Options:
    pass


def run(module: ir.Operation, options: Options | None = None) -> None:
    """Remove tile ops (and scf ops) whose results are unused and that write no memory."""
    changed = True
    while changed:  # removing a user can make its operands dead: repeat to a fixed point
        changed = False
        for op in reversed(walk_ops(module)):
            if _removable(op):
                op.erase()
                changed = True


def _removable(op: ir.Operation) -> bool:
    n = name(op)
    if not (n.startswith("tile.") or n in REMOVABLE_CONTROL_FLOW):
        return False
    return unused(op) and not has_side_effects(op)
