"""Dialect: builders for `tile` ops and readers of their attributes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

import mlir.ir as ir

from tilelang.dialect.types import mlir_type
from tilelang.language import dtypes as dt
from tilelang.language.dtypes import DType

# on a tile.load: the `latency=` hint (1-10), which sets the stages of a ring that copies it
LATENCY_ATTR = "tile.latency"
# on a tile.load or tile.store: `allow_tma=False`, which keeps TMA from copying its tile
NO_TMA_ATTR = "tile.no_tma"

AttrValue: TypeAlias = int | float | str | bool | Sequence[int] | ir.Attribute


def create(
    name: str,
    operands: Sequence[ir.Value],
    results: Sequence[ir.Type] = (),
    **attrs: AttrValue,
) -> ir.Operation:
    """Create `tile.<name>` at the current insertion point and location."""
    attributes = {k: to_attr(v) for k, v in attrs.items()}
    return ir.Operation.create(
        f"tile.{name}", results=list(results), operands=list(operands), attributes=attributes
    )


def to_attr(value: AttrValue) -> ir.Attribute:
    if isinstance(value, ir.Attribute):
        return value
    if isinstance(value, str):
        return ir.StringAttr.get(value)
    if isinstance(value, bool):
        return ir.BoolAttr.get(value)
    if isinstance(value, int):
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)
    if isinstance(value, float):
        return ir.FloatAttr.get(ir.F64Type.get(), value)
    return ir.DenseI64ArrayAttr.get(list(value))


def constant_attr(value: bool | int | float, dtype: DType) -> ir.Attribute:
    """The `value` attribute of a `tile.constant` of `dtype` (ints wrap to the bit pattern)."""
    t = mlir_type(dtype)
    if dtype.restricted:  # the value astype would give: rounded (and saturated for fp8)
        from tilelang.dialect.restricted import round_scalar

        value = round_scalar(float(value), dtype)
        if dtype is dt.float8_e5m3fnu:  # no MLIR float type: the value, exact in float32
            return ir.FloatAttr.get(ir.F32Type.get(), value)
        return ir.FloatAttr.get(t, value)
    if dtype.is_float:
        return ir.FloatAttr.get(t, float(value))
    bits = dtype.bitwidth
    v = int(value) & ((1 << bits) - 1)
    if bits == 64 and v >= 1 << 63:
        v -= 1 << 64  # the binding takes a signed int64 for 64-bit patterns
    return ir.IntegerAttr.get(t, v)


def constant_value(attr: ir.Attribute, dtype: DType) -> bool | int | float:
    """The Python value of a `tile.constant`'s attribute, interpreted as `dtype`."""
    if dtype.is_float:
        return ir.FloatAttr(attr).value
    v = ir.IntegerAttr(attr).value & ((1 << dtype.bitwidth) - 1)
    if dtype.kind == "b":
        return bool(v)
    if dtype.kind == "i" and v >= 1 << (dtype.bitwidth - 1):
        v -= 1 << dtype.bitwidth
    return v


def int_attr(op: ir.Operation | ir.OpView, name: str) -> int:
    return ir.IntegerAttr(op.attributes[name]).value


def str_attr(op: ir.Operation | ir.OpView, name: str) -> str:
    return ir.StringAttr(op.attributes[name]).value


def array_attr(op: ir.Operation | ir.OpView, name: str) -> tuple[int, ...]:
    return tuple(ir.DenseI64ArrayAttr(op.attributes[name]))
