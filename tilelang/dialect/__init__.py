"""Dialect: load the `tile` IRDL dialect into MLIR contexts; types and op builders."""

from tilelang.dialect.context import DIALECT_FILE, load_dialect, make_context, op_names
from tilelang.dialect.types import (
    array_type,
    dtype_of,
    is_tile_type,
    layout_text,
    mlir_type,
    parse_array_type,
    tensor_type,
    with_layout,
)

__all__ = [
    "DIALECT_FILE",
    "array_type",
    "dtype_of",
    "is_tile_type",
    "layout_text",
    "load_dialect",
    "make_context",
    "mlir_type",
    "op_names",
    "parse_array_type",
    "tensor_type",
    "with_layout",
]
