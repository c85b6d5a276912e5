"""Passes (tile-opt): tile-restore-branches: undo the arith ops upstream canonicalize makes.

Canonicalization turns an scf.if that only picks one of two values defined before it into
`arith.select`, and uses the known condition of an scf.while inside its body as an
`arith.constant`. Neither is a tile op (a select of tiles or arrays has no tile equivalent),
so they go back to an scf.if and a tile.constant.
"""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir
from mlir.dialects import scf

from tilelang.dialect import ops
from tilelang.passes.ir_utils import name, replace, walk_ops

NAME = "tile-restore-branches"


@dataclass(frozen=True)
class Options:
    pass


def run(module: ir.Operation, options: Options) -> None:
    """Turn arith.select back into scf.if and arith.constant into tile.constant."""
    for op in walk_ops(module):
        if name(op) == "arith.select" and op.operands[0].type == ir.IntegerType.get_signless(1):
            _to_branch(op)
        elif name(op) == "arith.constant" and not isinstance(op.results[0].type,
                                                             ir.ShapedType):
            with ir.InsertionPoint(op), op.location:
                constant = ops.create("constant", [], [op.results[0].type],
                                      value=op.attributes["value"])
            replace(op, constant.results[0])


def _to_branch(op: ir.Operation) -> None:
    cond, when_true, when_false = op.operands
    with ir.InsertionPoint(op), op.location:
        branch = scf.IfOp(cond, [op.results[0].type], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            scf.YieldOp([when_true])
        with ir.InsertionPoint(branch.else_block):
            scf.YieldOp([when_false])
    replace(op, branch.results[0])
