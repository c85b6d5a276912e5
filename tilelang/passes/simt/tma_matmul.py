"""Passes (simt): a matrix-product loop (passes/matmul_loops.py) on sm_90 with its operand tiles
brought in by TMA (simt/tma.py) and multiplied by wgmma (simt/wgmma.py), the stages of the ring
handed over through mbarriers instead of block barriers.

Each stage s has two mbarriers: `full[s]` (one arrival: the thread that issues the stage's boxes
announces their bytes; the phase completes when they have landed) and `empty[s]` (one arrival
per warpgroup: its wgmma instructions that read the stage have retired). Thread 0 produces:

    prologue: init the barriers; issue iterations 0 .. S-2 into stages 0 .. S-2
    iteration n (stage s = n % S):
        every thread: wait full[s] (parity n // S)
        each warpgroup: wgmma on stage s; wait until only these instructions run
        one thread per warpgroup: arrive empty[(n - 1) % S] (wgmma n - 1 has retired)
        thread 0: wait empty[(n + S - 1) % S] (its previous use, iteration n - 1, is done
                  everywhere), then issue iteration n + S - 1 into it
    epilogue: wgmma wait 0; block barrier; invalidate the barriers

So copies run S - 1 iterations ahead (cp.async's ring, which a block barrier per iteration
guards, runs S - 2), and no warpgroup waits for another except thread 0's warp for the stage it
refills. No fence is needed between the landing bytes and wgmma: both are the async proxy, and
the mbarrier orders them. In a warp-specialized kernel (simt/warp_specialize.py, the default on
sm_90) a producer warpgroup does thread 0's part, and the loop keeps only the waits and the
releases.
"""

from __future__ import annotations

import mlir.ir as ir
from mlir.dialects import arith, gpu, nvvm

from tilelang.dialect.types import shape_of
from tilelang.language import dtypes as dt
from tilelang.passes.matmul_loops import MatmulLoop
from tilelang.passes.simt import tma_ring
from tilelang.passes.simt.context import Lowering, const
from tilelang.passes.simt.paired_loop import lower_engine_loop
from tilelang.passes.simt.stage_copies import matmul_parts
from tilelang.passes.simt.staged_matmul import Engine
from tilelang.passes.simt.tma_ring import TmaRing
from tilelang.passes.simt.values import Distributed, i32, i64


def lower_tma_loop(lw: Lowering, plan: MatmulLoop, engine: Engine) -> None:
    """The loop on its ring: filled by thread 0 (above), or by the producer warpgroup of a
    warp-specialized kernel (simt/warp_specialize.py), the loop then only waiting for its
    stages and releasing them."""
    loop = plan.loop
    lb, ub, step = (lw.get(v) for v in list(loop.operands)[:3])
    init = lw.tile(list(loop.operands)[3])
    assert init.layout == engine.layout, "the accumulator arrives in the engine's layout"
    spec = lw.specialized
    if spec is not None:
        ring, start, lead = spec.ring(lw, spec.next_loop(loop)), spec.start_count(), 0
    else:
        ring, start, lead = _thread0_ring(lw, plan), const(i32(), 0), plan.stages - 1
    engine.use_scratch(arith.addi(ring.base, const(i64(), ring.bytes)))
    for d in range(lead):
        iv = arith.addi(lb, arith.muli(step, const(lb.type, d)))
        ring.produce(iv, ub, const(i32(), d), refill=False)

    def iteration(iv: ir.Value, state: list[ir.Value]) -> list[ir.Value]:
        *accs, count = state
        accs = engine.multiply(ring.wait_full(count), accs)  # leaves only its own wgmma running
        previous = arith.subi(count, const(i32(), 1))  # wgmma `previous` has retired
        ring.release(previous, arith.cmpi(arith.CmpIPredicate.sgt, count, const(i32(), 0)))
        if lead:
            ahead_iv = arith.addi(iv, arith.muli(step, const(iv.type, lead)))
            ring.produce(ahead_iv, ub, arith.addi(count, const(i32(), lead)), refill=True)
        return [*accs, arith.addi(count, const(i32(), 1))]

    regs, count = lower_engine_loop(lb, ub, step, engine, init.regs, start, iteration)
    if spec is not None:
        spec.finish_loop(lw, ring, count)
    else:
        gpu.barrier()  # every thread is past its last wait
        ring.invalidate()
        gpu.barrier()  # the buffer (barriers included) is free for the next user
    result = loop.results[0]
    lw.set(result, Distributed(tuple(regs), engine.layout, dt.float32, shape_of(result.type)))


def _thread0_ring(lw: Lowering, plan: MatmulLoop) -> TmaRing:
    """The loop's own ring at the buffer's start, its barriers initialized."""
    stages = plan.stages
    lw.need_shared(stages * plan.stage_bytes + plan.scratch_bytes +
                   tma_ring.barrier_bytes(stages))
    parts = matmul_parts(plan)
    ring = TmaRing(lw, plan.loop, parts, plan.index_ops, plan.stage_bytes, stages,
                   after_bytes=plan.scratch_bytes)
    # earlier conversions wrote the buffer through the generic proxy; TMA writes it through
    # the async one
    nvvm.FenceProxyOp(ir.Attribute.parse("#nvvm.proxy_kind<async.shared>"),
                      space=ir.Attribute.parse("#nvvm.shared_space<cta>"))
    ring.init()
    gpu.barrier()  # the barriers are initialized and the buffer's earlier readers are done
    return ring
