"""Passes (simt): splat, arange, broadcast, reshape and layout conversions.

With the layouts tile-assign-layouts chose, broadcasts and linear reshapes are free: register r
of the result is register r of the operand. Conversions follow `layout.plan_conversion`: a
register permutation, warp shuffles (simt/warp.py), or shared memory, either rows padded
against bank conflicts (here) or a swizzled buffer with vector accesses (simt/staging.py),
whichever the bank-conflict model of `layout.staging` prices lower.
"""

from __future__ import annotations

import mlir.ir as ir
from mlir.dialects import arith, gpu, llvm

from tilelang.dialect import dtype_of, op_table
from tilelang.dialect.types import shape_of
from tilelang.layout import (
    ConversionKind,
    LinearLayout,
    owned_registers,
    padded_shape,
    plan_conversion,
    register_representatives,
)
from tilelang.passes.layout_rules import is_linear_reshape
from tilelang.passes.simt.addressing import SHARED_SYMBOL, gep, layout_of
from tilelang.passes.simt.context import (
    Lowering,
    const,
    disjoint_bits,
    lowers,
    register_coords,
    when,
)
from tilelang.passes.simt.values import Distributed, i64, memory_type, scalar_type


@lowers(op_table.SPLAT)
def lower_splat(lw: Lowering, op: ir.Operation) -> None:
    result = op.results[0]
    layout = layout_of(result.type)
    scalar = lw.get(op.operands[0])
    regs = (scalar,) * layout.num_registers
    lw.set(result, Distributed(regs, layout, dtype_of(result.type), shape_of(result.type)))


@lowers(op_table.ARANGE)
def lower_arange(lw: Lowering, op: ir.Operation) -> None:
    result = op.results[0]
    layout, dtype = layout_of(result.type), dtype_of(result.type)
    regs = []
    for r in range(layout.num_registers):
        index = coordinate(lw, layout, r, 0)
        if dtype.is_float:
            regs.append(arith.sitofp(scalar_type(dtype), index))
        else:
            regs.append(arith.trunci(scalar_type(dtype), index) if dtype.bitwidth < 64 else index)
    lw.set(result, Distributed(tuple(regs), layout, dtype, shape_of(result.type)))


def coordinate(lw: Lowering, layout: LinearLayout, register: int, dim: int) -> ir.Value:
    """Coordinate along `dim` of register `register` in this thread, as i64."""
    reg = const(i64(), register_coords(layout, register)[dim])
    thread = lw.thread_coord(layout, dim)
    return arith.addi(reg, thread) if disjoint_bits(layout, dim) else arith.xori(reg, thread)


@lowers(op_table.BROADCAST)
def lower_broadcast(lw: Lowering, op: ir.Operation) -> None:
    source, result = lw.tile(op.operands[0]), op.results[0]
    layout = layout_of(result.type)
    assert source.layout == layout.broadcast_operand(source.layout.shape), "layouts disagree"
    lw.set(result, Distributed(source.regs, layout, source.dtype, shape_of(result.type)))


@lowers(op_table.RESHAPE)
def lower_reshape(lw: Lowering, op: ir.Operation) -> None:
    result = op.results[0]
    source = lw.get(op.operands[0])
    shape = shape_of(result.type)
    if not isinstance(source, Distributed):  # a scalar becoming a 1-element tile
        layout = layout_of(result.type)
        lw.set(result, Distributed((source,) * layout.num_registers, layout,
                                   dtype_of(result.type), shape))
        return
    if not shape:  # a 1-element tile becoming a scalar: every thread holds that element
        lw.set(result, source.regs[0])
        return
    layout = layout_of(result.type)
    if is_linear_reshape(source.shape, shape):
        lw.set(result, Distributed(source.regs, layout, source.dtype, shape))
    else:
        regs = through_shared(lw, source, layout, shape, row_pad=0)
        lw.set(result, Distributed(tuple(regs), layout, source.dtype, shape))


@lowers(op_table.CONVERT_LAYOUT)
def lower_convert_layout(lw: Lowering, op: ir.Operation) -> None:
    from tilelang.passes.simt.warp import convert_by_shuffles

    source, result = lw.tile(op.operands[0]), op.results[0]
    layout = layout_of(result.type)
    plan = plan_conversion(source.layout, layout)
    if plan.kind is ConversionKind.IDENTICAL:
        regs = source.regs
    elif plan.kind is ConversionKind.REGISTER_PERMUTATION and plan.register_map is not None:
        regs = tuple(source.regs[m] for m in plan.register_map)
    elif plan.kind is ConversionKind.WARP_SHUFFLE and plan.shuffle is not None:
        regs = tuple(convert_by_shuffles(lw, source.regs, plan.shuffle, layout))
    else:
        from tilelang.passes.simt.staging import staging_plan, through_staging

        staged = staging_plan(source, layout) if source.shape else None
        if staged is not None and not staged.staging.padded:
            regs = tuple(through_staging(lw, source, layout, staged, shared_base()))
        else:
            pad = max(1, 4 // source.dtype.itemsize) if len(source.shape) > 1 else 0
            regs = tuple(through_shared(lw, source, layout, source.shape, row_pad=pad))
    lw.set(result, Distributed(regs, layout, source.dtype, source.shape))


# ----- shared memory ---------------------------------------------------------------------------


def through_shared(lw: Lowering, source: Distributed, layout: LinearLayout,
                   shape: tuple[int, ...], row_pad: int) -> list[ir.Value]:
    """Write `source` to shared memory in row-major order (rows padded by `row_pad` elements
    against bank conflicts), then read it back in `layout` for a tile of `shape`."""
    mem = memory_type(source.dtype)
    itemsize = source.dtype.itemsize
    src_strides = _row_major(source.shape, row_pad)
    dst_strides = _row_major(shape, row_pad) if shape == source.shape else _row_major(shape, 0)
    size = max(_extent(source.shape, src_strides), _extent(shape, dst_strides))
    lw.need_shared(size * itemsize)
    base = shared_base()
    gpu.barrier()  # an earlier conversion may still be reading the buffer
    store_shared(lw, source, base, src_strides)
    gpu.barrier()
    regs: list[ir.Value] = []
    for r, first in enumerate(register_representatives(layout)):
        if first != r:  # the element of an earlier register: read once
            regs.append(regs[first])
            continue
        offset, _ = _offset(lw, layout, shape, dst_strides, r)
        value = llvm.load(mem, gep(base, _clamp(offset, size), mem))
        if source.dtype.kind == "b":
            value = arith.cmpi(arith.CmpIPredicate.ne, value, const(mem, 0))
        regs.append(value)
    return regs


def shared_base() -> ir.Value:
    """The kernel's shared-memory buffer, as a pointer."""
    return llvm.AddressOfOp(ir.Type.parse("!llvm.ptr<3>"), SHARED_SYMBOL).result


def store_shared(lw: Lowering, source: Distributed, base: ir.Value,
                 strides: tuple[int, ...]) -> None:
    """Store every element of `source` at `base` + its offset under `strides` (in elements of
    its memory type; bools as bytes), once per owner register; no barriers."""
    mem = memory_type(source.dtype)
    for r in owned_registers(source.layout):
        offset, valid = _offset(lw, source.layout, source.shape, strides, r)
        value = source.regs[r]
        if source.dtype.kind == "b":
            value = arith.extui(mem, value)
        when(valid, lambda v=value, o=offset: llvm.store(v, gep(base, o, mem)))


def row_major(shape: tuple[int, ...]) -> tuple[int, ...]:
    return _row_major(shape, 0)


def _row_major(shape: tuple[int, ...], pad: int) -> tuple[int, ...]:
    strides: list[int] = []
    step = 1
    for i, d in enumerate(reversed(shape)):
        strides.insert(0, step)
        step *= d + (pad if i == 0 else 0)
    return tuple(strides)


def _extent(shape: tuple[int, ...], strides: tuple[int, ...]) -> int:
    return 1 + sum((d - 1) * s for d, s in zip(shape, strides, strict=True))


def _offset(lw: Lowering, layout: LinearLayout, shape: tuple[int, ...],
            strides: tuple[int, ...], register: int) -> tuple[ir.Value, ir.Value | None]:
    """Element offset of a register in the buffer, and whether it is a real (not padding) one."""
    offset = const(i64(), 0)
    valid = None
    padded = padded_shape(shape) != tuple(shape)
    for d, stride in enumerate(strides):
        c = coordinate(lw, layout, register, d)
        offset = arith.addi(offset, arith.muli(c, const(i64(), stride)))
        if padded and shape[d] != layout.shape[d]:
            inside = arith.cmpi(arith.CmpIPredicate.slt, c, const(i64(), shape[d]))
            valid = inside if valid is None else arith.andi(valid, inside)
    return offset, valid


def _clamp(offset: ir.Value, size: int) -> ir.Value:
    """Padding elements read some in-bounds element (their value does not matter)."""
    return arith.minsi(offset, const(i64(), size - 1))
