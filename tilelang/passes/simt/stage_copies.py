"""Passes (simt): the copies that fill a ring of shared-memory stages from global memory, 16
bytes per `cp.async` (simt/staged_matmul.py and simt/staged_loop.py use them).

Each operand tile is split into 16-byte chunks; chunk q = tid + threads * i goes to this thread.
When a row holds a divisor of the block's threads in chunks, a thread's chunks lie in one chunk
column, `step` rows apart: when `step` is a multiple of 8 (the swizzle's period) chunk i sits a
constant number of bytes after chunk 0 in the stage and `step` rows after it in the array, so a
thread keeps one element offset and one stage offset per operand, not one per chunk (registers
matter: the products' accumulators fill most of them). Each stage's copies go one of two ways,
chosen uniformly: every tile inside its array, 16 unchecked bytes per chunk; else each chunk
checked against the array's bounds, reading fewer bytes at a row's end and none outside (the
rest zero-filled by cp.async).

An operand gathered by rows (passes/staged_loops.GatheredRows) copies chunk i of this thread
from the array row its index names: the gather's row indices are held in the layout of the
copies (layout/wgmma.copy_layout), so chunk i's index is in one of the thread's registers.
Each chunk is checked (the row index against the rows, the column against the row's end), as
the gather checks each element: a padded token's row reads nothing and is zero-filled.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import mlir.ir as ir
from mlir.dialects import arith, llvm, nvvm, scf

from tilelang.errors import TileCompilerExecutionError
from tilelang.layout import wgmma
from tilelang.passes.simt.context import RULES, Lowering, const
from tilelang.passes.simt.shapes import shared_base
from tilelang.passes.simt.values import ArrayArgs, i32, i64

if TYPE_CHECKING:
    from tilelang.passes.matmul_loops import MatmulLoop

CHUNK_BYTES = 16  # one cp.async


@dataclass(frozen=True)
class CopyPart:
    """One operand tile of a stage: the load it replaces, its layout, its byte offset."""

    load: ir.Operation
    operand: wgmma.Operand
    offset: int
    swapped: bool = False  # the load names its tile (k, n) but reads an (N, K) array
    # a gathered operand (`load` is the tile.gather): this thread's chunks' array rows (index
    # registers, chunk i's at i: gathered_rows) and the run's first column, a scalar of the
    # body read at each issue (None: 0)
    rows: tuple[ir.Value, ...] | None = None
    start: ir.Value | None = None


def matmul_parts(plan: MatmulLoop) -> list[CopyPart]:
    """A plain K loop's two operand tiles as a stage holds them (an A or B whose load reads
    the array's axes swapped: `order=(1, 0)`)."""
    return [CopyPart(plan.load_a, plan.a, 0, plan.a_index_swapped),
            CopyPart(plan.load_b, plan.b, plan.a.bytes, plan.b_index_swapped)]


@dataclass(frozen=True)
class _Chunks:
    """This thread's chunks of one operand: chunk i is row rows[i] (or row0 + i * step),
    element column `col`, `offsets[i]` (or offset0 + i * delta) bytes into the operand."""

    count: int
    col: ir.Value
    rows: list[ir.Value] | None = None  # irregular: per chunk
    offsets: list[ir.Value] | None = None
    cols: list[ir.Value] | None = None
    row0: ir.Value | None = None  # regular
    offset0: ir.Value | None = None
    step: int = 0
    delta: int = 0

    def row(self, i: int) -> ir.Value:
        if self.rows is not None:
            return self.rows[i]
        return arith.addi(self.row0, const(i32(), i * self.step)) if i else self.row0

    def column(self, i: int) -> ir.Value:
        return self.cols[i] if self.cols is not None else self.col


def aligned_base(base_offset: ir.Value | None = None) -> ir.Value:
    """The shared address stages start at: the first 1024-byte boundary (a swizzle atom) of
    the buffer, past `base_offset` bytes of its other users."""
    smem = llvm.ptrtoint(i64(), shared_base())
    if base_offset is not None:
        smem = arith.addi(smem, base_offset)
    return arith.andi(arith.addi(smem, const(i64(), 1023)), const(i64(), ~1023))


class Copies:
    """Each thread's share of one stage's copies. The loads read the last two dimensions of
    their arrays (their other tile dimensions are 1)."""

    def __init__(self, lw: Lowering, loop: ir.Operation, parts: list[CopyPart],
                 index_ops: tuple[ir.Operation, ...], stage_bytes: int,
                 base_offset: ir.Value | None = None):
        self.lw, self.loop, self.parts = lw, loop, parts
        self.index_ops, self.stage_bytes = index_ops, stage_bytes
        self.itemsize = parts[0].operand.itemsize
        self.threads = 32 * lw.num_warps
        warp, lane = lw.thread_index("warp"), lw.thread_index("lane")
        self.tid = arith.addi(arith.muli(warp, const(i32(), 32)), lane)
        self.base = aligned_base(base_offset)
        self.chunk_elems = CHUNK_BYTES // self.itemsize
        self.chunks = [self._chunks(part.operand) for part in parts]

    def _chunks(self, op: wgmma.Operand) -> _Chunks:
        per_row = op.cols // self.chunk_elems
        count = op.rows * per_row // self.threads  # the same for every thread: wgmma.fits
        step = self.threads // per_row if self.threads % per_row == 0 else 0
        if step and step % 8 == 0:
            row0 = arith.divui(self.tid, const(i32(), per_row))
            chunk = arith.remui(self.tid, const(i32(), per_row))
            delta = op.chunk_offset(step, 0) - op.chunk_offset(0, 0)
            assert all(op.chunk_offset(r + step, c) - op.chunk_offset(r, c) == delta
                       for r in range(8) for c in range(per_row)), "a regular progression"
            return _Chunks(count, _column(chunk, self.chunk_elems), row0=row0,
                           offset0=chunk_offset(op, row0, chunk), step=step, delta=delta)
        rows, cols, offsets = [], [], []
        for i in range(count):
            q = arith.addi(self.tid, const(i32(), self.threads * i))
            row = arith.divui(q, const(i32(), per_row))
            chunk = arith.remui(q, const(i32(), per_row))
            rows.append(row)
            cols.append(_column(chunk, self.chunk_elems))
            offsets.append(chunk_offset(op, row, chunk))
        return _Chunks(count, cols[0], rows=rows, offsets=offsets, cols=cols)

    def stage_address(self, slot: ir.Value) -> ir.Value:
        offset = arith.muli(arith.extui(i64(), slot), const(i64(), self.stage_bytes))
        return arith.addi(self.base, offset)

    def issue(self, iv: ir.Value, ub: ir.Value, slot: ir.Value) -> None:
        """The copies of iteration `iv` into stage `slot`, as one commit group."""
        lower_indices_at(self.lw, self.loop, self.index_ops, iv)
        live = arith.cmpi(arith.CmpIPredicate.slt, iv, ub)
        stage = self.stage_address(slot)
        tiles, gathered = [], []
        for part, chunks in zip(self.parts, self.chunks, strict=True):
            if part.rows is not None:
                gathered.append((part, arith.addi(stage, const(i64(), part.offset)), chunks))
                continue
            array = self.lw.array(part.load.operands[0])
            index = [self.lw.get(v) for v in list(part.load.operands)[1:]]
            if part.swapped:
                index.reverse()  # (k, n) tile index of an (N, K) array: rows n, columns k
            dst = arith.addi(stage, const(i64(), part.offset))
            tiles.append((_TileBounds(array, index, part.operand, live), dst, chunks))
        if tiles:
            inside = live
            for bounds, _, _ in tiles:
                inside = arith.andi(inside, bounds.inside)
            branch = scf.IfOp(inside, [], has_else=True)
            with ir.InsertionPoint(branch.then_block):
                for bounds, dst, chunks in tiles:
                    self._copy_whole(bounds, dst, chunks)
                scf.YieldOp([])
            with ir.InsertionPoint(branch.else_block):
                for bounds, dst, chunks in tiles:
                    self._copy_checked(bounds, dst, chunks)
                scf.YieldOp([])
        for part, dst, chunks in gathered:
            self._copy_gathered(part, dst, chunks, live)
        nvvm.CpAsyncCommitGroupOp()

    def _copy_gathered(self, part: CopyPart, dst: ir.Value, chunks: _Chunks,
                       live: ir.Value) -> None:
        """Each chunk from the row its index names, checked as the gather checks: an index
        outside the rows (a negative one too) or a column past the row's end reads nothing."""
        assert part.rows is not None, "a gathered part"
        array = self.lw.array(part.load.operands[0])
        rows, cols = array.shape[-2], array.shape[-1]
        start = const(i64(), 0) if part.start is None else _i64(self.lw.get(part.start))
        for i in range(chunks.count):
            row = _i64(part.rows[i])
            col = arith.addi(start, arith.extui(i64(), chunks.column(i)))
            ok = arith.andi(live, arith.cmpi(arith.CmpIPredicate.ult, row, rows))
            ok = arith.andi(ok, arith.cmpi(arith.CmpIPredicate.ult, col, cols))
            count = arith.minsi(arith.subi(cols, col), const(i64(), self.chunk_elems))
            size = arith.select(ok, arith.trunci(i32(), arith.muli(
                count, const(i64(), self.itemsize))), const(i32(), 0))
            element = arith.addi(arith.muli(row, array.strides[-2]), col)
            at = arith.select(ok, element, const(i64(), 0))
            if chunks.offsets is not None:
                offset = chunks.offsets[i]
            else:
                offset = arith.addi(chunks.offset0, const(i64(), i * chunks.delta))
            self._cp_async(array, at, arith.addi(dst, offset), size)

    def _copy_whole(self, b: _TileBounds, dst: ir.Value, chunks: _Chunks) -> None:
        stride = b.array.strides[-2]
        if chunks.rows is not None:
            assert chunks.cols is not None and chunks.offsets is not None, "irregular: per chunk"
            for i in range(chunks.count):
                at = arith.addi(b.first, _element(chunks.rows[i], chunks.cols[i], stride))
                self._cp_async(b.array, at, arith.addi(dst, chunks.offsets[i]), None)
            return
        at = arith.addi(b.first, _element(chunks.row0, chunks.col, stride))
        dst = arith.addi(dst, chunks.offset0)
        step = arith.muli(stride, const(i64(), chunks.step))
        for i in range(chunks.count):  # each chunk's address from the last one's
            if i:
                at = arith.addi(at, step)
            self._cp_async(b.array, at, arith.addi(dst, const(i64(), i * chunks.delta)), None)

    def _copy_checked(self, b: _TileBounds, dst: ir.Value, chunks: _Chunks) -> None:
        """16 bytes per chunk, or fewer (zero-filled) at the row's end, or none outside the
        array or past the loop's end."""
        for i in range(chunks.count):
            row, col = chunks.row(i), chunks.column(i)
            r, c = arith.extui(i64(), row), arith.extui(i64(), col)
            ok = arith.andi(b.live, arith.cmpi(arith.CmpIPredicate.slt, r, b.rows_left))
            ok = arith.andi(ok, arith.cmpi(arith.CmpIPredicate.sge, r, b.rows_below))
            ok = arith.andi(ok, arith.cmpi(arith.CmpIPredicate.sge, c, b.cols_below))
            left = arith.subi(b.cols_left, c)  # elements from the chunk to the row's end
            count = arith.maxsi(arith.minsi(left, const(i64(), self.chunk_elems)),
                                const(i64(), 0))
            size = arith.select(ok, arith.trunci(i32(), arith.muli(
                count, const(i64(), self.itemsize))), const(i32(), 0))
            # an address inside the array always (none is read when the size is 0)
            element = _element(row, col, b.array.strides[-2])
            at = arith.select(ok, arith.addi(b.first, element), const(i64(), 0))
            if chunks.offsets is not None:
                offset = chunks.offsets[i]
            else:
                offset = arith.addi(chunks.offset0, const(i64(), i * chunks.delta))
            self._cp_async(b.array, at, arith.addi(dst, offset), size)

    def _cp_async(self, array: ArrayArgs, at: ir.Value, dst: ir.Value,
                  size: ir.Value | None) -> None:
        """16 bytes from element `at` of the array to shared address `dst` (`size` of them
        read, the rest zero-filled, when given)."""
        src = llvm.GEPOp(array.ptr.type, array.ptr, [at],
                         ir.DenseI32ArrayAttr.get([-2147483648]),
                         ir.IntegerType.get_signless(8 * self.itemsize),
                         ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 0)).result
        target = llvm.inttoptr(ir.Type.parse("!llvm.ptr<3>"), dst)
        nvvm.CpAsyncOp(target, src, CHUNK_BYTES,
                       ir.Attribute.parse("#nvvm<load_cache_modifier cg>"), cpSize=size)


def gathered_rows(lw: Lowering, source: ir.Value, operand: wgmma.Operand) -> tuple[ir.Value, ...]:
    """This thread's chunks' row indices (chunk i's first), from `source`: the gather's row
    indices as computed before the loop (passes/staged_loops.row_source), whose layout puts
    the rows of the thread's chunks in its registers (tile-assign-layouts gives the gather
    layout/wgmma.copy_layout)."""
    tile = lw.tile(source)
    want = wgmma.copy_layout(operand.rows, operand.cols, operand.itemsize, lw.num_warps)
    have = tile.layout
    for dim in ("lane", "warp"):
        if [b[0] for b in have.bases[dim]] != [b[0] for b in want.bases[dim]]:
            raise TileCompilerExecutionError(
                f"a gathered operand's row indices are not in the copies' layout: {have}")
    rows_at: dict[int, int] = {}
    for r in reversed(range(have.num_registers)):  # the first register of each row
        rows_at[have.apply(register=r)[0]] = r
    elems = CHUNK_BYTES // operand.itemsize
    count = operand.rows * operand.cols // elems // (32 * lw.num_warps)
    return tuple(tile.regs[rows_at[want.apply(register=i * elems)[0]]] for i in range(count))


def lower_indices_at(lw: Lowering, loop: ir.Operation, index_ops: tuple[ir.Operation, ...],
                     iv: ir.Value) -> None:
    """Lower the loads' index arithmetic (`index_ops`, scalar ops of `loop`'s body) for the
    iteration whose induction variable is `iv`: the loads' indices then read that iteration's.
    It rebinds the body's induction variable: lower the body's own ops after, or take what
    they computed before."""
    lw.set(loop.regions[0].blocks[0].arguments[0], iv)
    for op in index_ops:
        with op.location:
            RULES[op.name](lw, op)


class _TileBounds:
    """Where a tile of `op`'s shape at `index` starts in the array (element `first`, the
    unit tile dimensions folded in), how far the array reaches from there, and whether the
    whole tile lies inside it."""

    def __init__(self, array: ArrayArgs, index: list[ir.Value], op: wgmma.Operand,
                 live: ir.Value):
        self.array = array
        start_row = arith.muli(_i64(index[-2]), const(i64(), op.rows))
        start_col = arith.muli(_i64(index[-1]), const(i64(), op.cols))
        first = arith.addi(arith.muli(start_row, array.strides[-2]), start_col)
        for i, at in enumerate(index[:-2]):  # unit tile dimensions: the element index
            at = _i64(at)
            first = arith.addi(first, arith.muli(at, array.strides[i]))
            live = arith.andi(live, arith.cmpi(arith.CmpIPredicate.ult, at, array.shape[i]))
        self.first, self.live = first, live
        zero = const(i64(), 0)
        self.rows_below, self.rows_left = arith.subi(zero, start_row), \
            arith.subi(array.shape[-2], start_row)
        self.cols_below, self.cols_left = arith.subi(zero, start_col), \
            arith.subi(array.shape[-1], start_col)
        inside = live
        for ok in (arith.cmpi(arith.CmpIPredicate.sge, start_row, zero),
                   arith.cmpi(arith.CmpIPredicate.sge, start_col, zero),
                   arith.cmpi(arith.CmpIPredicate.sge, self.rows_left, const(i64(), op.rows)),
                   arith.cmpi(arith.CmpIPredicate.sge, self.cols_left, const(i64(), op.cols))):
            inside = arith.andi(inside, ok)
        self.inside = inside


def _column(chunk: ir.Value, chunk_elems: int) -> ir.Value:
    return arith.muli(chunk, const(i32(), chunk_elems))


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
    if op.panels_first:
        start = arith.addi(arith.muli(panel, c(op.rows * wgmma.ROW_BYTES)),
                           arith.muli(row, c(wgmma.ROW_BYTES)))
    else:
        group = arith.muli(arith.shrui(row, c(3)), c(op.stride_bytes))
        start = arith.addi(group, arith.addi(arith.muli(panel, c(wgmma.ATOM_BYTES)),
                                             arith.muli(arith.andi(row, c(7)),
                                                        c(wgmma.ROW_BYTES))))
    return arith.extui(i64(), arith.addi(start, swizzled))
