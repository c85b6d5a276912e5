"""Passes (simt): a loop whose products read staged operands (passes/staged_loops.py): the
B operands' loads become a `cp.async` ring of shared-memory stages `ahead` iterations ahead
(simt/staged_matmul.Copies), each tile.mma becomes `wgmma.mma_async` with A from registers and B
through a descriptor into the current stage, and every other op of the body is lowered as usual.

    prologue: barrier; copy iterations 0 .. D-1 into stages 0 .. D-1
    each iteration j (stage s = j % stages):
        wait for this thread's copies of j; fence.proxy.async; barrier
        copy iteration j + D into stage (j + D) % stages
        the body; each product: wgmma.fence, the instructions, commit
    after the loop: wait for every wgmma and copy; barrier

A product's result is waited for (`wgmma.wait_group n`: all but the n groups committed after
it) just before the first op that reads it, so a product whose result only flows into the next
iteration (attention's `acc`, or the score block tile-pipeline-products computes one iteration
early) runs on while the body goes on. Only one product may run into the next iteration (in
place, as an accumulator): with two, their registers are copied into the carried ones, and
ptxas serializes all wgmma when an instruction reads the accumulator of one in flight. Each
iteration starts by waiting until only the previous iteration's products may run, so when
iteration j + 1 passes its barrier every warpgroup has finished the products of j - 1, whose
stage the ring then refills: D = stages - 2.
"""

from __future__ import annotations

from collections.abc import Callable

import mlir.ir as ir
from mlir.dialects import arith, gpu, llvm, nvvm, scf, vector

from tilelang.dialect import dtype_of
from tilelang.dialect.types import shape_of
from tilelang.language import dtypes as dt
from tilelang.layout import wgmma
from tilelang.layout.boxes import BoxBuffer
from tilelang.passes.ir_utils import walk_ops
from tilelang.passes.simt import tma_ring
from tilelang.passes.simt.addressing import align_up
from tilelang.passes.simt.carried import bind, flat_operands
from tilelang.passes.simt.context import RULES, Lowering, const, when
from tilelang.passes.simt.stage_copies import Copies, CopyPart, aligned_base, gathered_rows
from tilelang.passes.simt.staged_matmul import wrap_slot
from tilelang.passes.simt.staging import thread_term
from tilelang.passes.simt.tma_ring import TmaRing
from tilelang.passes.simt.tma_store import write_boxes
from tilelang.passes.simt.turns import Turns, takes_turns
from tilelang.passes.simt.values import Distributed, i32, i64
from tilelang.passes.simt.wgmma import (
    WGMMA_TYPES,
    Descriptors,
    pack_struct,
    wgmma_kinds,
    wgmma_ss,
)
from tilelang.passes.staged_loops import (
    StagedLoop,
    StagedMma,
    StagedOperand,
    a_layout,
    row_source,
)


def lower_staged_body(lw: Lowering, plan: StagedLoop) -> None:
    """The loop with its B operands copied by cp.async (lower_with_tma: by TMA)."""
    loop = plan.loop
    lb, ub, step, *inits = list(loop.operands)
    lb, ub, step = (lw.get(v) for v in (lb, ub, step))
    # the ring goes past the shared memory the body's own conversions use (known once the
    # body is lowered: the placeholder is set then)
    offset = arith.constant(i64(), 0)
    outer_shared, lw.shared_bytes = lw.shared_bytes, 0
    parts = [_copy_part(lw, loop, o) for o in plan.operands]
    copies = Copies(lw, loop, parts, plan.index_ops, plan.stage_bytes, offset)
    ring_bytes = plan.stages * plan.stage_bytes
    once = None
    if plan.once:  # after the ring (both start at 1024-byte boundaries)
        once = _Once(lw, plan, arith.addi(offset, const(i64(), ring_bytes)))
    ahead = plan.ahead
    gpu.barrier()  # an earlier conversion may still read the shared buffer
    if once is not None:  # one commit group, older than the ring's: waited for by the first
        once.put(lb, ub)  # iteration (whose fence and barrier cover the register writes too)
    for d in range(ahead):
        iv = arith.addi(lb, arith.muli(step, const(lb.type, d)))
        copies.issue(iv, ub, const(i32(), d))
    body = loop.regions[0].blocks[0]
    for_op = scf.ForOp(lb, ub, step, [*flat_operands(lw, inits), const(i32(), 0)])
    with ir.InsertionPoint(for_op.body):
        iv = for_op.induction_variable
        *carried, slot = list(for_op.inner_iter_args)
        # this warpgroup's products of the iteration before last are done: after the barrier
        # their stage is refilled
        nvvm.WgmmaWaitGroupSyncOp(len(plan.mmas))
        nvvm.CpAsyncWaitGroupOp(ahead - 1)
        nvvm.FenceProxyOp(ir.Attribute.parse("#nvvm.proxy_kind<async.shared>"),
                          space=ir.Attribute.parse("#nvvm.shared_space<cta>"))
        gpu.barrier()
        ahead_iv = arith.addi(iv, arith.muli(step, const(iv.type, ahead)))
        copies.issue(ahead_iv, ub, wrap_slot(arith.addi(slot, const(i32(), ahead)), plan.stages))
        lw.set(body.arguments[0], iv)
        bind(lw, list(body.arguments)[1:], carried)
        once_base = once.base if once is not None else None
        terminator = _lower_body(lw, plan, body, copies.stage_address(slot), once_base)
        scf.YieldOp([*flat_operands(lw, list(terminator.operands)),
                     wrap_slot(arith.addi(slot, const(i32(), 1)), plan.stages)])
    nvvm.WgmmaWaitGroupSyncOp(0)
    nvvm.CpAsyncWaitGroupOp(0)
    gpu.barrier()
    scratch = align_up(lw.shared_bytes)
    offset.owner.attributes["value"] = ir.IntegerAttr.get(i64(), scratch)
    lw.shared_bytes = 0
    lw.need_shared(max(outer_shared, align_up(scratch + ring_bytes) + plan.once_bytes))
    bind(lw, list(loop.results), list(for_op.results)[:-1])


def _copy_part(lw: Lowering, loop: ir.Operation, operand: StagedOperand) -> CopyPart:
    """A stage's copies of `operand`: a load's tile, or a gathered operand's rows."""
    if operand.gathered is None:
        return CopyPart(operand.load, operand.operand, operand.offset)
    source = row_source(operand.gathered.rows, loop)
    assert source is not None, "staged_loops found it"
    return CopyPart(operand.load, operand.operand, operand.offset,
                    rows=gathered_rows(lw, source, operand.operand),
                    start=operand.gathered.start)


# the TMA ring's producer refills the stage of iteration c - 1 - RING_LAG at the end of
# iteration c. Lag 1 would let a warpgroup run up to an iteration ahead of the other before
# thread 0 waits for it, at one stage less in flight: measured on the H100 (attention d=128,
# seq 4096, 3 stages) it lost 15% (379 against 449 TFLOP/s): copies in flight matter more.
RING_LAG = 0
# FA3's "warp scheduler barrier" (the two warpgroups taking turns at the tensor cores:
# simt/turns.py) lost 6-22% while thread 0, which refilled the ring from inside a warpgroup,
# waited for both (432 / 365 / 380 against 460 TFLOP/s, d=128 seq 4096); it runs only with a
# producer warpgroup of its own (simt/warp_specialize.py).


def lower_with_tma(lw: Lowering, plan: StagedLoop) -> None:
    """The loop with its B operands brought in by TMA (simt/tma_ring.py): each iteration
    waits for its stage's full barrier; each warpgroup releases the previous iteration's stage
    once the products that read it are known done, and thread 0 refills, at the iteration's
    end, the stage of the iteration RING_LAG before it (or, warp-specialized, the producer
    warpgroup fills the ring: simt/warp_specialize.py). A copied-once A (q) still comes by
    cp.async, waited for before the loop."""
    loop = plan.loop
    lb, ub, step, *inits = list(loop.operands)
    lb, ub, step = (lw.get(v) for v in (lb, ub, step))
    spec = lw.specialized  # a producer warp fills the ring (simt/warp_specialize.py)
    stages, ring_bytes = plan.stages, plan.stages * plan.stage_bytes
    if spec is not None:  # (its ring may hold fewer stages: past a tile loop's buffers)
        offset = spec.offset
        ring = spec.ring(lw, spec.next_loop(loop))
        stages, ring_bytes = ring.stages, ring.bytes
        lead = 0
    else:
        offset = arith.constant(i64(), 0)  # past the body's own conversions: set at the end
        outer_shared, lw.shared_bytes = lw.shared_bytes, 0
        parts = [CopyPart(o.load, o.operand, o.offset) for o in plan.operands]
        ring = TmaRing(lw, loop, parts, plan.index_ops, plan.stage_bytes, stages, offset,
                       after_bytes=plan.once_bytes)
        nvvm.FenceProxyOp(ir.Attribute.parse("#nvvm.proxy_kind<async.shared>"),
                          space=ir.Attribute.parse("#nvvm.shared_space<cta>"))
        ring.init()
        gpu.barrier()  # the barriers are initialized and the buffer's earlier readers are done
        lead = stages - 1 - RING_LAG  # iterations in flight ahead of the one multiplied
    for d in range(lead):
        iv = arith.addi(lb, arith.muli(step, const(lb.type, d)))
        ring.produce(iv, ub, const(i32(), d), refill=False)
    once_base = None
    if plan.once:  # after the ring (both start at 1024-byte boundaries)
        once = _Once(lw, plan, arith.addi(offset, const(i64(), ring_bytes)))
        # copied by the loop before (the same tiles, when it ran) and still in place: the
        # ring lies past every buffer until the last loop (attention's masked key blocks)
        copied = spec.copied_once(plan.once) if spec is not None else None
        if copied is None:
            once.put(lb, ub)
        else:  # (a copy past the loop's end would fill zeros)
            missing = arith.xori(copied, arith.constant(copied.type, 1))
            with ir.InsertionPoint(scf.IfOp(missing, [], has_else=False).then_block):
                once.put(lb, ub)
                scf.YieldOp([])
        if spec is not None:
            spec.record_once(plan.once, lb, ub)
        nvvm.CpAsyncWaitGroupOp(0)
        nvvm.FenceProxyOp(ir.Attribute.parse("#nvvm.proxy_kind<async.shared>"),
                          space=ir.Attribute.parse("#nvvm.shared_space<cta>"))
        gpu.barrier()
        once_base = once.base
    turns = Turns(lw) if takes_turns(lw, plan) else None
    if turns is not None:
        turns.start()
    body = loop.regions[0].blocks[0]
    start = spec.start_count() if spec is not None else const(i32(), 0)
    for_op = scf.ForOp(lb, ub, step, [*flat_operands(lw, inits), start])
    with ir.InsertionPoint(for_op.body):
        iv = for_op.induction_variable
        *carried, count = list(for_op.inner_iter_args)
        stage = ring.wait_full(count)
        lw.set(body.arguments[0], iv)
        bind(lw, list(body.arguments)[1:], carried)
        # each warpgroup releases the stage of `count - 1` as soon as the products that read
        # it are known done (attention: at the wait for this iteration's scores)
        def release(count=count) -> None:
            ring.release(arith.subi(count, const(i32(), 1)),
                         arith.cmpi(arith.CmpIPredicate.sgt, count, const(i32(), 0)))
        terminator = _lower_body(lw, plan, body, stage, once_base, turns, release)
        # before the copies below rebind the induction variable and the loads' indices to
        # a later iteration's (a yielded one must keep this iteration's)
        yielded = flat_operands(lw, list(terminator.operands))
        if spec is None:
            ahead_iv = arith.addi(iv, arith.muli(step, const(iv.type, lead)))
            ring.produce(ahead_iv, ub, arith.addi(count, const(i32(), lead)), refill=True)
        scf.YieldOp([*yielded, arith.addi(count, const(i32(), 1))])
    if turns is not None:
        turns.finish()
    nvvm.WgmmaWaitGroupSyncOp(0)
    if spec is not None:
        spec.finish_loop(lw, ring, for_op.results[-1])
        bind(lw, list(loop.results), list(for_op.results)[:-1])
        return
    gpu.barrier()  # every thread is past its last wait
    ring.invalidate()
    gpu.barrier()
    scratch = align_up(lw.shared_bytes)
    offset.owner.attributes["value"] = ir.IntegerAttr.get(i64(), scratch)
    lw.shared_bytes = 0
    lw.need_shared(max(outer_shared, scratch + ring_bytes + plan.once_bytes +
                       tma_ring.barrier_bytes(stages)))
    bind(lw, list(loop.results), list(for_op.results)[:-1])


class _Once:
    """The A operands put in shared memory once, before the loop, past the ring: loads copied
    by cp.async (one commit group), tiles computed before the loop written from their
    registers (each thread its owned elements, up to 16 bytes a store, in the K-major
    128-byte-swizzled layout: one TMA box of rows per panel, layout/boxes.py). The caller
    fences the async proxy and waits at a barrier before a wgmma reads them."""

    def __init__(self, lw: Lowering, plan: StagedLoop, offset: ir.Value):
        self.lw = lw
        staged = [m for m in plan.mmas if m.a is not None]
        self.written = [m for m in staged if m.a is not None and m.a.registers]
        copied = [CopyPart(m.a.load, m.a.operand, m.a.offset) for m in staged
                  if m.a is not None and not m.a.registers]
        self.copies = Copies(lw, plan.loop, copied, (), plan.once_bytes, offset) \
            if copied else None
        self.base = self.copies.base if self.copies is not None else aligned_base(offset)

    def put(self, lb: ir.Value, ub: ir.Value) -> None:
        if self.copies is not None:
            self.copies.issue(lb, ub, const(i32(), 0))
        for staged in self.written:
            self._write(staged)

    def _write(self, staged: StagedMma) -> None:
        assert staged.a is not None
        value = staged.mma.operands[0]
        tile = self.lw.tile(value)
        a = staged.a.operand
        boxes = BoxBuffer(a.rows, a.cols, a.itemsize)
        thread = thread_term(self.lw, boxes.offset_bases(tile.layout))
        at = arith.addi(self.base, const(i64(), staged.a.offset))
        every = list(range(len(boxes.boxes())))
        when(self.lw.owner_predicate(tile.layout),
             lambda: write_boxes(boxes, every, at, thread, tile, dtype_of(value.type)))


def _lower_body(lw: Lowering, plan: StagedLoop, body: ir.Block, stage: ir.Value,
                once: ir.Value | None, turns: Turns | None = None,
                retired: Callable[[], None] | None = None) -> ir.Operation:
    """The body's ops. Each product commits one wgmma group; an op that reads a product still
    in flight first waits until that product's group is done (`wgmma.wait_group n`, n the
    groups committed after it, which may run on). The carried values may be products of the
    previous iteration, in flight in the order they were committed; `retired` is emitted where
    the last of them is known done (the previous iteration's stage is free from there)."""
    skipped = plan.skipped
    terminator = list(body.operations)[-1].operation
    order = [m.mma.results[0] for m in plan.mmas]  # commit order within an iteration
    yielded = list(terminator.operands)
    carried = [(order.index(v), arg) for arg, v in zip(list(body.arguments)[1:], yielded,
                                                       strict=True) if v in order]
    pending = [arg for _, arg in sorted(carried, key=lambda pair: pair[0])]
    previous = set(pending)
    if retired is not None and not previous:
        retired()
        retired = None
    for op in list(body.operations)[:-1]:
        op = op.operation
        if op in skipped:
            continue
        staged = plan.mma_of(op)
        reads = _operands(op) if staged is None else \
            ([] if staged.a is not None else [op.operands[0]])
        waited = [i for i, v in enumerate(pending) if v in reads]
        if waited:
            last = max(waited)
            nvvm.WgmmaWaitGroupSyncOp(len(pending) - 1 - last)
            pending = pending[last + 1:]
            if retired is not None and not previous.intersection(pending):
                retired()
                retired = None
        with op.location:
            if staged is None:
                RULES[op.name](lw, op)
            else:
                if turns is not None and staged is plan.mmas[-1]:
                    turns.wait()  # the turn: this product and the next iteration's first
                _lower_mma(lw, staged, stage, once)
                if turns is not None and staged is plan.mmas[0]:
                    turns.pass_on()
                pending.append(op.results[0])
    if len(pending) > 1:
        # two products would run into the next iteration: their registers are copied into the
        # carried ones there, and ptxas serializes every wgmma of the kernel when an
        # instruction reads the accumulator of one still running (one alone is carried in
        # place: attention's acc, a K loop's accumulator)
        nvvm.WgmmaWaitGroupSyncOp(0)
    if retired is not None:  # a carried product no op of the body read
        nvvm.WgmmaWaitGroupSyncOp(len(pending))
        retired()
    return terminator


def _operands(op: ir.Operation) -> list[ir.Value]:
    """The values `op` and the ops nested in it read."""
    values = list(op.operands)
    for inner in walk_ops(op):
        values += list(inner.operands)
    return values


def _lower_mma(lw: Lowering, staged: StagedMma, stage: ir.Value,
               once: ir.Value | None) -> None:
    """One product's wgmma instructions, per 64-row block of this warpgroup and per 16 of K:
    A from registers, or through a descriptor when copied once or gathered into the stage
    (SS); B from the stage."""
    op = staged.mma
    acc = lw.tile(op.operands[2])
    groups = lw.num_warps // wgmma.WARPGROUP
    assert acc.layout == wgmma.accumulator_layout(staged.m, staged.n, lw.num_warps)
    blocks = staged.m // groups // wgmma.INSTR_M  # 64-row blocks per warpgroup
    per_block = staged.n // 2  # accumulator registers per thread per block
    b = staged.b.operand
    b_base = arith.addi(stage, const(i64(), staged.b.offset))
    dtype = dtype_of(op.operands[0].type).name
    # a zero accumulator (attention's scores) is not set up: the first instruction of each
    # block ignores it (scale-d false) and reads undefined registers, no movs of zeros
    fresh = all(_is_zero(r) for r in acc.regs)
    start = [llvm.UndefOp(ir.F32Type.get()).result] * len(acc.regs) if fresh else acc.regs
    nvvm.WgmmaFenceAlignedOp()
    out: list[ir.Value] = []
    if staged.a is not None:
        a = staged.a.operand
        group = arith.shrui(lw.thread_index("warp"), const(i32(), 2))
        rows = arith.muli(arith.extui(i64(), group),
                          const(i64(), staged.m // groups * wgmma.ROW_BYTES))
        region = stage if staged.a_in_ring else once
        a_base = arith.addi(arith.addi(region, const(i64(), staged.a.offset)), rows)
        kinds = wgmma_kinds(dtype, dtype_of(op.operands[1].type).name, b.k_major)
        first_kinds = dict(kinds, scaleD=ir.Attribute.parse("#nvvm.wgmma_scale_out<zero>")) \
            if fresh else kinds
        descs_a, descs_b = Descriptors(a_base, a), Descriptors(b_base, b)
        for block in range(blocks):
            struct = pack_struct(start[block * per_block:(block + 1) * per_block])
            for k_step in range(staged.k // 16):
                desc_a = descs_a.at(a.step_offset(k_step, block))
                desc_b = descs_b.at(b.step_offset(k_step))
                struct = wgmma_ss(struct, desc_a, desc_b, staged.n, 16,
                                  first_kinds if k_step == 0 else kinds)
            out += [llvm.extractvalue(ir.F32Type.get(), struct, [i]) for i in range(per_block)]
    else:
        a_regs = lw.tile(op.operands[0])
        assert a_regs.layout == a_layout(staged.m, staged.k, lw.num_warps), "wgmma A registers"
        words = _words(list(a_regs.regs))
        words_per_block = staged.k // 4  # A: k / 8 column blocks x 4 values, two per word
        descs_b = Descriptors(b_base, b)
        for block in range(blocks):
            regs = list(start[block * per_block:(block + 1) * per_block])
            for k_step in range(staged.k // 16):
                first = block * words_per_block + 4 * k_step
                desc = descs_b.at(b.step_offset(k_step))
                regs = _wgmma_rs(regs, words[first:first + 4], desc, staged.n,
                                 WGMMA_TYPES[dtype], transpose_b=not b.k_major,
                                 accumulate=not (fresh and k_step == 0))
            out += regs
    nvvm.WgmmaGroupSyncAlignedOp()
    result = op.results[0]
    lw.set(result, Distributed(tuple(out), acc.layout, dt.float32, shape_of(result.type)))


def _words(regs: list[ir.Value]) -> list[ir.Value]:
    """Pairs of 16-bit registers as the 32-bit words wgmma reads."""
    pair = ir.VectorType.get([2], regs[0].type)
    return [llvm.bitcast(i32(), vector.from_elements(pair, regs[i:i + 2]))
            for i in range(0, len(regs), 2)]


def _is_zero(value: ir.Value) -> bool:
    owner = value.owner
    if not isinstance(owner, ir.OpView | ir.Operation) or owner.operation.name != \
            "arith.constant":
        return False
    attr = owner.operation.attributes["value"]
    return isinstance(attr, ir.FloatAttr) and ir.FloatAttr(attr).value == 0.0


def _wgmma_rs(acc: list[ir.Value], a: list[ir.Value], desc_b: ir.Value, n: int,
              ptx_type: str, transpose_b: bool, accumulate: bool = True) -> list[ir.Value]:
    """`wgmma.mma_async.m64nNk16` with A from four registers and B through a descriptor
    (MLIR's nvvm op takes A by descriptor only, hence inline PTX). The accumulator registers
    are tied in and out; with `accumulate` false (scale-d) their input is ignored."""
    count = len(acc)
    d = ", ".join(f"${i}" for i in range(count))
    regs_a = ", ".join(f"${2 * count + i}" for i in range(4))
    text = (f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{ptx_type}.{ptx_type} "
            f"{{{d}}}, {{{regs_a}}}, ${2 * count + 4}, ${2 * count + 5}, 1, 1, "
            f"{int(transpose_b)};")
    constraints = ",".join(["=f"] * count + [str(i) for i in range(count)] +
                           ["r"] * 4 + ["l", "b"])
    struct = ir.Type.parse("!llvm.struct<({})>".format(", ".join(["f32"] * count)))
    scale_d = arith.constant(ir.IntegerType.get_signless(1), int(accumulate))
    result = llvm.inline_asm(struct, [*acc, *a, desc_b, scale_d], text, constraints,
                             has_side_effects=True)
    return [llvm.extractvalue(ir.F32Type.get(), result, [i]) for i in range(count)]
