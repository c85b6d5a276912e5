"""Passes (simt): what a tile-stage value becomes once distributed over a block's threads."""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir

from tilelang.language import dtypes as dt
from tilelang.language.dtypes import DType
from tilelang.layout import LinearLayout


@dataclass(frozen=True, eq=False)
class Distributed:
    """A tile: `regs[r]` is this thread's value of the element at register r of `layout`."""

    regs: tuple[ir.Value, ...]
    layout: LinearLayout
    dtype: DType
    shape: tuple[int, ...]  # the real (unpadded) tile shape


@dataclass(frozen=True, eq=False)
class ArrayArgs:
    """An array: its base pointer and its shape and strides (in elements) as i64 values."""

    ptr: ir.Value
    shape: tuple[ir.Value, ...]
    strides: tuple[ir.Value, ...]
    dtype: DType
    unit_stride: tuple[bool, ...]
    align: int


Lowered = Distributed | ArrayArgs | ir.Value
"""A tile-stage value once lowered: a tile's registers, an array's pointer, extents and strides,
or a scalar's SSA value."""


def scalar_type(dtype: DType) -> ir.Type:
    """Register type: signless integers (unsigned is a property of the ops), i1 for bools; the
    8-bit floats are their bytes (i8: LLVM has no such types), float4_e2m1fn a byte holding
    its code, and tfloat32 is float32."""
    if dtype.kind == "u" or dtype in dt.REGISTER_BYTE_DTYPES:
        return ir.IntegerType.get_signless(8 * dtype.itemsize)
    if dtype is dt.tfloat32:
        return ir.F32Type.get()
    return ir.Type.parse(dtype.mlir)


def memory_type(dtype: DType) -> ir.Type:
    """Element type in memory: bools are bytes."""
    return ir.IntegerType.get_signless(8) if dtype is dt.bool_ else scalar_type(dtype)


def param_type(dtype: DType) -> ir.Type:
    """Kernel parameter type of a scalar argument (bools travel as bytes)."""
    return memory_type(dtype)


def i64() -> ir.Type:
    return ir.IntegerType.get_signless(64)


def i32() -> ir.Type:
    return ir.IntegerType.get_signless(32)
