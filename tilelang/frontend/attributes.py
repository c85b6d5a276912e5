"""Front end: attributes of tiles (`.shape`, `.dtype`, methods), arrays and Python objects."""

from __future__ import annotations

import enum
import types
from typing import Any

from tilelang.errors import TileTypeError, TileUnsupportedFeatureError, did_you_mean
from tilelang.frontend import build
from tilelang.frontend import values as frontend_values
from tilelang.frontend.semantics import describe
from tilelang.frontend.values import (
    ArrayValue,
    BoundMethod,
    RawMemoryValue,
    TiledViewValue,
    TileValue,
    is_loose,
)
from tilelang.language import views
from tilelang.language.dtypes import DType
from tilelang.language.future import NOT_YET

TILE_METHODS = ("astype", "reshape", "item", "expand_dims", "broadcast_to", "permute", "transpose",
                "extract", "insert")
FUTURE_TILE_METHODS: tuple[str, ...] = ()
ARRAY_METHODS = ("slice", "tiled_view", "get_raw_memory")
RAW_METHODS = tuple(n for n in vars(views.RawArrayMemory) if n.endswith("_offset"))
VIEW_METHODS = ("num_tiles", "load", "store", "atomic_store_add", "atomic_store_max",
                "atomic_store_min", "atomic_store_and", "atomic_store_or", "atomic_store_xor")


def get_attribute(obj: object, name: str) -> Any:
    if isinstance(obj, TileValue):
        return _tile_attribute(obj, name)
    if isinstance(obj, ArrayValue):
        return _array_attribute(obj, name)
    if isinstance(obj, TiledViewValue):
        return _view_attribute(obj, name)
    if isinstance(obj, RawMemoryValue):
        return _raw_attribute(obj, name)
    if isinstance(obj, dict) and name in ("get", "keys", "values", "items"):
        return getattr(obj, name)
    if isinstance(obj, types.ModuleType | type | DType | enum.Enum):
        try:
            return getattr(obj, name)
        except AttributeError:
            if isinstance(obj, types.ModuleType) and name in NOT_YET:
                raise TileUnsupportedFeatureError(
                    f"`{_name_of(obj)}.{name}` (part of cuTile's API) is not supported by "
                    "tilelang yet") from None
            if isinstance(obj, types.ModuleType):  # cuTile's message, with the module's name
                hint = did_you_mean(name, _public(obj), quote="'")  # as Python's
                raise TileTypeError(f"Module '{obj.__name__}' has no attribute '{name}'{hint}"
                                    ) from None
            raise TileTypeError(f"{_name_of(obj)} has no attribute `{name}`"
                                f"{did_you_mean(name, _public(obj))}") from None
    loose = is_loose(obj) and not isinstance(obj, bool)
    if loose and name in TILE_METHODS:
        return BoundMethod(build.to_tile(obj), name)  # a number is a 0-d tile (`n.astype(...)`)
    raise TileTypeError(f"{describe(obj)} has no attribute `{name}` usable in a kernel"
                        f"{did_you_mean(name, TILE_METHODS if loose else ())}")


def _public(obj: object) -> list[str]:
    """The names a misspelt attribute of a module, class or dtype may have meant."""
    return [n for n in dir(obj) if not n.startswith("_")]


def _no_attribute(what: str, name: str, attributes: tuple[str, ...]) -> TileTypeError:
    return TileTypeError(f"{what} has no attribute `{name}`{did_you_mean(name, attributes)}")


def _name_of(obj: object) -> str:
    return getattr(obj, "__name__", None) or repr(obj)


def _tile_attribute(tile: TileValue, name: str) -> object:
    if name == "shape":
        return tile.shape
    if name == "dtype":
        return tile.dtype
    if name == "ndim":
        return tile.ndim
    if name in TILE_METHODS:
        return BoundMethod(tile, name)
    if name in FUTURE_TILE_METHODS:
        raise TileUnsupportedFeatureError(f"Tile.{name} is not supported yet")
    raise _no_attribute("a tile", name, ("shape", "dtype", "ndim", *TILE_METHODS))


def _array_attribute(array: ArrayValue, name: str) -> object:
    if name == "shape":
        return tuple(_array_query("dim", array, d) for d in range(array.ndim))
    if name == "strides":
        return tuple(_array_query("stride", array, d) for d in range(array.ndim))
    if name == "dtype":
        return array.dtype
    if name == "ndim":
        return array.ndim
    if name in ARRAY_METHODS:
        return BoundMethod(array, name, getattr(views.Array, name))
    raise _no_attribute("an array", name, ("shape", "strides", "dtype", "ndim", *ARRAY_METHODS))


def _view_attribute(view: TiledViewValue, name: str) -> object:
    if name == "dtype":
        return view.array.dtype
    if name == "tile_shape":
        return view.tile_shape
    if name == "traversal_steps":
        return view.steps
    if name in VIEW_METHODS:
        return BoundMethod(view, name, getattr(views.TiledView, name))
    raise _no_attribute("a tiled view", name,
                        ("dtype", "tile_shape", "traversal_steps", *VIEW_METHODS))


def _raw_attribute(raw: RawMemoryValue, name: str) -> object:
    if name == "dtype":
        return raw.flat.dtype
    if name in RAW_METHODS:
        return BoundMethod(raw, name, getattr(views.RawArrayMemory, name))
    raise _no_attribute("raw array memory", name, ("dtype", *RAW_METHODS))


def _array_query(op: str, array: ArrayValue, dim: int) -> TileValue | int:
    """An extent or stride: a constant when compiled in (ArrayAnnotation), else a scalar of the
    array's index dtype."""
    from tilelang.dialect import ops, tensor_type

    known = array.static_shape if op == "dim" else array.static_strides
    if known and known[dim] is not None:
        return known[dim]  # type: ignore[return-value]
    dtype = array.index_dtype
    result = ops.create(op, [array.value], [tensor_type((), dtype)], dim=dim)
    return TileValue(result.result, dtype, ())


__all__ = ["build", "get_attribute"]


frontend_values.STATIC.attribute = get_attribute  # static_eval's `t.shape`, `t.reshape`, ...
