"""Passes (tile-opt): tile-unroll-single-iterations: a loop whose constant bounds give it one
iteration becomes its body; one of none, its initial values.

A kernel written for several chunks of a row (cuTile's norms: `for j in range(cdiv(N,
TILE_N))` with N a constant) runs one iteration when the tile covers the row. The loop then
only hides what follows: two such loops each loading the same tile load it twice (the second
load, now in the same block as the first, is merged by tile-eliminate-common-subexpressions),
and an enclosing loop looks like one holding another loop to tile-pipeline-loads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mlir.ir as ir

from tilelang.passes.ir_utils import name, uniform_constant, walk_ops

NAME = "tile-unroll-single-iterations"


@dataclass(frozen=True)
class Options:
    pass


def run(module: ir.Operation, options: Options) -> None:
    """Replace each scf.for with constant bounds of one iteration by its body, and each of no
    iterations by its initial values."""
    for op in walk_ops(module, post_order=True):  # inner loops first
        if name(op) != "scf.for":
            continue
        trips = _trip_count(op)
        if trips == 1:
            _inline(op)
        elif trips == 0:
            _drop(op)


def _trip_count(loop: ir.Operation) -> int | None:
    lower, upper, step = (_constant(v) for v in list(loop.operands)[:3])
    if lower is None or upper is None or step is None or step <= 0:  # (step <= 0: undefined)
        return None
    return max(0, math.ceil((upper - lower) / step))


def _constant(value: ir.Value) -> int | None:
    found = uniform_constant(value)
    if found is not None:
        return int(found[0])
    owner = value.owner
    if isinstance(owner, ir.Operation) and name(owner) == "arith.constant":
        return int(ir.IntegerAttr(owner.attributes["value"]).value)
    return None


def _inline(loop: ir.Operation) -> None:
    body = loop.regions[0].blocks[0]
    operands = list(loop.operands)
    lower, inits = operands[0], operands[3:]
    iv, *carried = list(body.arguments)
    iv.replace_all_uses_with(lower)
    for arg, init in zip(carried, inits, strict=True):
        arg.replace_all_uses_with(init)
    *ops, terminator = [op.operation for op in body.operations]
    for op in ops:
        op.move_before(loop)
    for result, value in zip(loop.results, list(terminator.operands), strict=True):
        result.replace_all_uses_with(value)
    loop.erase()


def _drop(loop: ir.Operation) -> None:
    for result, init in zip(loop.results, list(loop.operands)[3:], strict=True):
        result.replace_all_uses_with(init)
    loop.erase()
