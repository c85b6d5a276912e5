"""Passes (layout): tile-issue-loads-early: a small load after a loop of matrix products,
whose indices are known before the loop, is issued before it, so that its latency passes
during the loop instead of after it.

An epilogue reads what it needs after the K loop: a GEMM's bias row (`acc + ct.load(bias,
(j,), (BN,))`), a mixture of experts' routing weights (`ct.gather(weights, token_ids)`). Each
is one round trip to memory with nothing else in flight, in every block. Issued before the
loop, it arrives while the products run.

Moved: a `tile.load` or `tile.gather` in the block of a `scf.for` whose body holds a
`tile.mma` and writes no memory, after the loop with no op that writes memory or makes output
between them, together with the pure ops after the loop that compute its operands (constants,
splats: nothing that reads the loop's results); only when what it holds in registers across
the loop is small: at most MAX_BYTES a thread in its layout (its conversion to the layout its
user wants stays after the loop). Runs after tile-assign-layouts, which knows that layout.
"""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir

from tilelang.dialect import dtype_of, layout_text
from tilelang.dialect.types import is_tile_type
from tilelang.layout import from_text
from tilelang.passes.ir_utils import (
    defining_op,
    has_effects,
    has_side_effects,
    is_pure_tile_op,
    name,
    walk_ops,
)

NAME = "tile-issue-loads-early"
LOADS = ("tile.load", "tile.gather")
MAX_BYTES = 16  # a thread's registers held across the loop for a moved load: one vector


@dataclass(frozen=True)
class Options:
    pass


def run(module: ir.Operation, options: Options) -> None:
    """Issue small loads that follow a loop of matrix products before the loop."""
    for loop in walk_ops(module):
        if name(loop) == "scf.for" and _long(loop):
            _issue_before(loop)


def _long(loop: ir.Operation) -> bool:
    """A loop of matrix products that writes no memory (its loads may run beside it)."""
    inner = walk_ops(loop)
    return any(name(op) == "tile.mma" for op in inner) and \
        not any(has_side_effects(op) for op in inner if name(op) not in LOADS)


def _issue_before(loop: ir.Operation) -> None:
    after: list[ir.Operation] = []  # the ops between the loop and the one looked at
    for op in _following(loop):
        if name(op) in LOADS:
            moved = _slice(op, loop, after)
            if moved is not None and _small(op):
                for m in moved:
                    m.move_before(loop)
                after = [a for a in after if a not in moved]
                continue
        if (has_effects(op) and name(op) not in LOADS) or op.regions:
            return  # a write, an output, or control flow: later loads stay after it
        after.append(op)


def _following(loop: ir.Operation) -> list[ir.Operation]:
    """The ops after `loop` in its block, in order."""
    for region in loop.parent.regions:
        for block in region.blocks:
            ops = [o.operation for o in block.operations]
            if loop in ops:
                return ops[ops.index(loop) + 1:]
    return []


def _slice(load: ir.Operation, loop: ir.Operation,
           after: list[ir.Operation]) -> list[ir.Operation] | None:
    """`load` and the ops after the loop it reads, in order, when those are pure and read
    nothing computed after the loop but by each other; None otherwise."""
    needed: list[ir.Operation] = []

    def visit(value: ir.Value) -> bool:
        op = defining_op(value)
        if op is None or op not in after:
            return op is None or op != loop  # before the loop (or an argument); not its result
        if op in needed:
            return True
        if not is_pure_tile_op(op) or op.regions:
            return False
        if not all(visit(v) for v in op.operands):
            return False
        needed.append(op)
        return True

    if not all(visit(v) for v in load.operands):
        return None
    order = {op: i for i, op in enumerate(after)}
    return [*sorted(needed, key=order.__getitem__), load]


def _small(load: ir.Operation) -> bool:
    result = load.results[0]
    if not is_tile_type(result.type):
        return True
    text = layout_text(result.type)
    if text is None:
        return False
    registers = from_text(text).num_registers
    return registers * dtype_of(result.type).itemsize <= MAX_BYTES
