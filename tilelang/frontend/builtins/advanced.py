"""Front end: load_advanced_indexing / store_advanced_indexing, as gathers and scatters whose
indices are the index tile along one dimension and ranges along the others."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tilelang.errors import TileTypeError
from tilelang.frontend import build, operators
from tilelang.frontend.builtins.common import as_array
from tilelang.frontend.builtins.gather import emit_gather, emit_scatter
from tilelang.frontend.builtins.memory import _padding
from tilelang.frontend.builtins.registry import lowers
from tilelang.frontend.semantics import describe
from tilelang.frontend.values import ArrayValue, TileValue
from tilelang.language import advanced as lang
from tilelang.language import dtypes as dt

if TYPE_CHECKING:
    from tilelang.frontend.emitter import Emitter


@lowers(lang.Slice, raw=True)
def emit_slice(em: Emitter, start: Any, length: object) -> lang.Slice:
    if isinstance(length, bool) or not isinstance(length, int):
        raise TileTypeError(f"the length of a Slice must be a constant int, got "
                            f"{describe(length)}")
    return lang.Slice(start, length)


def _element_indices(fn: str, array: ArrayValue, indices: object) -> tuple[TileValue, ...]:
    """One index tile per array dimension, broadcast to the implied tile shape."""
    if not isinstance(indices, tuple) or len(indices) != array.ndim:
        count = len(indices) if isinstance(indices, tuple) else 1
        raise TileTypeError(f"{fn}(): the number of indices ({count}) does not match array "
                            f"rank {array.ndim}")
    sparse = [k for k, i in enumerate(indices) if not isinstance(i, lang.Slice)]
    if len(sparse) != 1 or not isinstance(indices[sparse[0]], TileValue):
        raise TileTypeError(f"{fn}(): exactly one index must be a 1D integer Tile, the others "
                            "Slices")
    rows = indices[sparse[0]]
    if rows.ndim != 1 or not rows.dtype.is_integer:
        raise TileTypeError(f"{fn}(): the index tile must be a 1D integer Tile, got "
                            f"{describe(rows)}")
    lengths = [i.length if isinstance(i, lang.Slice) else rows.shape[0] for i in indices]
    for k, n in enumerate(lengths):
        if n <= 0 or n & (n - 1):
            raise TileTypeError(f"{fn}(): the length {n} along dimension {k} must be a power of "
                                "two")
    shape, ndim = tuple(lengths), array.ndim
    out = []
    for k, index in enumerate(indices):
        along = tuple(n if d == k else 1 for d, n in enumerate(shape))
        if isinstance(index, lang.Slice):
            ramp = build.op("arange", [], dt.int32, (index.length,))
            line = operators.binary("add", ramp, index.start)
        else:
            line = index
        out.append(build.broadcast_to(build.reshape(line, along), shape))
    assert len(out) == ndim
    return tuple(out)


@lowers(lang.load_advanced_indexing)
def emit_load_advanced(em: Emitter, array: object, indices: object, padding_mode: object,
                       latency: object,
                       allow_tma: object) -> TileValue:
    array = as_array(array, "load_advanced_indexing")
    coords = _element_indices("load_advanced_indexing", array, indices)
    pad = _padding(padding_mode)
    from tilelang.dialect.semantics import PADDING

    value = PADDING[pad]
    if array.dtype.is_integer or array.dtype is dt.bool_:
        value = 0 if value != value or abs(value) == float("inf") else int(value)
    return emit_gather(em, array, coords, None, value, True, latency)


@lowers(lang.store_advanced_indexing)
def emit_store_advanced(em: Emitter, array: object, indices: object, tile: object, latency: object,
                        allow_tma: object) -> None:
    array = as_array(array, "store_advanced_indexing")
    coords = _element_indices("store_advanced_indexing", array, indices)
    if isinstance(tile, TileValue) and tile.shape and tile.shape != coords[0].shape:
        raise TileTypeError(f"store_advanced_indexing(): the tile's shape {tile.shape} does not "
                            f"match the shape the indices imply, {coords[0].shape}")
    emit_scatter(em, array, coords, tile, None, True, latency)
