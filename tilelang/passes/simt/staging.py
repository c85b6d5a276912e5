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
from tilelang.layout.staging import Staging, StagingPlan, choose_staging
from tilelang.passes.simt.context import Lowering, const
from tilelang.passes.simt.memory import _gep
from tilelang.passes.simt.values import Distributed, i32, i64, memory_type


def staging_plan(source: Distributed, layout: LinearLayout) -> StagingPlan:
    itemsize = 1 if source.dtype.kind == "b" else source.dtype.itemsize
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


def _thread_offset(lw: Lowering, layout: LinearLayout, staging: Staging) -> ir.Value:
    """XOR of the offset terms of this thread's set lane and warp bits (i32)."""
    terms = staging.offset_bases(layout)
    acc = const(i32(), 0)
    for dim in ("lane", "warp"):
        index = lw.thread_index(dim)
        for k, term in enumerate(terms[dim]):
            if term:
                bit = arith.andi(arith.shrui(index, const(i32(), k)), const(i32(), 1))
                acc = arith.xori(acc, arith.muli(bit, const(i32(), term)))
    return acc


def _address(base: ir.Value, thread: ir.Value, register_term: int, mem: ir.Type) -> ir.Value:
    offset = arith.xori(thread, const(i32(), register_term)) if register_term else thread
    return _gep(base, arith.extui(i64(), offset), mem)


def _to_memory(value: ir.Value, mem: ir.Type) -> ir.Value:
    return arith.extui(mem, value) if value.type != mem else value


def _to_register(value: ir.Value, is_bool: bool) -> ir.Value:
    if is_bool:
        return arith.cmpi(arith.CmpIPredicate.ne, value, const(value.type, 0))
    return value
