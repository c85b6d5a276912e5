"""Passes (tile-opt): tile-uplift-while-loops: a `while` loop that counts is an `scf.for`.

    k = 0
    while k < ct.cdiv(K, BK):
        acc = ct.mma(ct.load(a, (i, k), ...), ct.load(b, (k, j), ...), acc)
        k += 1

is the K loop `for k in range(ct.cdiv(K, BK))` spelled another way, but as an `scf.while` no
loop pass knew it: its products ran on mma.sync from registers (explain: "outside a loop"),
spilling at 128x256 tiles, where the `for` spelling is a staged K loop on wgmma. The pass
rewrites such a loop as the `scf.for` the `for` spelling gives (the same PTX, test_uplift).

A loop qualifies when its condition region computes `counter < bound` (tile.cmp "lt") of one
of its signless integer carried values and a bound from pure scalar ops that read nothing the loop
changes (hoisted before it; they would compute the same value each time), and forwards its
carried values unchanged; its body adds a positive constant to the counter (its next value is
`counter + step`, nothing else); and nothing after the loop reads the counter's final value.
The counter runs from its initial value by `step` while below the bound: the `scf.for` from
that value to the bound. (Both wrap the same way short of overflow past the type's maximum,
which a `for` over `range` does not reach either.)
"""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir
from mlir.dialects import scf

from tilelang.passes.ir_utils import (
    defining_op,
    is_pure_scalar,
    is_within,
    name,
    uniform_constant,
    walk_ops,
)

NAME = "tile-uplift-while-loops"


@dataclass(frozen=True)
class Options:
    pass


def run(module: ir.Operation, options: Options) -> None:
    """Rewrite counting scf.while loops as scf.for loops."""
    for op in walk_ops(module, post_order=True):
        if name(op) == "scf.while":
            plan = _plan(op)
            if plan is not None:
                _uplift(op, *plan)


@dataclass(frozen=True)
class _Counter:
    index: int  # among the carried values
    bound: ir.Value
    step: ir.Value
    hoisted: tuple[ir.Operation, ...]  # the condition region's ops computing the bound


def _plan(loop: ir.Operation) -> tuple[_Counter] | None:
    before, after = (r.blocks[0] for r in loop.regions)
    ops = [o.operation for o in before.operations]
    condition = ops[-1]
    if name(condition) != "scf.condition" or len(ops) < 2:
        return None
    forwarded = list(condition.operands)[1:]
    if forwarded != list(before.arguments):
        return None  # it computes the values it passes on: not a plain counting loop
    compare = defining_op(condition.operands[0])
    if compare is None or name(compare) != "tile.cmp" or compare.parent != loop or \
            ir.StringAttr(compare.attributes["predicate"]).value != "lt":
        return None
    counter, bound = compare.operands
    if counter not in list(before.arguments) or not isinstance(counter.type, ir.IntegerType) \
            or not ir.IntegerType(counter.type).is_signless:
        return None  # (an unsigned counter compares unsigned; scf.for's compare is signed)
    hoisted = [o for o in ops[:-1] if o != compare]
    # (not a scalar gather: the loop may write the table it reads, which the condition would
    # read again each time)
    if not all(is_pure_scalar(o) and name(o) != "tile.gather" and
               all(_before_loop(v, loop, hoisted) for v in o.operands) for o in hoisted) or \
            not _before_loop(bound, loop, hoisted):
        return None
    index = list(before.arguments).index(counter)
    readers = {compare, condition}
    if any(use.owner.operation not in readers for use in counter.uses) or \
            list(loop.results[index].uses):
        return None  # the comparison reads the counter only; nothing reads its final value
    step = _step(after, index)
    if step is None:
        return None
    return (_Counter(index, bound, step, tuple(hoisted)),)


def _before_loop(value: ir.Value, loop: ir.Operation, hoisted: list[ir.Operation]) -> bool:
    op = defining_op(value)
    if op is None:
        owner = value.owner
        op = owner.owner.operation if isinstance(owner, ir.Block) else None
        return op is None or not is_within(op, loop)
    return op in hoisted or not is_within(op, loop)


def _step(after: ir.Block, index: int) -> ir.Value | None:
    """The positive constant the body adds to the counter (its next value `counter + step`)."""
    yielded = list(after.operations)[-1].operation
    added = defining_op(yielded.operands[index])
    counter = after.arguments[index]
    if added is None or name(added) != "tile.add" or added.parent != yielded.parent:
        return None
    a, b = added.operands
    step = b if a == counter else a if b == counter else None
    found = uniform_constant(step) if step is not None else None
    if found is None or not isinstance(found[0], int) or found[0] <= 0:
        return None
    op = defining_op(step)  # moved before the loop if it is in it: then it must read nothing
    if op is not None and is_within(op, after.owner.operation) and list(op.operands):
        return None
    return step


def _uplift(loop: ir.Operation, counter: _Counter) -> None:
    after = loop.regions[1].blocks[0]
    inits = list(loop.operands)
    for op in counter.hoisted:
        op.move_before(loop)
    step_op = defining_op(counter.step)
    if step_op is not None and is_within(step_op, loop):
        step_op.move_before(loop)  # a constant: it must come before the loop it bounds
    others = [k for k in range(len(inits)) if k != counter.index]
    with ir.InsertionPoint(loop), loop.location:
        new = scf.ForOp(inits[counter.index], counter.bound, counter.step,
                        [inits[k] for k in others])
    body = new.body
    yielded = list(after.operations)[-1].operation
    with ir.InsertionPoint(body), loop.location:
        scf.YieldOp([yielded.operands[k] for k in others])
    terminator = list(body.operations)[-1].operation
    for op in [o.operation for o in after.operations][:-1]:
        op.move_before(terminator)
    after.arguments[counter.index].replace_all_uses_with(new.induction_variable)
    for k, arg in zip(others, new.inner_iter_args, strict=True):
        after.arguments[k].replace_all_uses_with(arg)
    for k, result in zip(others, new.results, strict=True):
        loop.results[k].replace_all_uses_with(result)
    loop.erase()
