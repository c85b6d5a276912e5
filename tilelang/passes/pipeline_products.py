"""Passes (layout): tile-pipeline-products: in a loop whose products run on wgmma from staged
operands (passes/staged_loops.py), compute the first product one iteration early, so that the
tensor cores work on it while the rest of the body (attention's softmax) runs.

    s0 = mma(q, kT(lb), zeros)                     # before the loop
    for j in range(lb, ub):                        for j in range(lb, ub) carrying s:
        s = mma(q, kT(j), zeros)          ->           s_next = mma(q, kT(j + 1), zeros)
        p = softmax(s) ...                             p = softmax(s) ...
                                                       yield ..., s_next

The product moves when it reads only values defined before the loop and a staged load of the
induction variable (so it can be computed for any iteration), and is not the loop's only one.
wgmma runs it asynchronously: its result is waited for in the next iteration, where it is used
(simt/staged_loop.py counts the groups in flight). The last iteration's early product reads
past the loop's range: the staged copies fill zeros there, and the value is never used.
"""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir
from mlir.dialects import scf

from tilelang.dialect import ops
from tilelang.passes.eliminate_dead_code import run as eliminate_dead_code
from tilelang.passes.ir_utils import (
    clone_ops,
    defining_op,
    is_within,
    kernel_num_warps,
    name,
    scalar_slice,
    walk_ops,
)
from tilelang.passes.loop_rewrite import carry_more, finish
from tilelang.passes.staged_loops import StagedLoop, StagedMma, staged_loop

NAME = "tile-pipeline-products"
MAX_ACCUMULATORS = 128  # float32 registers per thread for the products' results


@dataclass(frozen=True)
class Options:
    arch: str = "sm_80"
    enabled: bool = True  # the default pipeline passes TILELANG_PIPELINE_PRODUCTS here


def run(module: ir.Operation, options: Options) -> None:
    """Compute the first staged product of a wgmma loop one iteration ahead."""
    if not options.enabled:
        return
    for op in walk_ops(module, post_order=True):
        if name(op) != "scf.for":
            continue
        plan = staged_loop(op, options.arch, kernel_num_warps(op))
        staged = _movable(plan, kernel_num_warps(op)) if plan is not None else None
        if staged is not None:
            _rotate(op, staged, _clone_set(op, staged))
    eliminate_dead_code(module, None)


def _movable(plan: StagedLoop, num_warps: int) -> StagedMma | None:
    """The loop's first product when it can be computed for any iteration: A and the
    accumulator from before the loop (or a splat of such a value), B a staged load; and when
    the products' accumulators, the early one twice, fit in 128 registers per thread (else
    spills cost more than the overlap gains: 128x128 d=128 attention)."""
    if len(plan.mmas) < 2:
        return None
    threads = 32 * num_warps
    registers = sum(m.m * m.n for m in plan.mmas) // threads
    if registers + plan.mmas[0].m * plan.mmas[0].n // threads > MAX_ACCUMULATORS:
        return None
    first = plan.mmas[0]
    loop = plan.loop
    a, acc = first.mma.operands[0], first.mma.operands[2]
    if not (_outside(a, loop) and (_outside(acc, loop) or _splat_of_outside(acc, loop))):
        return None
    return first


def _outside(value: ir.Value, loop: ir.Operation) -> bool:
    op = defining_op(value)
    if op is None:
        return value.owner != loop.regions[0].blocks[0]
    return not is_within(op, loop)


def _splat_of_outside(value: ir.Value, loop: ir.Operation) -> bool:
    op = defining_op(value)
    return op is not None and name(op) == "tile.splat" and _outside(op.operands[0], loop) \
        and len(list(op.results[0].uses)) == 1


def _clone_set(loop: ir.Operation, staged: StagedMma) -> list[ir.Operation]:
    """The ops that compute the product, in body order: the load's index arithmetic, the
    load, its relabellings, the accumulator's splat, the product."""
    found: list[ir.Operation] = []
    for v in staged.b.load.operands:
        scalar_slice(loop, v, found)
    acc = defining_op(staged.mma.operands[2])
    extra = [acc] if acc is not None and acc.parent == loop else []
    ops_ = [*found, *staged.b.ops, *extra, staged.mma]
    order = {op: i for i, op in enumerate(o.operation for o in
                                          loop.regions[0].blocks[0].operations)}
    return sorted(ops_, key=order.__getitem__)


def _clone(ops_: list[ir.Operation], mapping: dict[ir.Value, ir.Value]) -> ir.Value:
    """`ops_` recomputed at the insertion point with `mapping`'s replacements; the last one's
    result."""
    clone_ops(ops_, mapping)
    return mapping[ops_[-1].results[0]]


def _first_product(computed: list[ir.Operation], lower: ir.Value, step: ir.Value,
                   result: ir.Type) -> ir.Value:
    """Iteration lb's product, as a loop of one iteration: lowered like the loop (its operands
    staged in shared memory), it needs no registers for them."""
    upper = ops.create("add", [lower, step], [lower.type]).result
    zero = ops.create("constant", [], [result.element_type],
                      value=ir.FloatAttr.get(result.element_type, 0.0)).result
    init = ops.create("splat", [zero], [result]).result
    once = scf.ForOp(lower, upper, step, [init])
    with ir.InsertionPoint(once.body):
        value = _clone(computed, {_loop_iv(computed): once.induction_variable})
        scf.YieldOp([value])
    return once.results[0]


def _loop_iv(computed: list[ir.Operation]) -> ir.Value:
    return computed[-1].parent.regions[0].blocks[0].arguments[0]


def _rotate(loop: ir.Operation, staged: StagedMma, computed: list[ir.Operation]) -> None:
    lower, step = loop.operands[0], loop.operands[2]
    product = staged.mma
    with ir.InsertionPoint(loop), loop.location:
        first = _first_product(computed, lower, step, product.results[0].type)
        w = carry_more(loop, [first])
    with ir.InsertionPoint(product), loop.location:
        ahead = _clone(computed, {w.iv: w.following})
    product.results[0].replace_all_uses_with(w.extra[0])
    for op in reversed(computed):  # the product computed in place, now unused
        if all(not list(r.uses) for r in op.results):
            op.erase()
    finish(w, [ahead])
