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
the mbarrier orders them.
"""

from __future__ import annotations

import mlir.ir as ir
from mlir.dialects import arith, gpu, llvm, nvvm, scf

from tilelang.dialect.types import shape_of
from tilelang.language import dtypes as dt
from tilelang.layout import wgmma
from tilelang.passes.matmul_loops import MatmulLoop
from tilelang.passes.simt import tma
from tilelang.passes.simt.context import RULES, Lowering, const
from tilelang.passes.simt.shapes import shared_base
from tilelang.passes.simt.stage_copies import CopyPart
from tilelang.passes.simt.staged_matmul import Engine
from tilelang.passes.simt.values import Distributed, i32, i64

BARRIER_BYTES = 8


def tma_fits(plan: MatmulLoop) -> bool:
    """Boxes cover the tiles: at most 256 rows, whole 128-byte panels of columns."""
    return all(op.rows <= 256 and (op.cols * op.itemsize) % tma.BOX_ROW_BYTES == 0
               for op in (plan.a, plan.b))


def shared_bytes(plan: MatmulLoop) -> int:
    return plan.stages * plan.stage_bytes + 1024 + 2 * BARRIER_BYTES * plan.stages


class _Ring:
    """The stages, their barriers, and thread 0's copies of one iteration."""

    def __init__(self, lw: Lowering, plan: MatmulLoop):
        self.lw, self.plan = lw, plan
        smem = llvm.ptrtoint(i64(), shared_base())
        # the stages start at the first 1024-byte boundary (swizzle atoms), the barriers after
        self.base = arith.andi(arith.addi(smem, const(i64(), 1023)), const(i64(), ~1023))
        self.barriers = arith.addi(self.base, const(i64(), plan.stages * plan.stage_bytes))
        warp, lane = lw.thread_index("warp"), lw.thread_index("lane")
        tid = arith.addi(arith.muli(warp, const(i32(), 32)), lane)
        zero = const(i32(), 0)
        self.is_producer = arith.cmpi(arith.CmpIPredicate.eq, tid, zero)
        in_group = arith.andi(tid, const(i32(), 32 * wgmma.WARPGROUP - 1))
        self.is_group_leader = arith.cmpi(arith.CmpIPredicate.eq, in_group, zero)
        self.parts = [CopyPart(plan.load_a, plan.a, 0),
                      CopyPart(plan.load_b, plan.b, plan.a.bytes, plan.b_index_swapped)]
        self.maps = [tma.tensor_map(lw, lw.array(p.load.operands[0]), _panel_elems(p.operand),
                                    p.operand.rows) for p in self.parts]

    def stage(self, slot: ir.Value) -> ir.Value:
        offset = arith.muli(arith.extui(i64(), slot), const(i64(), self.plan.stage_bytes))
        return arith.addi(self.base, offset)

    def barrier(self, kind: int, slot: ir.Value) -> ir.Value:
        """full (kind 0) or empty (kind 1) barrier of stage `slot`."""
        index = arith.addi(arith.muli(slot, const(i32(), 2)), const(i32(), kind))
        at = arith.muli(arith.extui(i64(), index), const(i64(), BARRIER_BYTES))
        return tma.shared_pointer(arith.addi(self.barriers, at))

    def init(self) -> None:
        groups = self.lw.num_warps // wgmma.WARPGROUP
        branch = scf.IfOp(self.is_producer, [], has_else=False)
        with ir.InsertionPoint(branch.then_block):
            for s in range(self.plan.stages):
                tma.barrier_init(self.barrier(0, const(i32(), s)), 1)
                tma.barrier_init(self.barrier(1, const(i32(), s)), groups)
            nvvm.FenceMbarrierInitOp()
            scf.YieldOp([])

    def invalidate(self) -> None:
        branch = scf.IfOp(self.is_producer, [], has_else=False)
        with ir.InsertionPoint(branch.then_block):
            for s in range(self.plan.stages):
                for kind in (0, 1):
                    tma.invalidate(self.barrier(kind, const(i32(), s)))
            scf.YieldOp([])

    def produce(self, iv: ir.Value, ub: ir.Value, count: ir.Value, refill: bool) -> None:
        """Thread 0 issues iteration `iv` (the `count`-th) into stage count % S when it is
        before `ub`; `refill`: first wait until the stage's previous use is over."""
        stages = self.plan.stages
        live = arith.andi(self.is_producer, arith.cmpi(arith.CmpIPredicate.slt, iv, ub))
        branch = scf.IfOp(live, [], has_else=False)
        with ir.InsertionPoint(branch.then_block):
            slot = arith.remui(count, const(i32(), stages))
            if refill:  # parity of the previous use; a fresh barrier passes (tma.wait)
                previous = arith.xori(tma.parity(count, stages), const(i32(), 1))
                tma.wait(self.barrier(1, slot), previous)
            full = self.barrier(0, slot)
            tma.arrive_expect_bytes(full, self.plan.stage_bytes)
            self._boxes(iv, self.stage(slot), full)
            scf.YieldOp([])

    def _boxes(self, iv: ir.Value, stage: ir.Value, full: ir.Value) -> None:
        body_iv = self.plan.loop.regions[0].blocks[0].arguments[0]
        self.lw.set(body_iv, iv)
        for op in self.plan.index_ops:  # the loads' indices at this iteration
            with op.location:
                RULES[op.name](self.lw, op)
        for part, desc in zip(self.parts, self.maps, strict=True):
            index = [self.lw.get(v) for v in list(part.load.operands)[1:]]
            if part.swapped:
                index.reverse()  # (k, n) tile index of an (N, K) array: rows n, columns k
            op = part.operand
            row = arith.muli(_i32(index[-2]), const(i32(), op.rows))
            col = arith.muli(_i32(index[-1]), const(i32(), op.cols))
            per_panel = _panel_elems(op)
            for p in range(op.cols // per_panel):
                dst = arith.addi(stage, const(i64(), part.offset + p * op.rows * wgmma.ROW_BYTES))
                tma.copy_box(dst, desc, arith.addi(col, const(i32(), p * per_panel)), row, full)


def lower_tma_loop(lw: Lowering, plan: MatmulLoop, engine: Engine) -> None:
    loop = plan.loop
    lb, ub, step = (lw.get(v) for v in list(loop.operands)[:3])
    init = lw.tile(list(loop.operands)[3])
    assert init.layout == engine.layout, "the accumulator arrives in the engine's layout"
    lw.need_shared(shared_bytes(plan))
    stages = plan.stages
    ring = _Ring(lw, plan)
    # earlier conversions wrote the buffer through the generic proxy; TMA writes it through
    # the async one
    nvvm.FenceProxyOp(ir.Attribute.parse("#nvvm.proxy_kind<async.shared>"),
                      space=ir.Attribute.parse("#nvvm.shared_space<cta>"))
    ring.init()
    gpu.barrier()  # the barriers are initialized and the buffer's earlier readers are done
    for d in range(stages - 1):
        iv = arith.addi(lb, arith.muli(step, const(lb.type, d)))
        ring.produce(iv, ub, const(i32(), d), refill=False)
    carried = engine.carry(init.regs)
    for_op = scf.ForOp(lb, ub, step, [*carried, const(i32(), 0)])
    with ir.InsertionPoint(for_op.body):
        iv = for_op.induction_variable
        *accs, count = list(for_op.inner_iter_args)
        slot = arith.remui(count, const(i32(), stages))
        tma.wait(ring.barrier(0, slot), tma.parity(count, stages))
        accs = engine.multiply(ring.stage(slot), accs)  # leaves only its own wgmma running
        released = arith.andi(ring.is_group_leader,
                              arith.cmpi(arith.CmpIPredicate.ugt, count, const(i32(), 0)))
        branch = scf.IfOp(released, [], has_else=False)
        with ir.InsertionPoint(branch.then_block):
            previous = arith.remui(arith.addi(count, const(i32(), stages - 1)),
                                   const(i32(), stages))
            tma.arrive(ring.barrier(1, previous))
            scf.YieldOp([])
        ahead_iv = arith.addi(iv, arith.muli(step, const(iv.type, stages - 1)))
        ring.produce(ahead_iv, ub, arith.addi(count, const(i32(), stages - 1)), refill=True)
        scf.YieldOp([*accs, arith.addi(count, const(i32(), 1))])
    regs = engine.finish(list(for_op.results)[:-1])
    gpu.barrier()  # every thread is past its last wait
    ring.invalidate()
    gpu.barrier()  # the buffer (barriers included) is free for the next user
    result = loop.results[0]
    lw.set(result, Distributed(tuple(regs), engine.layout, dt.float32, shape_of(result.type)))


def _panel_elems(op: wgmma.Operand) -> int:
    return tma.BOX_ROW_BYTES // op.itemsize


def _i32(value: ir.Value) -> ir.Value:
    return value if value.type == i32() else arith.trunci(i32(), value)
