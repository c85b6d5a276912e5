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

A product's result is waited for (`wgmma.wait_group 0`) just before the first op that reads
it, so a product whose result only flows into the next iteration (attention's `acc`) runs on
while the next iteration's first product is issued. That wait also retires everything issued
before, so when iteration j + 1 starts every warpgroup has finished the products of j - 1:
its barrier lets the ring refill stage j - 1, hence D = stages - 2.
"""

from __future__ import annotations

import mlir.ir as ir
from mlir.dialects import arith, gpu, llvm, nvvm, scf, vector

from tilelang.dialect import dtype_of
from tilelang.dialect.types import shape_of
from tilelang.language import dtypes as dt
from tilelang.layout import wgmma
from tilelang.passes.ir_utils import walk_ops
from tilelang.passes.simt.carried import bind, flat_operands
from tilelang.passes.simt.context import RULES, Lowering, const
from tilelang.passes.simt.stage_copies import Copies, CopyPart
from tilelang.passes.simt.staged_matmul import wrap_slot
from tilelang.passes.simt.values import Distributed, i32, i64
from tilelang.passes.simt.wgmma import WGMMA_TYPES, _descriptor
from tilelang.passes.staged_loops import StagedLoop, StagedMma, a_layout


def lower_staged_body(lw: Lowering, plan: StagedLoop) -> None:
    loop = plan.loop
    lb, ub, step, *inits = list(loop.operands)
    lb, ub, step = (lw.get(v) for v in (lb, ub, step))
    # the ring goes past the shared memory the body's own conversions use (known once the
    # body is lowered: the placeholder is set then)
    offset = arith.constant(i64(), 0)
    outer_shared, lw.shared_bytes = lw.shared_bytes, 0
    parts = [CopyPart(o.load, o.operand, o.offset) for o in plan.operands]
    copies = Copies(lw, loop, parts, plan.index_ops, plan.stage_bytes, offset)
    ahead = plan.ahead
    gpu.barrier()  # an earlier conversion may still read the shared buffer
    for d in range(ahead):
        iv = arith.addi(lb, arith.muli(step, const(lb.type, d)))
        copies.issue(iv, ub, const(i32(), d))
    body = loop.regions[0].blocks[0]
    for_op = scf.ForOp(lb, ub, step, [*flat_operands(lw, inits), const(i32(), 0)])
    with ir.InsertionPoint(for_op.body):
        iv = for_op.induction_variable
        *carried, slot = list(for_op.inner_iter_args)
        nvvm.CpAsyncWaitGroupOp(ahead - 1)
        nvvm.FenceProxyOp(ir.Attribute.parse("#nvvm.proxy_kind<async.shared>"),
                          space=ir.Attribute.parse("#nvvm.shared_space<cta>"))
        gpu.barrier()
        ahead_iv = arith.addi(iv, arith.muli(step, const(iv.type, ahead)))
        copies.issue(ahead_iv, ub, wrap_slot(arith.addi(slot, const(i32(), ahead)), plan.stages))
        lw.set(body.arguments[0], iv)
        bind(lw, list(body.arguments)[1:], carried)
        terminator = _lower_body(lw, plan, body, copies.stage_address(slot))
        scf.YieldOp([*flat_operands(lw, list(terminator.operands)),
                     wrap_slot(arith.addi(slot, const(i32(), 1)), plan.stages)])
    nvvm.WgmmaWaitGroupSyncOp(0)
    nvvm.CpAsyncWaitGroupOp(0)
    gpu.barrier()
    scratch = (lw.shared_bytes + 1023) // 1024 * 1024
    offset.owner.attributes["value"] = ir.IntegerAttr.get(i64(), scratch)
    lw.shared_bytes = 0
    lw.need_shared(max(outer_shared, scratch + plan.stages * plan.stage_bytes + 1024))
    bind(lw, list(loop.results), list(for_op.results)[:-1])


def _lower_body(lw: Lowering, plan: StagedLoop, body: ir.Block,
                stage: ir.Value) -> ir.Operation:
    """The body's ops, with a wait before the first use of a product still running; the
    carried values may be products of the previous iteration."""
    skipped = plan.skipped
    terminator = list(body.operations)[-1].operation
    results = [m.mma.results[0] for m in plan.mmas]
    pending = [arg for arg, value in zip(list(body.arguments)[1:], terminator.operands,
                                         strict=True) if value in results]
    for op in list(body.operations)[:-1]:
        op = op.operation
        if op in skipped:
            continue
        staged = plan.mma_of(op)
        reads = _operands(op) if staged is None else [op.operands[0]]
        if any(v in pending for v in reads):
            nvvm.WgmmaWaitGroupSyncOp(0)
            pending.clear()
        with op.location:
            if staged is None:
                RULES[op.name](lw, op)
            else:
                _lower_mma(lw, staged, stage)
                pending.append(op.results[0])
    return terminator


def _operands(op: ir.Operation) -> list[ir.Value]:
    """The values `op` and the ops nested in it read."""
    values = list(op.operands)
    for inner in walk_ops(op):
        values += list(inner.operands)
    return values


def _lower_mma(lw: Lowering, staged: StagedMma, stage: ir.Value) -> None:
    op = staged.mma
    a, acc = lw.tile(op.operands[0]), lw.tile(op.operands[2])
    groups = lw.num_warps // wgmma.WARPGROUP
    assert a.layout == a_layout(staged.m, staged.k, lw.num_warps), "wgmma A in registers"
    assert acc.layout == wgmma.accumulator_layout(staged.m, staged.n, lw.num_warps)
    words = _words(list(a.regs))
    blocks = staged.m // groups // wgmma.INSTR_M  # 64-row blocks per warpgroup
    per_block = staged.n // 2  # accumulator registers per thread per block
    words_per_block = staged.k // 4  # A: k / 8 column blocks x 4 values, two per word
    b = staged.b.operand
    b_base = arith.addi(stage, const(i64(), staged.b.offset))
    ptx_type = WGMMA_TYPES[dtype_of(op.operands[0].type).name]
    nvvm.WgmmaFenceAlignedOp()
    out: list[ir.Value] = []
    for block in range(blocks):
        regs = list(acc.regs[block * per_block:(block + 1) * per_block])
        for k_step in range(staged.k // 16):
            first = block * words_per_block + 4 * k_step
            desc = _descriptor(b_base, b, b.step_offset(k_step))
            regs = _wgmma_rs(regs, words[first:first + 4], desc, staged.n, ptx_type,
                             transpose_b=not b.k_major)
        out += regs
    nvvm.WgmmaGroupSyncAlignedOp()
    result = op.results[0]
    lw.set(result, Distributed(tuple(out), acc.layout, dt.float32, shape_of(result.type)))


def _words(regs: list[ir.Value]) -> list[ir.Value]:
    """Pairs of 16-bit registers as the 32-bit words wgmma reads."""
    pair = ir.VectorType.get([2], regs[0].type)
    return [llvm.bitcast(i32(), vector.from_elements(pair, regs[i:i + 2]))
            for i in range(0, len(regs), 2)]


def _wgmma_rs(acc: list[ir.Value], a: list[ir.Value], desc_b: ir.Value, n: int,
              ptx_type: str, transpose_b: bool) -> list[ir.Value]:
    """`wgmma.mma_async.m64nNk16` with A from four registers and B through a descriptor
    (MLIR's nvvm op takes A by descriptor only, hence inline PTX). The accumulator registers
    are tied in and out."""
    count = len(acc)
    d = ", ".join(f"${i}" for i in range(count))
    regs_a = ", ".join(f"${2 * count + i}" for i in range(4))
    text = (f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{ptx_type}.{ptx_type} "
            f"{{{d}}}, {{{regs_a}}}, ${2 * count + 4}, ${2 * count + 5}, 1, 1, "
            f"{int(transpose_b)};")
    constraints = ",".join(["=f"] * count + [str(i) for i in range(count)] +
                           ["r"] * 4 + ["l", "b"])
    struct = ir.Type.parse("!llvm.struct<({})>".format(", ".join(["f32"] * count)))
    scale_d = arith.constant(ir.IntegerType.get_signless(1), 1)
    result = llvm.inline_asm(struct, [*acc, *a, desc_b, scale_d], text, constraints,
                             has_side_effects=True)
    return [llvm.extractvalue(ir.F32Type.get(), result, [i]) for i in range(count)]
