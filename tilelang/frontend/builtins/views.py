"""Front end: emitters for Array.slice and tiled views (Array.tiled_view, TiledView methods)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tilelang.errors import TileTypeError
from tilelang.frontend import build, operators, semantics
from tilelang.frontend.builtins.common import access_hints
from tilelang.frontend.builtins.grid import cdiv
from tilelang.frontend.builtins.memory import (
    _indices,
    _padding,
    _stored_value,
    check_bounds_flag,
)
from tilelang.frontend.builtins.registry import lowers
from tilelang.frontend.divisibility import known_multiple
from tilelang.frontend.semantics import describe
from tilelang.frontend.values import ArrayValue, TiledViewValue, TileValue, is_loose
from tilelang.language import dtypes as dt
from tilelang.language.enums import MemoryOrder, MemoryScope
from tilelang.language.views import Array, TiledView

if TYPE_CHECKING:
    from tilelang.frontend.emitter import Emitter

# ----- Array.slice -----------------------------------------------------------------------------


@lowers(Array.slice)
def emit_slice(em: Emitter, self: ArrayValue, axis: object, start: object,
               stop: object) -> ArrayValue:
    axis = _axis(axis, self.ndim)
    lo, hi = _bound(start, "start"), _bound(stop, "stop")
    known_lo, known_hi = _known_int(lo), _known_int(hi)
    if known_lo is not None and known_hi is not None and known_hi < known_lo:
        raise TileTypeError(f"Slice stop must be greater than or equal to start, got "
                            f"start={known_lo} and stop={known_hi}")
    extent = None if known_lo is None or known_hi is None else known_hi - known_lo
    return slice_array(self, axis, lo, hi, known_multiple(lo), extent)


def _known_int(value: TileValue) -> int | None:
    """The value of an integer scalar constant; None when known only at run time."""
    known = build.constant_value(value)
    return None if known is None else int(known)


def slice_array(array: ArrayValue, axis: int, start: TileValue, stop: TileValue,
                start_multiple: int | None, extent: int | None = None) -> ArrayValue:
    """Emit `tile.slice`; `start` is known to be a multiple of `start_multiple` (None: of 1).
    With constant bounds the slice's `extent` along `axis` is a compile-time constant."""
    from tilelang.dialect import array_type, ops, parse_array_type

    if dt.int64 in (start.dtype, stop.dtype):  # the two bounds share one type
        start, stop = build.cast(start, dt.int64), build.cast(stop, dt.int64)
    dtype, unit, align = parse_array_type(array.value.type)
    result_type = array_type(dtype, unit, slice_alignment(unit[axis], align, dtype.itemsize,
                                                          start_multiple))
    op = ops.create("slice", [array.value, start.value, stop.value], [result_type], axis=axis)
    # the slice keeps the index dtype and compiled-in strides; its extent along `axis` changes
    known = array.static_shape or (None,) * array.ndim
    static_shape = tuple(extent if d == axis else e for d, e in enumerate(known))
    if all(e is None for e in static_shape):
        static_shape = ()
    return ArrayValue(op.result, array.dtype, array.ndim, array.name, array.index_dtype,
                      static_shape, array.static_strides)


def slice_alignment(unit: bool, align: int, itemsize: int, start_multiple: int | None) -> int:
    """The alignment in bytes of a slice's base pointer (its strides are the array's).

    Along an axis of run-time stride the base moves by whole strides, which are multiples of
    `align` bytes; along a unit-stride axis it moves by start * itemsize bytes.
    """
    if not unit or start_multiple == 0:
        return align
    moved = abs(start_multiple or 1) * itemsize
    return min(align, moved & -moved)


def _axis(axis: object, ndim: int) -> int:
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise TileTypeError(f"axis must be a compile-time constant int, got {describe(axis)}")
    if not -ndim <= axis < ndim:
        raise TileTypeError(f"Axis {axis} is out of range for rank {ndim}'")  # sic: cuTile's
    return axis % ndim


def _bound(value: Any, what: str) -> TileValue:
    """A slice bound: a signed integer scalar, as int32 (or int64 when it is one)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise TileTypeError(f"Slice {what} must be non-negative, got {value}")
        return build.to_tile(value)
    ok = isinstance(value, TileValue) and not value.shape and value.dtype.is_integer
    if not ok or not value.dtype.is_signed:
        raise TileTypeError(
            f"Expected a signed integer scalar for the slice {what}, got {describe(value)}"
        )
    known = build.constant_value(value)
    if known is not None and known < 0:
        raise TileTypeError(f"Slice {what} must be non-negative, got {known}")
    return build.cast(value, dt.int64 if value.dtype is dt.int64 else dt.int32)


# ----- Array.tiled_view ------------------------------------------------------------------------


@lowers(Array.tiled_view)
def emit_tiled_view(
    em: Emitter, self: ArrayValue, tile_shape: object, padding_mode: object, traversal_steps: object
) -> TiledViewValue:
    ndim = self.ndim
    shape = _shape(tile_shape, "tile_shape", ndim, allow_empty=True)
    if traversal_steps is None:
        steps = shape or (1,) * ndim
    else:
        steps = _shape(traversal_steps, "traversal_steps", ndim, allow_empty=False)
    return TiledViewValue(self, shape, _padding(padding_mode), steps)


def _shape(value: object, what: str, ndim: int, allow_empty: bool) -> tuple[int, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        value = (value,)
    if not isinstance(value, tuple) or not all(
        isinstance(d, int) and not isinstance(d, bool) for d in value
    ):
        raise TileTypeError(
            f"{what} must be a tuple of compile-time constant ints, got {describe(value)}",
            hint="use literals or Constant[int] parameters",
        )
    if len(value) != ndim and not (allow_empty and value == ()):
        raise TileTypeError(f"Expected {what.replace('tile_', '')} length to be {ndim}, "
                            f"got {len(value)}")
    for i, d in enumerate(value):
        if d <= 0:
            raise TileTypeError(f"Element {i} of {what} {value} is not positive")
    return value


# ----- TiledView methods -----------------------------------------------------------------------


@lowers(TiledView.num_tiles)
def emit_num_tiles(em: Emitter, self: TiledViewValue, axis: object) -> object:
    from tilelang.frontend.attributes import _array_query

    axis = _axis(axis, self.array.ndim)
    return cdiv(_array_query("dim", self.array, axis), self.steps[axis])


@lowers(TiledView.load)
def emit_view_load(
    em: Emitter, self: TiledViewValue, index: object, check_bounds: object, latency: object,
    allow_tma: object
) -> TileValue:
    check_bounds_flag(check_bounds)
    hints = access_hints(latency, allow_tma)
    array = self.array
    indices = _indices(array, index, "tiled view")
    tile = build.op("load", [array, *indices], array.dtype, self.shape,
                    order=tuple(range(array.ndim)), padding_mode=self.padding, **_steps(self),
                    **hints)
    return tile if self.tile_shape else build.reshape(tile, ())


@lowers(TiledView.store)
def emit_view_store(
    em: Emitter, self: TiledViewValue, index: object, tile: object, check_bounds: object,
    latency: object,
    allow_tma: object,
) -> None:
    from tilelang.dialect import ops

    check_bounds_flag(check_bounds)
    hints = access_hints(latency, allow_tma)
    array = self.array
    indices = _indices(array, index, "tiled view")
    if not is_loose(tile):
        tile = _broadcast(self, tile)
    value = build.broadcast_to(_stored_value(array, tile), self.shape)  # numbers: a 1x..x1 tile
    ops.create("store", [array.value, *(i.value for i in indices), value.value], [],
               order=tuple(range(array.ndim)), **_steps(self), **hints)


def _broadcast(view: TiledViewValue, tile: object) -> TileValue:
    """`tile` broadcast to the view's tile shape (as laid out in memory)."""
    if not isinstance(tile, TileValue):
        raise TileTypeError(f"TiledView.store() expects a tile, got {describe(tile)}")
    try:
        fits = semantics.broadcast_shapes(tile.shape, view.tile_shape) == view.tile_shape
    except TileTypeError:
        fits = False
    if not fits:
        raise TileTypeError(f"Tile shape {tile.shape} is not broadcastable to the tiled view's "
                            f"tile shape {view.tile_shape}")
    return build.broadcast_to(tile, view.shape)


def _steps(view: TiledViewValue) -> dict[str, tuple[int, ...]]:
    """The `steps` attribute of the view's loads and stores, left out when it is the shape."""
    return {} if view.steps == view.shape else {"steps": view.steps}


# ----- atomic updates of a whole tile ---------------------------------------------------------


def _atomic_store_emitter(kind: str) -> Callable[..., None]:
    name = f"atomic_store_{kind}"

    def emit(em: Emitter, self: TiledViewValue, index: object, update: object) -> None:
        from tilelang.frontend.builtins.gather import ATOMIC_DTYPES, rmw_emitter

        array = self.array
        if array.dtype not in ATOMIC_DTYPES[kind]:
            names = ", ".join(d.name for d in ATOMIC_DTYPES[kind])
            raise TileTypeError(f"Unsupported tiled view dtype {array.dtype.name} for {name}()",
                                hint=f"{name} works on views of {names}")
        if isinstance(update, TileValue) and not _broadcasts(update.shape, self.shape):
            raise TileTypeError(f"Update shape {update.shape} is not broadcastable to the tile "
                                f"shape {self.shape}")
        coords = _element_indices(self, _indices(array, index, "tiled view"))
        rmw_emitter(kind)(em, array, coords, update, True, MemoryOrder.RELAXED,
                          MemoryScope.DEVICE)

    return emit


def _broadcasts(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    try:
        return semantics.broadcast_shapes(shape, target) == target
    except TileTypeError:
        return False


def _element_indices(view: TiledViewValue, tile_index: list[TileValue]) -> tuple[TileValue, ...]:
    """Per dimension, the array index of every element of the tile at `tile_index`."""
    ndim = view.array.ndim
    coords = []
    for d, (start, size) in enumerate(zip(tile_index, view.shape, strict=True)):
        ramp = build.op("arange", [], start.dtype, (size,))
        ramp = build.reshape(ramp, tuple(size if k == d else 1 for k in range(ndim)))
        first = operators.binary("mul", start, view.steps[d])
        coords.append(build.broadcast_to(operators.binary("add", ramp, first), view.shape))
    return tuple(coords)


for _kind in ("add", "max", "min", "and", "or", "xor"):
    lowers(getattr(TiledView, f"atomic_store_{_kind}"))(_atomic_store_emitter(_kind))
