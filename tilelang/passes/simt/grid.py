"""Passes (simt): block indices, grid size, array shape/stride queries, slices and selects."""

from __future__ import annotations

import mlir.ir as ir
from mlir.dialects import arith, gpu, llvm

from tilelang.dialect import op_table, ops, parse_array_type
from tilelang.passes.simt.addressing import GEP_DYNAMIC
from tilelang.passes.simt.context import Lowering, lowers
from tilelang.passes.simt.values import ArrayArgs, i32, i64, memory_type

DIMENSIONS = (gpu.Dimension.x, gpu.Dimension.y, gpu.Dimension.z)


@lowers(op_table.BID)
def lower_bid(lw: Lowering, op: ir.Operation) -> None:
    index = gpu.block_id(DIMENSIONS[ops.int_attr(op, "axis")])
    lw.set(op.results[0], arith.index_cast(i32(), index))


@lowers(op_table.NUM_BLOCKS)
def lower_num_blocks(lw: Lowering, op: ir.Operation) -> None:
    index = gpu.grid_dim(DIMENSIONS[ops.int_attr(op, "axis")])
    lw.set(op.results[0], arith.index_cast(i32(), index))


@lowers(op_table.DIM, op_table.STRIDE)
def lower_array_query(lw: Lowering, op: ir.Operation) -> None:
    array = lw.array(op.operands[0])
    values = array.shape if op.name == "tile.dim" else array.strides
    value = values[ops.int_attr(op, "dim")]
    lw.set(op.results[0], value if op.results[0].type == i64() else arith.trunci(i32(), value))


@lowers(op_table.ARRAY_SELECT)
def lower_array_select(lw: Lowering, op: ir.Operation) -> None:
    """A chain of selects over the base pointers, extents and strides (lists are short)."""
    index, *operands = list(op.operands)
    arrays = [lw.array(a) for a in operands]
    i = _wide(lw.get(index))
    chosen = arrays[0]
    for k, other in enumerate(arrays[1:], 1):
        pick = arith.cmpi(arith.CmpIPredicate.eq, i, arith.constant(i64(), k))

        def sel(a: ir.Value, b: ir.Value, pick: ir.Value = pick) -> ir.Value:
            return arith.select(pick, a, b)

        chosen = ArrayArgs(sel(other.ptr, chosen.ptr),
                           tuple(map(sel, other.shape, chosen.shape)),
                           tuple(map(sel, other.strides, chosen.strides)),
                           chosen.dtype, chosen.unit_stride, chosen.align)
    _, unit_stride, align = parse_array_type(op.results[0].type)
    lw.set(op.results[0], ArrayArgs(chosen.ptr, chosen.shape, chosen.strides, chosen.dtype,
                                    unit_stride, align))


@lowers(op_table.SLICE)
def lower_slice(lw: Lowering, op: ir.Operation) -> None:
    """A new array: the base pointer moved by start * stride(axis), extent stop - start; the
    alignment and unit-stride facts are those of the result type."""
    array = lw.array(op.operands[0])
    axis = ops.int_attr(op, "axis")
    start, stop = (_wide(lw.get(v)) for v in list(op.operands)[1:])
    offset = arith.muli(start, array.strides[axis])
    flags = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 0)
    ptr = llvm.GEPOp(array.ptr.type, array.ptr, [offset], ir.DenseI32ArrayAttr.get([GEP_DYNAMIC]),
                     memory_type(array.dtype), flags).result
    shape = list(array.shape)
    shape[axis] = arith.subi(stop, start)
    _, unit_stride, align = parse_array_type(op.results[0].type)
    lw.set(op.results[0],
           ArrayArgs(ptr, tuple(shape), array.strides, array.dtype, unit_stride, align))


@lowers(op_table.ARRAY_PERMUTE)
def lower_array_permute(lw: Lowering, op: ir.Operation) -> None:
    """The same base pointer; extents and strides in the view's order."""
    array = lw.array(op.operands[0])
    order = ops.array_attr(op, "order")
    _, unit_stride, align = parse_array_type(op.results[0].type)
    lw.set(op.results[0], ArrayArgs(array.ptr, tuple(array.shape[k] for k in order),
                                    tuple(array.strides[k] for k in order), array.dtype,
                                    unit_stride, align))


@lowers(op_table.RAW_VIEW)
def lower_raw_view(lw: Lowering, op: ir.Operation) -> None:
    """The base pointer with one unit-stride dimension that no offset from 0 up leaves."""
    array = lw.array(op.operands[0])
    _, unit_stride, align = parse_array_type(op.results[0].type)
    extent, stride = arith.constant(i64(), RAW_EXTENT), arith.constant(i64(), 1)
    lw.set(op.results[0], ArrayArgs(array.ptr, (extent,), (stride,), array.dtype, unit_stride,
                                    align))


RAW_EXTENT = 2**62


def _wide(value: ir.Value) -> ir.Value:
    return value if value.type == i64() else arith.extsi(i64(), value)
