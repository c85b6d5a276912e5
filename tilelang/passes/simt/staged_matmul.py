"""Passes (simt): a matrix-product loop (passes/matmul_loops.py) fed from shared memory:
`cp.async` copies the tiles of `a` and `b` into a ring of shared-memory stages several
iterations ahead, and an engine multiplies each stage: `wgmma.mma_async` on sm_90 (simt/wgmma.py)
or `ldmatrix` + `mma.sync` (simt/mma_ring.py). The stages' layouts are layout/wgmma.Operand's
(128-byte swizzle: conflict-free for the copies, for ldmatrix and for wgmma's descriptors).

    prologue: barrier; copy iterations 0 .. D-1 into stages 0 .. D-1
    each iteration j (stage s = j % stages):
        wait for this thread's copies of j; (fence.proxy.async for wgmma); barrier
        copy iteration j + D into stage (j + D) % stages
        multiply stage s
    epilogue: wait for every copy (and wgmma); barrier (the buffer is reused after the loop)

D = stages - 1 when the engine has read a stage once its instructions retire (mma.sync): the
barrier of iteration j proves every warp finished with stage j - 1. D = stages - 2 for wgmma,
which reads asynchronously: each warpgroup waits at the end of iteration j - 1 until only
wgmma j - 1 runs, so the barrier of iteration j proves wgmma j - 2 finished everywhere. Copies
past the array's edge, or for iterations past the loop's end, read no memory and fill zeros
(cp.async's source size).
"""

from __future__ import annotations

from typing import Protocol

import mlir.ir as ir
from mlir.dialects import arith, gpu, nvvm

from tilelang.dialect.types import shape_of
from tilelang.language import dtypes as dt
from tilelang.layout import LinearLayout
from tilelang.passes.matmul_loops import MatmulLoop
from tilelang.passes.simt.context import Lowering, const
from tilelang.passes.simt.paired_loop import lower_engine_loop
from tilelang.passes.simt.stage_copies import Copies, matmul_parts
from tilelang.passes.simt.values import Distributed, i32


class Engine(Protocol):
    """How one stage is multiplied into the accumulator (carried through the loop in the
    engine's own form)."""

    ahead: int  # iterations the copies run ahead
    unroll: int  # iterations a trip of the loop (simt/paired_loop.py)
    layout: LinearLayout  # the accumulator's

    def use_scratch(self, address: ir.Value) -> None:
        """Where the plan's `scratch_bytes` past the ring start."""

    def carry(self, regs: tuple[ir.Value, ...]) -> list[ir.Value]: ...

    def multiply(self, stage: ir.Value, carried: list[ir.Value]) -> list[ir.Value]: ...

    def finish(self, carried: list[ir.Value]) -> list[ir.Value]: ...


def lower_staged_loop(lw: Lowering, plan: MatmulLoop, engine: Engine) -> None:
    loop = plan.loop
    lb, ub, step = (lw.get(v) for v in list(loop.operands)[:3])
    init = lw.tile(list(loop.operands)[3])
    assert init.layout == engine.layout, "the accumulator arrives in the engine's layout"
    lw.need_shared(plan.stages * plan.stage_bytes + plan.scratch_bytes)
    parts = matmul_parts(plan)
    copies = Copies(lw, loop, parts, plan.index_ops, plan.stage_bytes)
    engine.use_scratch(copies.stage_address(const(i32(), plan.stages)))
    ahead = engine.ahead
    gpu.barrier()  # an earlier conversion may still read the shared buffer
    for d in range(ahead):
        iv = arith.addi(lb, arith.muli(step, const(lb.type, d)))
        copies.issue(iv, ub, const(i32(), d))

    def iteration(iv: ir.Value, state: list[ir.Value]) -> list[ir.Value]:
        *accs, slot = state
        nvvm.CpAsyncWaitGroupOp(ahead - 1)
        if plan.engine == "wgmma":  # the copies wrote through the generic proxy
            nvvm.FenceProxyOp(ir.Attribute.parse("#nvvm.proxy_kind<async.shared>"),
                              space=ir.Attribute.parse("#nvvm.shared_space<cta>"))
        gpu.barrier()
        ahead_iv = arith.addi(iv, arith.muli(step, const(iv.type, ahead)))
        copies.issue(ahead_iv, ub, wrap_slot(arith.addi(slot, const(i32(), ahead)), plan.stages))
        accs = engine.multiply(copies.stage_address(slot), accs)
        return [*accs, wrap_slot(arith.addi(slot, const(i32(), 1)), plan.stages)]

    regs, _ = lower_engine_loop(lb, ub, step, engine, init.regs, const(i32(), 0), iteration)
    nvvm.CpAsyncWaitGroupOp(0)
    gpu.barrier()
    result = loop.results[0]
    lw.set(result, Distributed(tuple(regs), engine.layout, dt.float32, shape_of(result.type)))


def wrap_slot(slot: ir.Value, stages: int) -> ir.Value:
    past = arith.cmpi(arith.CmpIPredicate.sge, slot, const(i32(), stages))
    return arith.select(past, arith.subi(slot, const(i32(), stages)), slot)
