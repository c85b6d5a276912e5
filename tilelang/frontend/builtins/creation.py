"""Front end: emitters for full, zeros, ones and arange."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilelang.errors import TileTypeError
from tilelang.frontend import build, operators
from tilelang.frontend.builtins.common import as_dtype
from tilelang.frontend.builtins.registry import lowers
from tilelang.frontend.semantics import (
    check_fits,
    check_shape,
    describe,
    invalid_argument,
    type_str,
)
from tilelang.frontend.values import TileValue, is_loose
from tilelang.language import creation as lang
from tilelang.language.dtypes import DType

if TYPE_CHECKING:
    from tilelang.frontend.emitter import Emitter


@lowers(lang.full)
def emit_full(em: Emitter, shape: object, fill_value: object, dtype: object,
              op: str = "full") -> TileValue:
    shape = () if shape == () else check_shape(shape)
    dtype = as_dtype(dtype)
    if (isinstance(fill_value, TileValue) and fill_value.shape) or \
            not (is_loose(fill_value) or isinstance(fill_value, TileValue)):
        raise invalid_argument("fill_value", "Expected a scalar, but given value has type "
                                             f"{type_str(fill_value)}")
    scalar = operators.astype(fill_value, dtype)
    return build.splat(scalar, shape)


@lowers(lang.zeros)
def emit_zeros(em: Emitter, shape: object, dtype: object) -> TileValue:
    return emit_full(em, shape, 0, dtype, "zeros")


@lowers(lang.ones)
def emit_ones(em: Emitter, shape: object, dtype: object) -> TileValue:
    return emit_full(em, shape, 1, dtype, "ones")


@lowers(lang.arange)
def emit_arange(em: Emitter, size: object, dtype: object, start: object, step: object) -> object:
    size, dtype = _constant_int(size), as_dtype(dtype)
    if size <= 0 or size & (size - 1):  # cuTile's rule (other tile shapes need not be)
        raise TileTypeError(f"Result tile shape must be power of 2, got {size}")
    tile = build.op("arange", [], dtype, (size,))
    if not (is_loose(step) and step == 1):
        tile = operators.binary("mul", tile, _typed(step, dtype))
    # a zero start is skipped for integers only: adding 0.0 turns 0 * (negative step) into +0.0
    if not (is_loose(start) and start == 0 and not dtype.is_float):
        tile = operators.binary("add", tile, _typed(start, dtype))
    return tile


def _constant_int(size: object) -> int:
    """arange's size: a compile-time int (cuTile's messages)."""
    if isinstance(size, int) and not isinstance(size, bool):
        return size
    if isinstance(size, TileValue):
        raise TileTypeError("Expected an integer constant, but given value is not constant")
    raise TileTypeError(f"Expected an integer constant, but given value has type {describe(size)}")


def _typed(value: object, dtype: DType) -> object:
    """start/step converted to arange's dtype as astype does (8.5 becomes 8 for integers)."""
    if is_loose(value) and not isinstance(value, float):
        check_fits(value, dtype)
        return value
    return operators.astype(value, dtype)
