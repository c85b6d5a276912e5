"""Passes (tile-opt): tile-eliminate-common-subexpressions: merge identical pure tile ops.

Upstream `cse` cannot: IRDL ops carry no side-effect information, so MLIR treats them as
having effects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mlir.ir as ir

from tilelang.passes.ir_utils import is_pure_tile_op, name

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
    for op in list(block.operations):
        op = op.operation
        for region in op.regions:
            for inner in region.blocks:
                _block(inner, dict(table))  # values of enclosing blocks dominate nested ones
        if not is_pure_tile_op(op) or len(op.results) != 1 or op.regions:
            continue
        key = _key(op)
        if key in table:
            op.results[0].replace_all_uses_with(table[key])
            op.erase()
        else:
            table[key] = op.results[0]


def _key(op: ir.Operation) -> tuple:
    attrs = tuple(sorted((k, str(op.attributes[k])) for k in op.attributes))
    return (name(op), tuple(op.operands), attrs, str(op.results[0].type))
