"""Dialect: the MLIR types of tiles, scalars and arrays, and their dtypes."""

from __future__ import annotations

import re

import mlir.ir as ir

from tilelang.errors import TileUnsupportedFeatureError
from tilelang.language import dtypes
from tilelang.language.dtypes import DType


def mlir_type(dtype: DType) -> ir.Type:
    if dtype in dtypes.UNSUPPORTED_DTYPES:  # before MLIR: some of their values abort APFloat
        raise TileUnsupportedFeatureError(
            f"{dtype.name} is not supported by tilelang (cuTile has it on sm_107 and newer; "
            f"MLIR has no such type)")
    return ir.Type.parse(dtype.mlir)


def tensor_type(shape: tuple[int, ...], dtype: DType, layout: str | None = None) -> ir.Type:
    """A tile type; a 0-d shape means a scalar, which is the plain element type."""
    if not shape:
        return mlir_type(dtype)
    encoding = _layout_attr(layout) if layout is not None else None
    return ir.RankedTensorType.get(list(shape), mlir_type(dtype), encoding=encoding)


def _layout_attr(text: str) -> ir.Attribute:
    return ir.Attribute.parse(f'#tile.layout<"{text}">')


def is_tile_type(t: ir.Type) -> bool:
    return isinstance(t, ir.RankedTensorType)


def dtype_of(t: ir.Type) -> DType:
    """The dtype of a scalar, tile or array type."""
    if is_tile_type(t):
        t = ir.RankedTensorType(t).element_type
    elif str(t).startswith("!tile.array"):
        return parse_array_type(t)[0]
    return dtypes.BY_MLIR[str(t)]


def shape_of(t: ir.Type) -> tuple[int, ...]:
    return tuple(ir.RankedTensorType(t).shape) if is_tile_type(t) else ()


def layout_text(t: ir.Type) -> str | None:
    """The layout text of a tile type's encoding, or None when it has none."""
    if not is_tile_type(t):
        return None
    enc = ir.RankedTensorType(t).encoding
    if enc is None:
        return None
    m = re.fullmatch(r'#tile\.layout<"(.*)">', str(enc))
    return m.group(1) if m else None


def with_layout(t: ir.Type, layout: str | None) -> ir.Type:
    rt = ir.RankedTensorType(t)
    encoding = _layout_attr(layout) if layout is not None else None
    return ir.RankedTensorType.get(list(rt.shape), rt.element_type, encoding=encoding)


def array_type(dtype: DType, unit_stride: tuple[bool, ...], align: int) -> ir.Type:
    strides = ", ".join("1" if u else "-1" for u in unit_stride)
    strides = f"array<i64: {strides}>" if unit_stride else "array<i64>"
    return ir.Type.parse(f"!tile.array<{dtype.mlir}, {strides}, {align} : i64>")


_ARRAY_RE = re.compile(r"!tile\.array<(\w+), array<i64(?::\s*([-\d,\s]*))?>, (\d+) : i64>")


def parse_array_type(t: ir.Type) -> tuple[DType, tuple[bool, ...], int]:
    """(dtype, unit-stride flag per dim, alignment in bytes) of a `!tile.array` type."""
    m = _ARRAY_RE.fullmatch(str(t))
    if m is None:
        raise ValueError(f"not a tile array type: {t}")
    strides = [int(s) for s in m.group(2).split(",")] if m.group(2) else []
    return dtypes.BY_MLIR[m.group(1)], tuple(s == 1 for s in strides), int(m.group(3))
