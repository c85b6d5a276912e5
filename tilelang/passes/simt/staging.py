"""Passes (simt): a layout conversion through a swizzled shared-memory buffer.

`layout.staging.choose_staging` picks the buffer (padded rows, or row-major with XOR-swizzled
vectors) and how many consecutive registers each side moves per access. In a swizzled buffer a
register's offset is the XOR of a per-thread part (computed once from the lane and warp
indices) and a per-register constant, so the stores and loads have constant displacements.
"""

from __future__ import annotations

import mlir.ir as ir
from mlir.dialects import arith, gpu, llvm, vector

from tilelang.layout import LinearLayout, owned_registers
from tilelang.layout.staging import (
    MatrixLoad,
    Staging,
    StagingPlan,
    choose_staging,
    contiguous_registers,
    matrix_load,
    matrix_staging,
)
from tilelang.passes.simt.addressing import gep
from tilelang.passes.simt.context import Lowering, const
from tilelang.passes.simt.values import Distributed, i32, i64, memory_type


def staging_plan(source: Distributed, layout: LinearLayout) -> StagingPlan:
    itemsize = 1 if source.dtype.kind == "b" else source.dtype.itemsize
    if matrix_load(layout, itemsize) is not None:  # e.g. tensor-core operands: ldmatrix
        staging = matrix_staging(tuple(source.layout.shape))
        store = contiguous_registers(source.layout, staging.vector)
        return StagingPlan(staging, store, staging.vector, 0.0)
    return choose_staging(source.layout, layout, itemsize)


def through_staging(lw: Lowering, source: Distributed, layout: LinearLayout,
                    plan: StagingPlan, base: ir.Value) -> list[ir.Value]:
    """Store `source` into the swizzled buffer at `base`, then load it back in `layout`."""
    staging = plan.staging
    mem = memory_type(source.dtype)
    lw.need_shared(staging.size() * staging.itemsize)
    gpu.barrier()  # an earlier user of the buffer may still be reading it
    thread = _thread_offset(lw, source.layout, staging)
    width = plan.store_vector
    for r in owned_registers(source.layout):
        if r % width:
            continue
        address = _address(base, thread, staging.offset(source.layout.apply(r, 0, 0)), mem)
        values = [_to_memory(source.regs[r + j], mem) for j in range(width)]
        if width == 1:
            llvm.store(values[0], address)
        else:
            packed = vector.from_elements(ir.VectorType.get([width], mem), values)
            llvm.store(packed, address, alignment=width * staging.itemsize)
    gpu.barrier()
    matrices = matrix_load(layout, staging.itemsize) if staging.vector == 8 else None
    if matrices is not None and staging.itemsize == 2:
        return _load_matrices(lw, layout, staging, matrices, base, mem)
    thread = _thread_offset(lw, layout, staging)
    width = plan.load_vector
    regs: list[ir.Value] = []
    for r in range(0, layout.num_registers, width):
        address = _address(base, thread, staging.offset(layout.apply(r, 0, 0)), mem)
        if width == 1:
            values = [llvm.load(mem, address)]
        else:
            loaded = llvm.load(ir.VectorType.get([width], mem), address,
                               alignment=width * staging.itemsize)
            values = [vector.extract(loaded, static_position=[j], dynamic_position=[])
                      for j in range(width)]
        regs.extend(_to_register(v, source.dtype.kind == "b") for v in values)
    return regs


def _load_matrices(lw: Lowering, layout: LinearLayout, staging: Staging, plan: MatrixLoad,
                   base: ir.Value, mem: ir.Type) -> list[ir.Value]:
    """`ldmatrix[.trans].x{count}`: each lane addresses one matrix row (see MatrixLoad)."""
    terms = staging.offset_bases(layout)
    lane = lw.thread_index("lane")
    thread = _thread_offset(lw, layout, staging, lanes=False)
    for b, (in_dim, bit) in enumerate(plan.address_bits):
        term = terms[in_dim][bit]
        if term:
            set_bit = arith.andi(arith.shrui(lane, const(i32(), b)), const(i32(), 1))
            thread = arith.xori(thread, arith.muli(set_bit, const(i32(), term)))
    per_load = 2 * plan.count
    words = [i32()] * plan.count
    result = words[0] if plan.count == 1 else \
        ir.Type.parse("!llvm.struct<({})>".format(", ".join(map(str, words))))
    attributes = {
        "num": ir.IntegerAttr.get(i32(), plan.count),
        "layout": ir.Attribute.parse(f"#nvvm.mma_layout<{'col' if plan.trans else 'row'}>"),
        "shape": ir.Attribute.parse("#nvvm.ld_st_matrix_shape<m = 8, n = 8>"),
        "eltType": ir.Attribute.parse("#nvvm.ld_st_matrix_elt_type<b16>"),
    }
    pair = ir.VectorType.get([2], mem)
    regs: list[ir.Value] = []
    for first in range(0, layout.num_registers, per_load):
        address = _address(base, thread, staging.offset(layout.apply(first, 0, 0)), mem)
        op = ir.Operation.create("nvvm.ldmatrix", results=[result], operands=[address],
                                 attributes=attributes)
        for i in range(plan.count):
            word = op.result if plan.count == 1 else llvm.extractvalue(i32(), op.result, [i])
            halves = llvm.bitcast(pair, word)
            regs += [vector.extract(halves, static_position=[h], dynamic_position=[])
                     for h in range(2)]
    return regs


def _thread_offset(lw: Lowering, layout: LinearLayout, staging: Staging,
                   lanes: bool = True) -> ir.Value:
    """XOR of the offset terms of this thread's set lane (unless not `lanes`) and warp bits."""
    return thread_term(lw, staging.offset_bases(layout), ("lane", "warp") if lanes else ("warp",))


def thread_term(lw: Lowering, terms: dict[str, tuple[int, ...]],
                dims: tuple[str, ...] = ("lane", "warp")) -> ir.Value:
    """XOR of `terms` (per in-dim bit, as a buffer's offset_bases gives them) over this thread's
    set bits of `dims`: the per-thread part of an offset that is linear over GF(2)."""
    acc = const(i32(), 0)
    for dim in dims:
        index = lw.thread_index(dim)
        for k, term in enumerate(terms[dim]):
            if term:
                bit = arith.andi(arith.shrui(index, const(i32(), k)), const(i32(), 1))
                acc = arith.xori(acc, arith.muli(bit, const(i32(), term)))
    return acc


def _address(base: ir.Value, thread: ir.Value, register_term: int, mem: ir.Type) -> ir.Value:
    offset = arith.xori(thread, const(i32(), register_term)) if register_term else thread
    return gep(base, arith.extui(i64(), offset), mem)


def _to_memory(value: ir.Value, mem: ir.Type) -> ir.Value:
    return arith.extui(mem, value) if value.type != mem else value


def _to_register(value: ir.Value, is_bool: bool) -> ir.Value:
    if is_bool:
        return arith.cmpi(arith.CmpIPredicate.ne, value, const(value.type, 0))
    return value
