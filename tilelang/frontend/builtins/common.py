"""Front end: argument checks shared by the builtin emitters."""

from __future__ import annotations

from typing import Any

from tilelang.dialect.ops import LATENCY_ATTR, NO_TMA_ATTR
from tilelang.errors import TileTypeError, TileValueError
from tilelang.frontend import build
from tilelang.frontend.semantics import describe, invalid_argument, type_str
from tilelang.frontend.values import ArrayValue, TiledViewValue, TileValue, is_loose
from tilelang.language import dtypes as dt
from tilelang.language.dtypes import DType


def as_dtype(obj: Any, what: str = "dtype") -> DType:
    """A tilelang dtype from a tilelang, NumPy or torch dtype (or `bool`/`int`/`float`)."""
    if isinstance(obj, DType):
        return obj
    found = {bool: dt.bool_, int: dt.int32, float: dt.float32}.get(obj)
    if found is None and type(obj).__module__ == "torch":
        found = dt.from_torch(obj)
    if found is None:
        try:
            import numpy as np

            found = dt.from_numpy(np.dtype(obj))
        except TypeError:
            found = None
    if found is None and what == "dtype":  # the builtin's `dtype` argument (cuTile's words)
        raise invalid_argument("dtype", f"Expected a dtype constant such as tilelang.float32, "
                                        f"got {obj!r}")
    if found is None:
        raise TileTypeError(f"{what} must be a dtype such as tilelang.float32, got {obj!r}")
    return found


def as_array(obj: object, fn: str) -> ArrayValue:
    if not isinstance(obj, ArrayValue):
        hint = None
        if isinstance(obj, TiledViewValue):
            hint = "a tiled view is not an array: use its own methods (view.load(index), ...)"
        raise TileTypeError(f"{fn}() expects an array as its first argument, got {describe(obj)}",
                            hint=hint)
    return obj


def as_tile(obj: object, fn: str, param: str = "x") -> TileValue:
    """The builtin's tile argument `param` (a constant becomes a scalar tile)."""
    if not isinstance(obj, TileValue):
        if is_loose(obj):
            return build.to_tile(obj)
        raise invalid_argument(param, f"Expected a tile, but given value has type "
                                      f"{type_str(obj)}")
    return obj


def const_int(obj: object, what: str) -> int:
    if isinstance(obj, bool) or not isinstance(obj, int):
        raise TileTypeError(f"{what} must be a compile-time constant int, got {describe(obj)}")
    return obj


def index_scalar(obj: object, what: str) -> TileValue:
    """A run-time integer scalar used as an index: int32, or int64 when it needs 64 bits."""
    if is_loose(obj) and not isinstance(obj, float | bool):
        return build.to_tile(obj)
    if not isinstance(obj, TileValue) or obj.shape or not obj.dtype.is_integer:
        raise TileTypeError(f"{what} must be an integer scalar, got {describe(obj)}")
    wide = obj.dtype.bitwidth == 64 or obj.dtype is dt.uint32
    return build.cast(obj, dt.int64 if wide else dt.int32)


def as_tuple(obj: object) -> tuple:
    return obj if isinstance(obj, tuple) else (obj,)


def check_latency(value: object) -> None:
    """`latency=` of loads, stores, gathers and scatters: None or a constant int from 1 (little
    memory traffic) to 10 (heavy), as cuTile documents it."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise TileTypeError(f"latency must be a constant int or None, got {describe(value)}")
    if value is not None and not 1 <= value <= 10:
        raise TileValueError(f"latency must be from 1 to 10, got {value}")


def access_hints(latency: object, allow_tma: object) -> dict[str, int]:
    """The attributes of a load's or store's `latency=` and `allow_tma=` hints, checked:
    `latency` None or a constant int from 1 (little memory traffic) to 10 (heavy), as cuTile
    documents it; `allow_tma` None or a constant bool."""
    check_latency(latency)
    if allow_tma is not None and not isinstance(allow_tma, bool):
        raise TileTypeError(f"allow_tma must be a constant bool or None, got "
                            f"{describe(allow_tma)}")
    hints: dict[str, int] = {}
    if isinstance(latency, int):
        hints[LATENCY_ATTR] = latency
    if allow_tma is False:
        hints[NO_TMA_ATTR] = True
    return hints
