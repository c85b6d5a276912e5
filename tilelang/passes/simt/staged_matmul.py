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

from dataclasses import dataclass
from typing import Protocol

import mlir.ir as ir
from mlir.dialects import arith, gpu, llvm, nvvm, scf

from tilelang.dialect.types import shape_of
from tilelang.language import dtypes as dt
from tilelang.layout import LinearLayout, wgmma
from tilelang.passes.matmul_loops import MatmulLoop
from tilelang.passes.simt.context import RULES, Lowering, const
from tilelang.passes.simt.shapes import shared_base
from tilelang.passes.simt.values import ArrayArgs, Distributed, i32, i64

CHUNK_BYTES = 16  # one cp.async


class Engine(Protocol):
    """How one stage is multiplied into the accumulator (carried through the loop in the
    engine's own form)."""

    ahead: int  # iterations the copies run ahead
    layout: LinearLayout  # the accumulator's

    def carry(self, regs: tuple[ir.Value, ...]) -> list[ir.Value]: ...

    def multiply(self, stage: ir.Value, carried: list[ir.Value]) -> list[ir.Value]: ...

    def finish(self, carried: list[ir.Value]) -> list[ir.Value]: ...


def lower_staged_loop(lw: Lowering, plan: MatmulLoop, engine: Engine) -> None:
    loop = plan.loop
    lb, ub, step = (lw.get(v) for v in list(loop.operands)[:3])
    init = lw.tile(list(loop.operands)[3])
    assert init.layout == engine.layout, "the accumulator arrives in the engine's layout"
    lw.need_shared(plan.stages * plan.stage_bytes + 1024)  # + the 1024-byte alignment
    parts = [CopyPart(plan.load_a, plan.a, 0),
             CopyPart(plan.load_b, plan.b, plan.a.bytes, plan.b_index_swapped)]
    copies = Copies(lw, loop, parts, plan.index_ops, plan.stage_bytes)
    ahead = engine.ahead
    gpu.barrier()  # an earlier conversion may still read the shared buffer
    for d in range(ahead):
        iv = arith.addi(lb, arith.muli(step, const(lb.type, d)))
        copies.issue(iv, ub, const(i32(), d))
    carried = engine.carry(init.regs)
    for_op = scf.ForOp(lb, ub, step, [*carried, const(i32(), 0)])
    with ir.InsertionPoint(for_op.body):
        iv = for_op.induction_variable
        *accs, slot = list(for_op.inner_iter_args)
        nvvm.CpAsyncWaitGroupOp(ahead - 1)
        if plan.engine == "wgmma":  # the copies wrote through the generic proxy
            nvvm.FenceProxyOp(ir.Attribute.parse("#nvvm.proxy_kind<async.shared>"),
                              space=ir.Attribute.parse("#nvvm.shared_space<cta>"))
        gpu.barrier()
        ahead_iv = arith.addi(iv, arith.muli(step, const(iv.type, ahead)))
        copies.issue(ahead_iv, ub, _wrap(arith.addi(slot, const(i32(), ahead)), plan.stages))
        accs = engine.multiply(copies.stage_address(slot), accs)
        scf.YieldOp([*accs, _wrap(arith.addi(slot, const(i32(), 1)), plan.stages)])
    regs = engine.finish(list(for_op.results)[:-1])
    nvvm.CpAsyncWaitGroupOp(0)
    gpu.barrier()
    result = loop.results[0]
    lw.set(result, Distributed(tuple(regs), engine.layout, dt.float32, shape_of(result.type)))


def _wrap(slot: ir.Value, stages: int) -> ir.Value:
    past = arith.cmpi(arith.CmpIPredicate.sge, slot, const(i32(), stages))
    return arith.select(past, arith.subi(slot, const(i32(), stages)), slot)


# ----- the copies: global -> shared, 16 bytes per cp.async ---------------------------------------


@dataclass(frozen=True)
class CopyPart:
    """One operand tile of a stage: the load it replaces, its layout, its byte offset."""

    load: ir.Operation
    operand: wgmma.Operand
    offset: int
    swapped: bool = False  # the load names its tile (k, n) but reads an (N, K) array


class Copies:
    """Each thread's share of one stage's copies: chunk q = tid + threads * i of each operand;
    its tile row and chunk column, and its byte offset in the stage, are loop-invariant. The
    loads read the last two dimensions of their arrays (their other tile dimensions are 1)."""

    def __init__(self, lw: Lowering, loop: ir.Operation, parts: list[CopyPart],
                 index_ops: tuple[ir.Operation, ...], stage_bytes: int,
                 base_offset: ir.Value | None = None):
        self.lw, self.loop, self.parts = lw, loop, parts
        self.index_ops, self.stage_bytes = index_ops, stage_bytes
        self.itemsize = parts[0].operand.itemsize
        threads = 32 * lw.num_warps
        warp, lane = lw.thread_index("warp"), lw.thread_index("lane")
        self.tid = arith.addi(arith.muli(warp, const(i32(), 32)), lane)
        self.threads = threads
        smem = llvm.ptrtoint(i64(), shared_base())
        if base_offset is not None:  # past the buffer's other users
            smem = arith.addi(smem, base_offset)
        # the stages start at the first 1024-byte boundary of the buffer (swizzle atoms)
        self.base = arith.andi(arith.addi(smem, const(i64(), 1023)), const(i64(), ~1023))
        self.chunk_elems = CHUNK_BYTES // self.itemsize
        self.chunks = [self._chunks(part.operand) for part in parts]
        # each chunk's element offset from its tile's first element, when the array (so its
        # row stride) is known before the loop: computed once, not per iteration
        self.offsets = [self._element_offsets(part.load, chunks)
                        for part, chunks in zip(parts, self.chunks, strict=True)]

    def _element_offsets(self, load: ir.Operation, chunks: list) -> list[ir.Value] | None:
        array = load.operands[0]
        owner = array.owner
        if isinstance(owner, ir.OpView | ir.Operation) and owner.operation in self.index_ops:
            return None
        stride = self.lw.array(array).strides[-2]
        return [_element(row, col, stride) for row, col, _ in chunks]

    def _chunks(self, op: wgmma.Operand) -> list[tuple[ir.Value, ir.Value, ir.Value]]:
        """(row, element column, byte offset in the operand) of this thread's chunks (every
        thread has as many: wgmma.fits)."""
        per_row = op.cols // self.chunk_elems
        out = []
        for i in range(op.rows * per_row // self.threads):
            q = arith.addi(self.tid, const(i32(), self.threads * i))
            row = arith.divui(q, const(i32(), per_row))
            chunk = arith.remui(q, const(i32(), per_row))
            out.append((row, arith.muli(chunk, const(i32(), self.chunk_elems)),
                        chunk_offset(op, row, chunk)))
        return out

    def stage_address(self, slot: ir.Value) -> ir.Value:
        offset = arith.muli(arith.extui(i64(), slot), const(i64(), self.stage_bytes))
        return arith.addi(self.base, offset)

    def issue(self, iv: ir.Value, ub: ir.Value, slot: ir.Value) -> None:
        """The copies of iteration `iv` into stage `slot`, as one commit group."""
        body_iv = self.loop.regions[0].blocks[0].arguments[0]
        self.lw.set(body_iv, iv)
        for op in self.index_ops:  # the loads' indices at this iteration
            with op.location:
                RULES[op.name](self.lw, op)
        live = arith.cmpi(arith.CmpIPredicate.slt, iv, ub)
        stage = self.stage_address(slot)
        for part, chunks, elements in zip(self.parts, self.chunks, self.offsets, strict=True):
            array = self.lw.array(part.load.operands[0])
            index = [self.lw.get(v) for v in list(part.load.operands)[1:]]
            if part.swapped:
                index.reverse()  # (k, n) tile index of an (N, K) array: rows n, columns k
            dst = arith.addi(stage, const(i64(), part.offset))
            if elements is None:
                elements = [_element(row, col, array.strides[-2]) for row, col, _ in chunks]
            self._copy(array, index, part.operand, dst, chunks, elements, live)
        nvvm.CpAsyncCommitGroupOp()

    def _copy(self, array: ArrayArgs, index: list[ir.Value], op: wgmma.Operand,
              dst: ir.Value, chunks: list, elements: list[ir.Value], live: ir.Value) -> None:
        """One cp.async per chunk: 16 bytes, or fewer (zero-filled) at the row's end, or none
        (all zeros) outside the array or past the loop's end. Per chunk only comparisons with
        the tile's uniform bounds and one add are computed here."""
        start_row = arith.muli(_i64(index[-2]), const(i64(), op.rows))
        start_col = arith.muli(_i64(index[-1]), const(i64(), op.cols))
        first = arith.addi(arith.muli(start_row, array.strides[-2]), start_col)
        for i, at in enumerate(index[:-2]):  # unit tile dimensions: the element index
            at = _i64(at)
            first = arith.addi(first, arith.muli(at, array.strides[i]))
            inside = arith.cmpi(arith.CmpIPredicate.ult, at, array.shape[i])
            live = arith.andi(live, inside)
        rows_below, rows_left = arith.subi(const(i64(), 0), start_row), \
            arith.subi(array.shape[-2], start_row)
        cols_below, cols_left = arith.subi(const(i64(), 0), start_col), \
            arith.subi(array.shape[-1], start_col)
        for (row, col, offset), element in zip(chunks, elements, strict=True):
            r, c = arith.extui(i64(), row), arith.extui(i64(), col)
            ok = arith.andi(live, arith.cmpi(arith.CmpIPredicate.slt, r, rows_left))
            ok = arith.andi(ok, arith.cmpi(arith.CmpIPredicate.sge, r, rows_below))
            ok = arith.andi(ok, arith.cmpi(arith.CmpIPredicate.sge, c, cols_below))
            left = arith.subi(cols_left, c)  # elements from the chunk to the row's end
            count = arith.maxsi(arith.minsi(left, const(i64(), self.chunk_elems)),
                                const(i64(), 0))
            size = arith.select(ok, arith.trunci(i32(), arith.muli(
                count, const(i64(), self.itemsize))), const(i32(), 0))
            # an address inside the array always (none is read when the size is 0)
            at = arith.select(ok, arith.addi(first, element), const(i64(), 0))
            src = llvm.GEPOp(array.ptr.type, array.ptr, [at],
                             ir.DenseI32ArrayAttr.get([-2147483648]),
                             ir.IntegerType.get_signless(8 * self.itemsize),
                             ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 0)).result
            target = llvm.inttoptr(ir.Type.parse("!llvm.ptr<3>"), arith.addi(dst, offset))
            nvvm.CpAsyncOp(target, src, 16, ir.Attribute.parse("#nvvm<load_cache_modifier cg>"),
                           cpSize=size)


def _element(row: ir.Value, col: ir.Value, stride: ir.Value) -> ir.Value:
    """row * stride + col, in elements (i64)."""
    return arith.addi(arith.muli(arith.extui(i64(), row), stride), arith.extui(i64(), col))


def _i64(value: ir.Value) -> ir.Value:
    return value if value.type == i64() else arith.extsi(i64(), value)


def chunk_offset(op: wgmma.Operand, row: ir.Value, chunk: ir.Value) -> ir.Value:
    """wgmma.Operand.chunk_offset in IR (i64 bytes)."""
    def c(v: int) -> ir.Value:
        return const(i32(), v)

    panel = arith.shrui(chunk, c(3))
    swizzled = arith.shli(arith.xori(arith.andi(chunk, c(7)), arith.andi(row, c(7))), c(4))
    if op.k_major:
        start = arith.addi(arith.muli(panel, c(op.rows * wgmma.ROW_BYTES)),
                           arith.muli(row, c(wgmma.ROW_BYTES)))
    else:
        group = arith.muli(arith.shrui(row, c(3)), c(op.stride_bytes))
        start = arith.addi(group, arith.addi(arith.muli(panel, c(wgmma.ATOM_BYTES)),
                                             arith.muli(arith.andi(row, c(7)),
                                                        c(wgmma.ROW_BYTES))))
    return arith.extui(i64(), arith.addi(start, swizzled))
