"""Front end: emitters for load and store."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilelang.errors import TileTypeError, TileValueError
from tilelang.frontend import build, semantics
from tilelang.frontend.builtins.common import access_hints, as_array, as_tuple, index_scalar
from tilelang.frontend.builtins.registry import lowers
from tilelang.frontend.semantics import check_shape, describe, invalid_argument
from tilelang.frontend.values import ArrayValue, TileValue, is_loose
from tilelang.language import dtypes as dt
from tilelang.language import memory as lang
from tilelang.language.enums import PaddingMode

if TYPE_CHECKING:
    from tilelang.frontend.emitter import Emitter


def tile_order(order: object, ndim: int) -> tuple[int, ...]:
    """`order`: "C" (identity), "F" (reversed) or a permutation of the array's axes (negative
    axes count from the end). Errors are cuTile's TileTypeErrors."""
    if order == "C":
        return tuple(range(ndim))
    if order == "F":
        return tuple(reversed(range(ndim)))
    if isinstance(order, str):
        raise invalid_argument("order", f"Expected 'C' or 'F', got '{order}'")
    if not isinstance(order, tuple) or not all(
            isinstance(o, int) and not isinstance(o, bool) for o in order):
        raise invalid_argument("order", f"order must be 'C', 'F' or a tuple of axes, got "
                                        f"{describe(order)}")
    if len(order) != ndim:
        raise invalid_argument("order", f"Expected tuple of length {ndim}, got {len(order)}")
    axes = tuple(_norm(o, ndim) for o in order)
    for axis in axes:
        if axes.count(axis) > 1:
            raise invalid_argument(
                "order", f"Axis order must be a permutation, but axis {axis} is used at least "
                         "twice")
    return axes


def _norm(axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise invalid_argument("order", f"Axis {axis} is out of range for rank {ndim}")
    return axis % ndim


def _indices(array: ArrayValue, index: object, of: str = "array") -> list[TileValue]:
    """The index scalars of an access to `array` (or to a "tiled view" of it)."""
    index = as_tuple(index)
    if len(index) != array.ndim:  # cuTile's class and words
        raise TileTypeError(f"Index size {len(index)} does not match the {of} rank {array.ndim}")
    indices = [index_scalar(i, "each tile index") for i in index]
    if any(i.dtype is dt.int64 for i in indices):  # the index operands share one type
        indices = [build.cast(i, dt.int64) for i in indices]
    return indices


def _padding(mode: object) -> str:
    if isinstance(mode, PaddingMode):
        return mode.value
    values = {m.value for m in PaddingMode}
    if mode in values:
        return mode
    raise TileTypeError(f"padding_mode must be a tilelang.PaddingMode, got {mode!r}")


def check_bounds_flag(value: object) -> None:
    """`check_bounds` of loads and stores: a constant bool (False promises in-bounds tiles;
    bounds are checked either way, which the promise allows)."""
    if not isinstance(value, bool):
        raise TileTypeError(f"check_bounds must be a constant bool, got {describe(value)}")


@lowers(lang.load)
def emit_load(
    em: Emitter, array: object, index: object, shape: object, order: object, padding_mode: object,
    check_bounds: object, latency: object, allow_tma: object,
) -> TileValue:
    check_bounds_flag(check_bounds)
    hints = access_hints(latency, allow_tma)
    array = as_array(array, "load")
    shape = check_shape(shape, ndim=array.ndim) if shape != () else ()
    if shape == () and array.ndim:  # one element, as a scalar (cuTile)
        one = emit_load(em, array, index, (1,) * array.ndim, order, padding_mode, check_bounds,
                        latency, allow_tma)
        return build.reshape(one, ())
    indices = _indices(array, index)
    order_attr = tile_order(order, array.ndim)
    padding = _padding(padding_mode)
    return build.op(
        "load", [array, *indices], array.dtype, shape, order=order_attr, padding_mode=padding,
        **hints,
    )


@lowers(lang.store)
def emit_store(
    em: Emitter, array: object, index: object, tile: object, order: object,
    check_bounds: object, latency: object, allow_tma: object
) -> None:
    from tilelang.dialect import ops

    check_bounds_flag(check_bounds)
    hints = access_hints(latency, allow_tma)
    array = as_array(array, "store")
    indices = _indices(array, index)
    value = _stored_value(array, tile)
    order_attr = tile_order(order, array.ndim)
    ops.create("store", [array.value, *(i.value for i in indices), value.value], [],
               order=order_attr, **hints)


def _stored_value(array: ArrayValue, tile: object) -> TileValue:
    if is_loose(tile):
        if semantics.category(semantics.constant_dtype(tile)) > semantics.category(array.dtype):
            raise TileTypeError(f"cannot store {tile!r} into a {array.dtype.name} array")
        tile = build.constant(tile, array.dtype)
    if not isinstance(tile, TileValue):
        raise TileTypeError(f"store() expects a tile, got {describe(tile)}")
    if not tile.shape:
        tile = build.splat(tile, (1,) * array.ndim)
    if tile.ndim != array.ndim:
        raise TileValueError(
            f"cannot store a tile of shape {tile.shape} into a {array.ndim}-d array",
            hint="the tile must have one dimension per array dimension (or be a scalar)",
        )
    if not semantics.lossless_cast(tile.dtype, array.dtype):
        raise TileTypeError(
            f"cannot implicitly cast a {tile.dtype.name} tile to the {array.dtype.name} array",
            hint=f"convert it first with .astype(tilelang.{array.dtype.name})",
        )
    return build.cast(tile, array.dtype)
