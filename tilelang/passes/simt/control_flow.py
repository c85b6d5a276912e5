"""Passes (simt): scf.for / scf.if / scf.while with tiles flattened into register values (and
arrays into their pointer, extents and strides)."""

from __future__ import annotations

import mlir.ir as ir
from mlir.dialects import scf

from tilelang.passes.matmul_loops import MatmulLoop
from tilelang.passes.plan_rings import Ring, ring_of
from tilelang.passes.simt.carried import bind, flat_operands, flat_types
from tilelang.passes.simt.context import Lowering, lowers
from tilelang.passes.simt.mma_ring import MmaRingEngine
from tilelang.passes.simt.staged_loop import lower_staged_body, lower_with_tma
from tilelang.passes.simt.staged_matmul import lower_staged_loop
from tilelang.passes.simt.tma_matmul import lower_tma_loop
from tilelang.passes.simt.wgmma import WgmmaEngine


def _lower_body(lw: Lowering, old: ir.Block, new: ir.Block) -> ir.Operation:
    with ir.InsertionPoint(new):
        (terminator,) = lw.lower_block(old)
    return terminator


@lowers("scf.for")
def lower_for(lw: Lowering, op: ir.Operation) -> None:
    ring = ring_of(op, lw.chip, lw.num_warps)  # chosen by tile-plan-rings
    if ring is not None:
        _lower_ring_loop(lw, ring)
        return
    spec = lw.specialized
    if spec is not None and spec.tile_loop is not None and spec.tile_loop == op:
        _lower_tile_loop(lw, op, spec)
        return
    lb, ub, step, *inits = list(op.operands)
    loop = scf.ForOp(lw.get(lb), lw.get(ub), lw.get(step), flat_operands(lw, inits))
    body = op.regions[0].blocks[0]
    lw.set(body.arguments[0], loop.induction_variable)
    bind(lw, list(body.arguments)[1:], list(loop.inner_iter_args))
    terminator = _lower_body(lw, body, loop.body)
    with ir.InsertionPoint(loop.body):
        scf.YieldOp(flat_operands(lw, list(terminator.operands)))
    bind(lw, list(op.results), list(loop.results))


def _lower_ring_loop(lw: Lowering, ring: Ring) -> None:
    """A loop lowered whole around its ring of shared-memory stages (passes/plan_rings.py)."""
    plan = ring.plan
    if ring.tma:  # its tiles copied by TMA into the ring
        lw.uses_wgmma = True
        if isinstance(plan, MatmulLoop):
            lower_tma_loop(lw, plan, WgmmaEngine(lw, plan))
        else:
            lower_with_tma(lw, plan)
    elif isinstance(plan, MatmulLoop):  # the whole loop, its operands staged by cp.async
        lw.uses_wgmma |= plan.engine == "wgmma"
        engine = WgmmaEngine(lw, plan) if plan.engine == "wgmma" else MmaRingEngine(lw, plan)
        lower_staged_loop(lw, plan, engine)
    else:  # products on wgmma from operands staged in shared memory
        lw.uses_wgmma = True
        lower_staged_body(lw, plan)


def _lower_tile_loop(lw: Lowering, op: ir.Operation, spec) -> None:
    """A persistent kernel's loop over tiles around the ring loops (simt/warp_specialize.py):
    the ring's iteration count runs on from one tile to the next, carried by the loop."""
    lb, ub, step, *inits = list(op.operands)
    loop = scf.ForOp(lw.get(lb), lw.get(ub), lw.get(step),
                     [*flat_operands(lw, inits), spec.start_count()])
    body = op.regions[0].blocks[0]
    lw.set(body.arguments[0], loop.induction_variable)
    *carried, spec.count = list(loop.inner_iter_args)
    bind(lw, list(body.arguments)[1:], carried)
    terminator = _lower_body(lw, body, loop.body)
    with ir.InsertionPoint(loop.body):
        scf.YieldOp([*flat_operands(lw, list(terminator.operands)), spec.count])
    *results, spec.count = list(loop.results)
    bind(lw, list(op.results), results)
    spec.settle(lw, spec.ring(lw, spec.loops[-1]))


@lowers("scf.if")
def lower_if(lw: Lowering, op: ir.Operation) -> None:
    types = [t for r in op.results for t in flat_types(r)]
    has_else = bool(op.regions[1].blocks)
    branch = scf.IfOp(lw.get(op.operands[0]), types, has_else=has_else)
    blocks = [(op.regions[0].blocks[0], branch.then_block)]
    if has_else:
        blocks.append((op.regions[1].blocks[0], branch.else_block))
    for old, new in blocks:
        terminator = _lower_body(lw, old, new)
        with ir.InsertionPoint(new):
            scf.YieldOp(flat_operands(lw, list(terminator.operands)))
    bind(lw, list(op.results), list(branch.results))


@lowers("scf.while")
def lower_while(lw: Lowering, op: ir.Operation) -> None:
    old_before, old_after = op.regions[0].blocks[0], op.regions[1].blocks[0]
    types = [t for r in op.results for t in flat_types(r)]
    before_types = [t for a in old_before.arguments for t in flat_types(a)]
    loop = scf.WhileOp(types, flat_operands(lw, list(op.operands)))
    before = loop.before.blocks.append(*before_types)
    bind(lw, list(old_before.arguments), list(before.arguments))
    condition = _lower_body(lw, old_before, before)
    cond, *forwarded = list(condition.operands)
    with ir.InsertionPoint(before):
        scf.ConditionOp(lw.get(cond), flat_operands(lw, forwarded))
    after = loop.after.blocks.append(*types)
    bind(lw, list(old_after.arguments), list(after.arguments))
    terminator = _lower_body(lw, old_after, after)
    with ir.InsertionPoint(after):
        scf.YieldOp(flat_operands(lw, list(terminator.operands)))
    bind(lw, list(op.results), list(loop.results))
