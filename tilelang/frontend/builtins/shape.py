"""Front end: emitters for reshape, expand_dims, broadcast_to, permute, transpose, cat, extract,
insert and bitcast."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilelang.dialect import ops, tensor_type
from tilelang.errors import TileTypeError, TileUnsupportedFeatureError, TileValueError
from tilelang.frontend import build
from tilelang.frontend.builtins.common import as_dtype, as_tile, as_tuple, index_scalar
from tilelang.frontend.builtins.registry import lowers
from tilelang.frontend.semantics import check_shape, describe, normalize_axis
from tilelang.frontend.values import TileValue
from tilelang.language import dtypes as dt
from tilelang.language import shape as lang

if TYPE_CHECKING:
    from tilelang.frontend.emitter import Emitter


@lowers(lang.reshape)
def emit_reshape(em: Emitter, x: object, shape: object) -> TileValue:
    tile = as_tile(x, "reshape")
    shape = as_tuple(shape)
    if shape.count(-1) > 1:
        raise TileTypeError(f"Only one dimension can be -1, got {shape}")
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
def emit_expand_dims(em: Emitter, x: object, axis: object) -> TileValue:
    tile = as_tile(x, "expand_dims")
    axis = normalize_axis(axis, tile.ndim + 1)
    return build.reshape(tile, (*tile.shape[:axis], 1, *tile.shape[axis:]))


@lowers(lang.broadcast_to)
def emit_broadcast_to(em: Emitter, x: object, shape: object) -> TileValue:
    tile = as_tile(x, "broadcast_to")
    shape = check_shape(as_tuple(shape)) if shape != () else ()
    return build.broadcast_to(tile, shape)


# ----- permute, transpose, cat, extract, insert, bitcast ----------------------------------------


def _permuted(tile: TileValue, axes: tuple[int, ...]) -> TileValue:
    if axes == tuple(range(tile.ndim)):
        return tile
    shape = tuple(tile.shape[a] for a in axes)
    return build.op("permute", [tile], tile.dtype, shape, axes=axes)


@lowers(lang.permute)
def emit_permute(em: Emitter, x: object, axes: object) -> TileValue:
    tile = as_tile(x, "permute")
    axes = as_tuple(axes)
    if len(axes) != tile.ndim:
        raise TileValueError(f"permute() got {len(axes)} axes for a tile of shape {tile.shape}")
    normalized = tuple(normalize_axis(a, tile.ndim, "each axis") for a in axes)
    if sorted(normalized) != list(range(tile.ndim)):
        raise TileValueError(f"axes {axes} are not a permutation of the {tile.ndim} dimensions "
                             f"of a tile of shape {tile.shape}")
    return _permuted(tile, normalized)


@lowers(lang.transpose)
def emit_transpose(em: Emitter, x: object, axis0: object, axis1: object) -> TileValue:
    tile = as_tile(x, "transpose")
    if tile.ndim < 2:
        raise TileTypeError(f"Cannot transpose a tile with fewer than 2 dimensions "
                            f"(shape {tile.shape})")
    if (axis0 is None) != (axis1 is None):
        raise TileTypeError("transpose axes must either both be specified or both be None")
    if axis0 is None:
        if tile.ndim > 2:
            raise TileTypeError(f"`axes` must be specified for tile with more than 2 dimensions "
                                f"(shape {tile.shape})")
        axis0, axis1 = 0, 1
    a, b = normalize_axis(axis0, tile.ndim, "axis0"), normalize_axis(axis1, tile.ndim, "axis1")
    axes = list(range(tile.ndim))
    axes[a], axes[b] = b, a
    return _permuted(tile, tuple(axes))


@lowers(lang.cat)
def emit_cat(em: Emitter, tiles: object, axis: object) -> TileValue:
    if not isinstance(tiles, tuple) or not tiles:
        raise TileTypeError(f"cat() expects a tuple of tiles, got {describe(tiles)}")
    if len(tiles) > 2:
        raise TileTypeError(f"cat() supports at most 2 tiles, got {len(tiles)}")
    parts = [as_tile(t, "cat", "tiles") for t in tiles]
    first = parts[0]
    if not first.shape:
        raise TileTypeError("cat() cannot concatenate scalars")
    try:
        axis = normalize_axis(axis, first.ndim)
    except TileValueError as e:  # cuTile reports a bad cat axis as a type error
        raise TileTypeError(e.message) from None
    if len(parts) == 1:
        return first
    second = parts[1]
    _check_cat_pair(first, second, axis)
    shape = tuple(2 * s if d == axis else s for d, s in enumerate(first.shape))
    return build.op("cat", [first, second], first.dtype, shape, axis=axis)


def _check_cat_pair(first: TileValue, second: TileValue, axis: int) -> None:
    """cuTile's rules and messages; tilelang concatenates tiles of one shape only."""
    if second.dtype is not first.dtype:
        raise TileTypeError(f"Expected tiles to have the same dtype, got {first.dtype.name} and "
                            f"{second.dtype.name}")
    if second.ndim != first.ndim:
        raise TileTypeError(f"Expected tiles to have the same rank, got shapes {first.shape} and "
                            f"{second.shape}")
    if any(a != b for d, (a, b) in enumerate(zip(first.shape, second.shape, strict=True))
           if d != axis):
        raise TileTypeError("Expected tiles to have the same shape for non axis dimensions, got "
                            f"{first.shape} and {second.shape}")
    total = first.shape[axis] + second.shape[axis]
    if total & (total - 1):
        raise TileTypeError(f"Result tile shape must be power of 2 along axis {axis}, got "
                            f"{first.shape} and {second.shape}")
    if second.shape != first.shape:
        raise TileUnsupportedFeatureError(
            f"cat() of tiles of different sizes along axis {axis} ({first.shape} and "
            f"{second.shape}) is not supported yet", hint="concatenate tiles of one shape")


def _subtile_index(fn: str, tile: TileValue, sub: tuple[int, ...],
                   index: object) -> list[TileValue]:
    """Check that `sub` splits `tile` into sub-tiles and `index` picks one; the index operands
    (one integer scalar per dim, all of one type)."""
    if len(sub) != tile.ndim:
        raise TileTypeError(f"{fn}(): the sub-tile shape {sub} does not match the tile rank "
                            f"{tile.ndim} (tile shape {tile.shape})")
    for k, (size, part) in enumerate(zip(tile.shape, sub, strict=True)):
        if size % part:
            raise TileTypeError(f"{fn}(): tile shape {tile.shape} is not divisible by the "
                                f"sub-tile shape {sub} (dimension {k})")
        if part != size and part & (part - 1):
            raise TileValueError(f"{fn}(): the sub-tile size {part} along dimension {k} must be "
                                 f"a power of two (or the whole dimension, {size})")
    index = as_tuple(index)
    if len(index) != tile.ndim:
        raise TileTypeError(f"{fn}(): the index {describe(index)} does not match the tile rank "
                            f"{tile.ndim}")
    values = []
    for k, i in enumerate(index):
        count = tile.shape[k] // sub[k]
        if isinstance(i, int) and not isinstance(i, bool) and not 0 <= i < count:
            raise TileTypeError(f"{fn}(): index {i} along dimension {k} is out of bounds: "
                                f"the tile holds {count} sub-tiles of size {sub[k]} there")
        values.append(index_scalar(i, f"each {fn}() index"))
    if any(v.dtype is dt.int64 for v in values):  # the index operands share one type
        values = [build.cast(v, dt.int64) for v in values]
    return values


@lowers(lang.extract)
def emit_extract(em: Emitter, x: object, index: object, shape: object) -> TileValue:
    tile = as_tile(x, "extract")
    if not tile.shape:
        raise TileTypeError("extract() needs a tile, got a scalar")
    scalar = shape == ()  # one element, as a scalar (cuTile)
    sub = (1,) * tile.ndim if scalar else check_shape(as_tuple(shape), "extract() shape")
    indices = _subtile_index("extract", tile, sub, index)
    if sub == tile.shape:
        return build.reshape(tile, ()) if scalar else tile
    result = ops.create("extract", [tile.value, *(i.value for i in indices)],
                        [tensor_type(sub, tile.dtype)])
    part = TileValue(result.result, tile.dtype, sub)
    return build.reshape(part, ()) if scalar else part


@lowers(lang.insert)
def emit_insert(em: Emitter, x: object, index: object, value: object) -> TileValue:
    tile = as_tile(x, "insert")
    if not tile.shape:
        raise TileTypeError("insert() needs a tile, got a scalar")
    part = value if isinstance(value, TileValue) else build.to_tile(value, tile.dtype)
    if part.dtype is not tile.dtype:
        raise TileTypeError(f"Cannot insert a tile of dtype {part.dtype.name} into a tile of "
                            f"dtype {tile.dtype.name}")
    if not part.shape:
        part = build.reshape(part, (1,) * tile.ndim)
    indices = _subtile_index("insert", tile, part.shape, index)
    if part.shape == tile.shape:
        return part
    operands = [tile.value, part.value, *(i.value for i in indices)]
    result = ops.create("insert", operands, [tensor_type(tile.shape, tile.dtype)])
    return TileValue(result.result, tile.dtype, tile.shape)


@lowers(lang.bitcast)
def emit_bitcast(em: Emitter, x: object, dtype: object) -> TileValue:
    tile = as_tile(x, "bitcast")
    target = as_dtype(dtype)
    if dt.bool_ in (tile.dtype, target):
        raise TileTypeError(f"bitcast() does not convert from or to bool "
                            f"({tile.dtype.name} to {target.name})")
    if tile.dtype.bitwidth != target.bitwidth:
        raise TileTypeError(f"bitcast() from {tile.dtype.name} ({tile.dtype.bitwidth} bits) to "
                            f"{target.name} ({target.bitwidth} bits): the widths differ")
    if target is tile.dtype:
        return tile
    return build.op("bitcast", [tile], target, tile.shape)
