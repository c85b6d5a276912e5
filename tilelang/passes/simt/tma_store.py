"""Passes (simt): a tile.store marked by passes/tma_stores.py, written with TMA (sm_90).

    for each round of boxes (layout/boxes.py: all at once, or a few at a time through two slots)
        from the third round: wait until the store two rounds back read its slot
        block barrier                   # earlier users of the slot are done with it
        every thread: its elements of the round's boxes, up to 16 bytes per st.shared
        fence.proxy.async.shared::cta   # the generic proxy's writes, visible to TMA's
        block barrier
        thread 0: one cp.async.bulk.tensor store per box; every thread: commit
    wait until every box is read

Only thread 0 has stores to commit and wait for (the others' groups are empty), and no branch
goes around its part: the code stays one basic block. The last wait lets thread 0 reach the
next barrier only once the buffer is free again, so a later user of the buffer (the next tile's
epilogue in a persistent kernel) and the block's exit are safe. Outside the array the hardware
writes nothing: no bounds arithmetic in the kernel.
"""

from __future__ import annotations

import mlir.ir as ir
from mlir.dialects import arith, gpu, llvm, nvvm, vector

from tilelang.language.dtypes import DType
from tilelang.layout import owned_registers
from tilelang.layout.boxes import CHUNK_BYTES, BoxBuffer
from tilelang.layout.staging import contiguous_registers
from tilelang.passes.simt import tma
from tilelang.passes.simt.addressing import gep, to_memory
from tilelang.passes.simt.context import Lowering, const, when
from tilelang.passes.simt.shapes import shared_base
from tilelang.passes.simt.staging import thread_term
from tilelang.passes.simt.values import ArrayArgs, Distributed, i32, i64, memory_type
from tilelang.passes.tma_stores import BOX_ALIGN


def lower_tma_store(lw: Lowering, array: ArrayArgs, indices: list[ir.Value],
                    tile: Distributed) -> None:
    rows, cols = tile.shape[-2:]
    boxes = BoxBuffer(rows, cols, array.dtype.itemsize)
    rounds = boxes.rounds(tile.layout)
    slots, slot_bytes = min(2, len(rounds)), max(map(len, rounds)) * boxes.box_bytes
    lw.need_shared(boxes.buffer_bytes(rounds))
    desc = tma.tensor_map(lw, array, boxes.box_cols, boxes.box_rows)
    smem = llvm.ptrtoint(i64(), shared_base())
    base = arith.andi(arith.addi(smem, const(i64(), BOX_ALIGN - 1)), const(i64(), -BOX_ALIGN))
    first = arith.andi(
        arith.cmpi(arith.CmpIPredicate.eq, lw.thread_index("warp"), const(i32(), 0)),
        arith.cmpi(arith.CmpIPredicate.eq, lw.thread_index("lane"), const(i32(), 0)))
    thread = thread_term(lw, boxes.offset_bases(tile.layout))
    owner = lw.owner_predicate(tile.layout)
    for n, round_boxes in enumerate(rounds):
        slot = arith.addi(base, const(i64(), (n % slots) * slot_bytes))
        if n >= slots:  # the store that read this slot two rounds ago is done reading it
            nvvm.CpAsyncBulkWaitGroupOp(slots - 1, read=True)
        gpu.barrier()  # earlier users of the slot are done with it
        when(owner, lambda b=round_boxes, at=slot: write_boxes(boxes, b, at, thread, tile,
                                                               array.dtype))
        nvvm.FenceProxyOp(ir.Attribute.parse("#nvvm.proxy_kind<async.shared>"),
                          space=ir.Attribute.parse("#nvvm.shared_space<cta>"))
        gpu.barrier()
        _store_boxes(boxes, round_boxes, slot, desc, indices, tile.shape, first)
    nvvm.CpAsyncBulkWaitGroupOp(0, read=True)


def write_boxes(boxes: BoxBuffer, round_boxes: list[int], slot: ir.Value, thread: ir.Value,
                tile: Distributed, dtype: DType) -> None:
    """The owned registers of this round's boxes into the slot, `width` consecutive ones per
    access (a register's box is the same in every thread when there are several rounds).
    `thread`: thread_term of the boxes' offset_bases; the caller keeps out threads that do not
    own their elements (a wgmma operand written once: simt/staged_loop.py)."""
    mem = memory_type(dtype)
    start = llvm.inttoptr(ir.Type.parse("!llvm.ptr<3>"), slot)
    box_elems = boxes.box_bytes // boxes.itemsize
    width = contiguous_registers(tile.layout, CHUNK_BYTES // boxes.itemsize)
    for r in owned_registers(tile.layout):
        coord = tile.layout.apply(r, 0, 0)
        box = boxes.box_of(coord)
        if r % width or box not in round_boxes:
            continue
        # the register's box moves to its place in the slot (in one round, its own place; in
        # several, no thread bit touches box bits)
        register_term = boxes.offset(coord) + (round_boxes.index(box) - box) * box_elems
        offset = arith.xori(thread, const(i32(), register_term)) if register_term else thread
        address = gep(start, arith.extui(i64(), offset), mem)
        values = [to_memory(tile.regs[r + j], dtype) for j in range(width)]
        if width == 1:
            llvm.store(values[0], address)
        else:
            packed = vector.from_elements(ir.VectorType.get([width], mem), values)
            llvm.store(packed, address, alignment=width * boxes.itemsize)


def _store_boxes(boxes: BoxBuffer, round_boxes: list[int], slot: ir.Value, desc: ir.Value,
                 indices: list[ir.Value], shape: tuple[int, ...], first: ir.Value) -> None:
    """Thread 0's boxes (predicated: a branch around them, between the reads of a product's
    accumulator registers, makes ptxas serialize the product's wgmma), committed as a group
    (an empty one in the other threads)."""
    starts = [arith.muli(_i32(index), const(i32(), size))
              for index, size in zip(indices, shape, strict=True)]
    outer = list(reversed(starts[:-2]))
    corners = boxes.boxes()
    for n, box in enumerate(round_boxes):
        row, col = corners[box]
        source = tma.shared_pointer(arith.addi(slot, const(i64(), n * boxes.box_bytes)))
        at = [arith.addi(starts[-1], const(i32(), col)),
              arith.addi(starts[-2], const(i32(), row)), *outer]
        nvvm.CpAsyncBulkTensorSharedCTAToGlobalOp(desc, source, at, predicate=first)
    nvvm.CpAsyncBulkCommitGroupOp()


def _i32(value: ir.Value) -> ir.Value:
    if isinstance(value.type, ir.IndexType):
        return arith.index_cast(i32(), value)
    width = ir.IntegerType(value.type).width
    return value if width == 32 else arith.trunci(i32(), value) if width > 32 else \
        arith.extsi(i32(), value)
