"""Front end: astile and divmod, built from existing tile operations."""

from __future__ import annotations

import builtins
import math
from typing import TYPE_CHECKING, Any

from tilelang.errors import TileTypeError
from tilelang.frontend import build, operators
from tilelang.frontend.builtins.common import as_dtype
from tilelang.frontend.builtins.registry import lowers
from tilelang.frontend.semantics import describe
from tilelang.frontend.values import TileValue, is_loose
from tilelang.language import compose as lang
from tilelang.language import dtypes as dt

if TYPE_CHECKING:
    from tilelang.frontend.emitter import Emitter


@lowers(lang.divmod)
def emit_divmod(em: Emitter, x: object, y: object) -> tuple[Any, Any]:
    """cuTile's rules: no bool pair; floats only as two constants (folded as Python does)."""
    if all(_dtype_of(v) is dt.bool_ for v in (x, y)):
        raise TileTypeError("divmod() operation does not support bool")
    dtype = operators.binary_dtype("floordiv", x, y)
    if dtype is not None and dtype.is_float:
        raise TileTypeError("divmod() is not implemented for floating point values",
                            hint="use x // y and x % y")
    return operators.binary("floordiv", x, y), operators.binary("mod", x, y)


def _dtype_of(value: object) -> object:
    if isinstance(value, TileValue):
        return value.dtype
    return dt.bool_ if isinstance(value, bool) else None


@lowers(builtins.divmod, raw=True)
def emit_builtin_divmod(em: Emitter, x: object, y: object) -> tuple[Any, Any]:
    return emit_divmod(em, x, y)


@lowers(lang.astile)
def emit_astile(em: Emitter, value: object, dtype: object) -> TileValue:
    """cuTile's rules and messages: a scalar, or nested tuples of scalars whose lengths are
    powers of two and whose siblings have one shape; constants convert as astype does."""
    dtype = as_dtype(dtype)
    if not isinstance(value, tuple):
        if not _is_scalar(value):
            raise TileTypeError("Expected a scalar or (possibly nested) tuple of scalars; got "
                                f"{describe(value)}")
        return operators.astype(value, dtype)
    shape = _shape(value, ())
    items = [operators.astype(v, dtype) for v in _flatten(value)]  # 2.5 as a bool is True
    # element i of the flat tile is items[i]: a select chain over a row-major index
    index = build.op("arange", [], dt.int32, (math.prod(shape),))
    tile = build.splat(items[0], index.shape)
    for i, item in enumerate(items[1:], start=1):
        here = operators.compare("equal", index, i)
        tile = operators.where(here, item, tile)
    return build.reshape(tile, shape)


def _shape(value: object, path: tuple[int, ...]) -> tuple[int, ...]:
    """The shape of nested tuple `value` at `path` (cuTile's checks, in its order)."""
    where = "value" + "".join(f"[{i}]" for i in path)
    if not isinstance(value, tuple):
        if not _is_scalar(value):
            raise TileTypeError(f"Expected scalar elements at {where}; got {describe(value)}")
        return ()
    n = len(value)
    if n == 0 or n & (n - 1):
        raise TileTypeError(f"Tuple length {n} at {where} is not a power of 2")
    shapes = {_shape(v, (*path, i)) for i, v in enumerate(value)}
    if len(shapes) != 1:
        raise TileTypeError(f"Tuple has non-uniform inner shapes at {where}")
    return (n, *shapes.pop())


def _is_scalar(value: object) -> bool:
    return is_loose(value) or (isinstance(value, TileValue) and not value.shape)


def _flatten(value: object) -> list[Any]:
    if isinstance(value, tuple):
        return [item for v in value for item in _flatten(v)]
    return [value]
