"""Passes (tile-opt): tile-eliminate-common-subexpressions: merge identical pure tile ops,
and identical loads of one block with nothing between them that writes memory.

Upstream `cse` cannot: IRDL ops carry no side-effect information, so MLIR treats them as
having effects. Loads are merged only within a block (a load in a loop is not merged with one
before it: a later iteration could follow a write, and a loop may wait for another block's
write), and an op that writes memory, makes output or is unknown (with anything nested in it),
or any loop or branch (a merged tile would stay in registers across it, where reading it again
from L2 is cheaper: the samples' looped softmax and norms reload a row's first chunk after a
sweep), ends the run of loads that later ones may merge with. Loads that feed a product's operands
are left to the staged path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mlir.ir as ir

from tilelang.dialect.op_table import Trait, has_trait
from tilelang.passes.ir_utils import VIEW_OPS, has_side_effects, is_pure_tile_op, name

NAME = "tile-eliminate-common-subexpressions"


@dataclass(frozen=True)
class Options:
    pass


def run(module: ir.Operation, options: Options) -> None:
    """Merge identical pure tile ops; a nested region sees the ops of the blocks enclosing it."""
    for region in module.regions:
        for block in region.blocks:
            _block(block, {})


def _block(block: ir.Block, table: dict[Any, ir.Value]) -> None:
    loads: dict[Any, ir.Value] = {}  # this block's loads since its last write
    for op in list(block.operations):
        op = op.operation
        for region in op.regions:
            for inner in region.blocks:
                _block(inner, dict(table))  # values of enclosing blocks dominate nested ones
        if _reads_only(op):
            if _reaches_a_product(op.results[0]):
                continue  # staged from memory into shared memory for its product on its own
            found = loads
        elif is_pure_tile_op(op) and len(op.results) == 1 and not op.regions:
            found = table
        else:
            if has_side_effects(op) or (op.regions and name(op).startswith("scf.")):
                loads.clear()  # (a loop or branch between: the tile would stay live across it)
            continue
        key = _key(op)
        if key in found:
            op.results[0].replace_all_uses_with(found[key])
            op.erase()
        else:
            found[key] = op.results[0]


def _reaches_a_product(value: ir.Value) -> bool:
    """Whether `value` is a product's A or B operand, directly or through views: such a load
    is the staged path's to copy (a load feeding two products in two layouts, such as keys
    also read as values, stays two loads)."""
    for use in value.uses:
        user = use.owner
        if name(user) == "tile.mma" and use.operand_number < 2:
            return True
        if name(user) in VIEW_OPS and any(_reaches_a_product(r) for r in user.results):
            return True
    return False


def _reads_only(op: ir.Operation) -> bool:
    """A load or gather: reads array memory, writes none, one result, no regions."""
    return has_trait(op, Trait.READS) and not has_trait(op, Trait.WRITES) and \
        len(op.results) == 1 and not op.regions


def _key(op: ir.Operation) -> tuple:
    attrs = tuple(sorted((k, str(op.attributes[k])) for k in op.attributes))
    return (name(op), tuple(op.operands), attrs, str(op.results[0].type))
