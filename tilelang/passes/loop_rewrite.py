"""Passes: rebuilding an scf.for so that it carries more values, for the passes that move work
one iteration ahead (tile-pipeline-loads, tile-pipeline-products)."""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir
from mlir.dialects import scf

from tilelang.dialect import ops


@dataclass
class Widened:
    """The new loop, its body's ops (moved from the old one, the terminator last), its
    induction variable, the next iteration's (`iv + step`, at the top of the body) and the
    extra carried block arguments."""

    old: ir.Operation
    new: scf.ForOp
    moved: list[ir.Operation]
    iv: ir.Value
    following: ir.Value
    extra: list[ir.Value]


def carry_more(loop: ir.Operation, extra_inits: list[ir.Value]) -> Widened:
    """Build, before `loop`, a loop with the same bounds carrying its values and then
    `extra_inits`, move the old body into it (after `iv + step`) and rewire the body's uses of
    the old induction variable and carried values. The insertion point must be before `loop`."""
    lower, upper, step = list(loop.operands)[:3]
    inits = list(loop.operands)[3:]
    old_args = list(loop.regions[0].blocks[0].arguments)
    with loop.location:
        new = scf.ForOp(lower, upper, step, [*inits, *extra_inits])
    body = new.body
    iv, carried = body.arguments[0], list(body.arguments)[1:]
    with ir.InsertionPoint(body), loop.location:
        following = ops.create("add", [iv, step], [iv.type]).result
    anchor = following.owner.operation
    moved = [o.operation for o in loop.regions[0].blocks[0].operations]
    for op in moved:
        op.move_after(anchor)
        anchor = op
    old_args[0].replace_all_uses_with(iv)
    for old, arg in zip(old_args[1:], carried, strict=False):
        old.replace_all_uses_with(arg)
    return Widened(loop, new, moved, iv, following, carried[len(inits):])


def finish(w: Widened, extra_yields: list[ir.Value]) -> None:
    """Yield the extra values after the body's own, use the new loop's results in place of the
    old loop's, and erase the old loop."""
    terminator = w.moved[-1]
    with ir.InsertionPoint(terminator), w.old.location:
        scf.YieldOp([*terminator.operands, *extra_yields])
    terminator.erase()
    for old, result in zip(w.old.results, w.new.results, strict=False):
        old.replace_all_uses_with(result)
    w.old.erase()
