"""Passes (simt): addressing helpers shared by the memory lowerings (global and shared memory):
pointer arithmetic, the dynamic shared-memory symbol, a tile type's layout, and how bools sit in
memory. Depends on no other simt lowering module, so they all may use it."""

from __future__ import annotations

import functools

import mlir.ir as ir
from mlir.dialects import arith, llvm

from tilelang.language import dtypes as dt
from tilelang.layout import LinearLayout
from tilelang.passes.simt.context import const

GEP_DYNAMIC = -2147483648  # rawConstantIndices marker for "the next dynamic index"
SHARED_SYMBOL = "__tile_shared"  # the kernel's dynamic shared memory, an llvm global
# its declared alignment: a 128-byte swizzle's atom (8 rows of 128 bytes), where TMA boxes and
# wgmma's operands start. Declared, the buffer starts there (ptxas places it so), so buffers at
# 1024-byte offsets need no slack to be aligned at run time; the lowerings still round their
# addresses up (a no-op then), so a buffer misplaced by a toolchain would fault, not corrupt.
SHARED_ALIGN = 1024


def align_up(size: int, alignment: int = SHARED_ALIGN) -> int:
    return (size + alignment - 1) // alignment * alignment


def gep(ptr: ir.Value, offset: ir.Value, elem: ir.Type) -> ir.Value:
    flags = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 0)
    return llvm.GEPOp(ptr.type, ptr, [offset], ir.DenseI32ArrayAttr.get([GEP_DYNAMIC]), elem,
                      flags).result


def to_register(value: ir.Value, dtype) -> ir.Value:
    if dtype is dt.bool_:
        return arith.cmpi(arith.CmpIPredicate.ne, value, const(value.type, 0))
    return value


def to_memory(value: ir.Value, dtype) -> ir.Value:
    return arith.extui(ir.IntegerType.get_signless(8), value) if dtype is dt.bool_ else value


def layout_of(t: ir.Type) -> LinearLayout:
    from tilelang.dialect import layout_text

    return _parse_layout(layout_text(t))


@functools.lru_cache(maxsize=1024)
def _parse_layout(text: str) -> LinearLayout:
    """A layout from its text, parsed once (layouts are immutable; a kernel names each many
    times)."""
    from tilelang.layout import from_text

    return from_text(text)
