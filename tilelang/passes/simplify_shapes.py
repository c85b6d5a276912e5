"""Passes (tile-opt): tile-simplify-shapes: remove no-op and chained reshapes/broadcasts/casts."""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir

from tilelang.dialect import ops
from tilelang.dialect.op_table import BROADCAST, CAST, RESHAPE, SPLAT
from tilelang.dialect.types import is_tile_type
from tilelang.passes.ir_utils import defining_op, name, replace, walk_ops

NAME = "tile-simplify-shapes"
# the ops this pass simplifies (its rules below)
SIMPLIFIED = tuple(r.name for r in (RESHAPE, BROADCAST, SPLAT, CAST))


@dataclass(frozen=True)
class Options:
    pass


def run(module: ir.Operation, options: Options) -> None:
    """Rules: an op to its own type is its operand; reshape of reshape is one reshape;
    reshape/broadcast of a splat is a splat (or the scalar itself)."""
    for op in walk_ops(module):
        if name(op) not in SIMPLIFIED:
            continue
        source = op.operands[0]
        result_type = op.results[0].type
        if source.type == result_type:
            replace(op, source)
            continue
        inner = defining_op(source)
        if inner is None or name(op) in ("tile.splat", "tile.cast"):
            continue
        if name(inner) == "tile.reshape" and name(op) == "tile.reshape":
            _rebuild(op, "reshape", inner.operands[0])
        elif name(inner) == "tile.splat":
            _rebuild(op, "splat", inner.operands[0])


def _rebuild(op: ir.Operation, new_name: str, operand: ir.Value) -> None:
    result_type = op.results[0].type
    if operand.type == result_type:
        replace(op, operand)
        return
    if new_name == "splat" and not is_tile_type(result_type):
        return
    with ir.InsertionPoint(op), op.location:
        new = ops.create(new_name, [operand], [result_type]).result
    replace(op, new)
