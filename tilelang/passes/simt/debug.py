"""Passes (simt): `tile.print` and `tile.assert`, run by thread 0 of each block.

A print gathers its tiles into the shared buffer (every owner stores its elements, between
barriers), then thread 0 reads them back and calls CUDA's `vprintf` (simt/vprintf.py) with one
conversion per element, so each block prints its line in one record (up to 32 values per call).
Arguments follow C's default promotions: floats as double, integers narrower than 32 bits as
int, 64-bit integers with the `ll` length modifier. A failed assert prints its message with
vprintf (stdout, like the prints) and then calls `__assertfail` through `cf.assert` (lowered by
convert-gpu-to-nvvm), which stops the kernel with cudaErrorAssert.
"""

from __future__ import annotations

import math

import mlir.ir as ir
from mlir.dialects import arith, cf, gpu, llvm

from tilelang.dialect import dtype_of, op_table, ops, printing
from tilelang.dialect.locations import to_loc
from tilelang.dialect.types import shape_of
from tilelang.language.dtypes import DType
from tilelang.passes.simt.addressing import gep
from tilelang.passes.simt.context import Lowering, const, lowers, when
from tilelang.passes.simt.grid import DIMENSIONS
from tilelang.passes.simt.shapes import row_major, shared_base, store_shared
from tilelang.passes.simt.values import Distributed, i32, memory_type
from tilelang.passes.simt.vprintf import Printer, call_vprintf


@lowers(op_table.PRINT)
def lower_print(lw: Lowering, op: ir.Operation) -> None:
    values = [lw.get(v) for v in op.operands]
    dtypes = [dtype_of(v.type) for v in op.operands]
    tiles = {i: v for i, v in enumerate(values) if isinstance(v, Distributed)}
    starts = _gather(lw, tiles) if tiles else {}

    def emit() -> None:
        base = shared_base() if tiles else None
        printer = Printer(lw)
        for piece in printing.split(ops.str_attr(op, "format")):
            if isinstance(piece, str):
                printer.text(piece)
                continue
            i, conversion = piece
            spec = conversion.text(printing.length_modifier(conversion, dtypes[i]))
            if i not in tiles:
                printer.argument(spec, _promote(values[i], dtypes[i]))
                continue
            mem = memory_type(dtypes[i])
            for item in printing.elements(shape_of(op.operands[i].type)):
                if isinstance(item, str):
                    printer.text(item)
                else:
                    element = llvm.load(mem, gep(base, const(ir.IntegerType.get_signless(64),
                                                              starts[i] + item), mem))
                    printer.argument(spec, _promote(element, dtypes[i]))
        printer.flush()

    when(_thread_zero(lw), emit)
    if tiles:
        gpu.barrier()  # thread 0 reads the buffer until here


@lowers(op_table.ASSERT)
def lower_assert(lw: Lowering, op: ir.Operation) -> None:
    cond = lw.get(op.operands[0])
    message = ops.str_attr(op, "message")
    failed = arith.andi(arith.xori(cond, const(cond.type, 1)), _thread_zero(lw))

    def emit() -> None:
        loc = to_loc(op.location)
        where = _escape(f"{loc.file}:{loc.line}: ") if loc is not None else ""
        said = _escape(f": {message}") if message else ""
        block = [arith.index_cast(i32(), gpu.block_id(d)) for d in DIMENSIONS]
        call_vprintf(lw, f"{where}block (%d, %d, %d): assertion failed{said}\n", block)
        cf.assert_(const(cond.type, 0), message or "assertion failed")

    when(failed, emit)


def _gather(lw: Lowering, tiles: dict[int, Distributed]) -> dict[int, int]:
    """Store the tiles one after another in the shared buffer; their starts, in elements of
    each tile's memory type."""
    starts, offset = {}, 0
    for i, tile in tiles.items():
        size = max(1, tile.dtype.bitwidth // 8)  # bools are bytes
        offset = -(-offset // 8) * 8  # 8-byte aligned starts fit every element type
        starts[i] = offset // size
        offset += math.prod(tile.shape) * size
    lw.need_shared(offset)
    base = shared_base()
    gpu.barrier()  # an earlier user of the buffer may still be reading it
    for i, tile in tiles.items():
        store_shared(lw, tile, gep(base, const(i32(), starts[i]), memory_type(tile.dtype)),
                     row_major(tile.shape))
    gpu.barrier()
    return starts


def _thread_zero(lw: Lowering) -> ir.Value:
    lane, warp = lw.thread_index("lane"), lw.thread_index("warp")
    both = arith.ori(lane, warp)
    return arith.cmpi(arith.CmpIPredicate.eq, both, const(i32(), 0))


def _promote(value: ir.Value, dtype: DType) -> ir.Value:
    """C's default argument promotion: float types to double, small integers (and bools,
    registers of i1 or bytes in memory) to i32."""
    if dtype.restricted:  # 8-bit floats and tfloat32 print as the float32 values they are
        from tilelang.passes.simt.restricted import as_float32

        (value,), dtype = as_float32([value], dtype)
    if dtype.is_float:
        if dtype.bitwidth < 32:  # through f32: every target converts f16/bf16 to f32
            value = arith.extf(ir.F32Type.get(), value)
        return value if dtype.bitwidth == 64 else arith.extf(ir.F64Type.get(), value)
    if dtype.bitwidth >= 32 and dtype.kind != "b":
        return value
    if dtype.kind == "i":
        return arith.extsi(i32(), value)
    return arith.extui(i32(), value)


def _escape(text: str) -> str:
    return text.replace("%", "%%")
