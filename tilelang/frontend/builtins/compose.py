"""Front end: astile and divmod, built from existing tile operations."""

from __future__ import annotations

import builtins
import math
from typing import Any

from tilelang.errors import TileTypeError, TileValueError
from tilelang.frontend import build, operators
from tilelang.frontend.builtins import lowers
from tilelang.frontend.builtins.common import as_dtype
from tilelang.frontend.semantics import describe
from tilelang.frontend.values import TileValue, is_loose
from tilelang.language import compose as lang
from tilelang.language import dtypes as dt


@lowers(lang.divmod)
def emit_divmod(em: Any, x: Any, y: Any) -> tuple[Any, Any]:
    return operators.binary("floordiv", x, y), operators.binary("mod", x, y)


@lowers(builtins.divmod, raw=True)
def emit_builtin_divmod(em: Any, x: Any, y: Any) -> tuple[Any, Any]:
    return emit_divmod(em, x, y)


@lowers(lang.astile)
def emit_astile(em: Any, value: Any, dtype: Any) -> TileValue:
    dtype = as_dtype(dtype)
    shape = _shape(value)
    items = [_scalar(v, dtype) for v in _flatten(value)]
    if not shape:
        return items[0]
    # element i of the flat tile is items[i]: a select chain over a row-major index
    index = build.op("arange", [], dt.int32, (math.prod(shape),))
    tile = build.splat(items[0], index.shape)
    for i, item in enumerate(items[1:], start=1):
        here = operators.compare("equal", index, i)
        tile = operators.where(here, item, tile)
    return build.reshape(tile, shape)


def _shape(value: Any) -> tuple[int, ...]:
    if not isinstance(value, tuple):
        return ()
    if not value:
        raise TileValueError("astile() needs a non-empty tuple")
    shapes = {_shape(v) for v in value}
    if len(shapes) != 1:
        raise TileValueError(f"astile(): the tuples at one level must have one length, got "
                             f"{sorted(shapes)}")
    n = len(value)
    if n & (n - 1):
        raise TileValueError(f"astile(): every tuple length must be a power of two, got {n}")
    return (n, *shapes.pop())


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, tuple):
        return [item for v in value for item in _flatten(v)]
    return [value]


def _scalar(value: Any, dtype: Any) -> TileValue:
    if is_loose(value):
        return build.constant(value, dtype)
    if isinstance(value, TileValue) and not value.shape:
        return build.cast(value, dtype)
    raise TileTypeError(f"astile() takes scalars (or tuples of them), got {describe(value)}")
