"""Passes (tile-opt, layout): tile-hoist-invariants: pure ops of a loop's body that read only
values from outside the loop move before it.

cuTile's persistent RMS norm loads its weight row once, then casts it to float32 (and, after
layout assignment, converts it to the layout of the rows it scales) inside the inner loop of
the persistent loop: a 4096-element cast and a shared-memory round trip with two barriers for
every tile, for a value that never changes. Moving such ops out of the loop (innermost loops
first, so a value leaves a nest of loops in one run) computes it once.

Moved: ops without memory access or output (Trait.PURE), without regions, all of whose operands
are defined outside the loop. Not moved: constants, splats, aranges and broadcasts (free to
recompute where used: tile-assign-layouts rematerializes them per consumer), and anything in a
loop that runs a matrix product on the staged paths (their lowerings match the loop's body as
written). A moved op runs even when the loop runs no iteration; it is pure, so nothing but time
is spent.
"""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir

from tilelang.dialect import op_table
from tilelang.passes.ir_utils import defining_op, is_pure_tile_op, is_within, name, walk_ops

NAME = "tile-hoist-invariants"
FREE_TO_RECOMPUTE = tuple(o.name for o in (op_table.CONSTANT, op_table.SPLAT, op_table.ARANGE,
                                            op_table.BROADCAST))


@dataclass(frozen=True)
class Options:
    pass


def run(module: ir.Operation, options: Options) -> None:
    """Move loop-invariant pure ops out of scf.for loops."""
    for loop in walk_ops(module, post_order=True):
        if name(loop) == "scf.for" and not _has_product(loop):
            _hoist(loop)


def _hoist(loop: ir.Operation) -> None:
    body = loop.regions[0].blocks[0]
    for op in [o.operation for o in body.operations]:
        if _movable(op) and all(_outside(loop, v) for v in op.operands):
            op.move_before(loop)


def _movable(op: ir.Operation) -> bool:
    return (name(op).startswith("tile.") and is_pure_tile_op(op) and not op.regions
            and name(op) not in FREE_TO_RECOMPUTE and len(op.results) > 0)


def _outside(loop: ir.Operation, value: ir.Value) -> bool:
    op = defining_op(value)
    if op is None:  # a block argument: the loop's own, or of a block around it
        owner = value.owner
        op = owner.owner.operation if isinstance(owner, ir.Block) else None
    return not is_within(op, loop.operation)


def _has_product(loop: ir.Operation) -> bool:
    return any(name(o) == op_table.MMA.name for o in walk_ops(loop))
