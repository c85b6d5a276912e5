"""Front end: emitters for reshape, expand_dims and broadcast_to."""

from __future__ import annotations

from typing import Any

from tilelang.errors import TileValueError
from tilelang.frontend import build
from tilelang.frontend.builtins import lowers
from tilelang.frontend.builtins.common import as_tile, as_tuple
from tilelang.frontend.semantics import check_shape, normalize_axis
from tilelang.frontend.values import TileValue
from tilelang.language import shape as lang


@lowers(lang.reshape)
def emit_reshape(em: Any, x: Any, shape: Any) -> TileValue:
    tile = as_tile(x, "reshape")
    shape = as_tuple(shape)
    if shape.count(-1) > 1:
        raise TileValueError(f"reshape to {shape}: only one dimension can be -1")
    if -1 in shape:
        known = 1
        for d in shape:
            known *= d if d != -1 else 1
        size = 1
        for d in tile.shape:
            size *= d
        if known <= 0 or size % known:
            raise TileValueError(f"cannot reshape a tile of shape {tile.shape} into {shape}")
        shape = tuple(size // known if d == -1 else d for d in shape)
    shape = check_shape(shape) if shape else ()
    return build.reshape(tile, shape)


@lowers(lang.expand_dims)
def emit_expand_dims(em: Any, x: Any, axis: Any) -> TileValue:
    tile = as_tile(x, "expand_dims")
    axis = normalize_axis(axis, tile.ndim + 1)
    return build.reshape(tile, (*tile.shape[:axis], 1, *tile.shape[axis:]))


@lowers(lang.broadcast_to)
def emit_broadcast_to(em: Any, x: Any, shape: Any) -> TileValue:
    tile = as_tile(x, "broadcast_to")
    shape = check_shape(as_tuple(shape)) if shape != () else ()
    return build.broadcast_to(tile, shape)
