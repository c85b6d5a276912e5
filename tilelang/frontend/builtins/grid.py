"""Front end: emitters for bid, num_blocks, num_tiles and cdiv."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tilelang.errors import TileTypeError, TileValueError
from tilelang.frontend import build, operators
from tilelang.frontend.builtins.common import as_array, const_int
from tilelang.frontend.builtins.memory import tile_order
from tilelang.frontend.builtins.registry import lowers
from tilelang.frontend.semantics import check_shape, normalize_axis
from tilelang.frontend.values import ArrayValue, TileValue, is_loose
from tilelang.language import dtypes as dt
from tilelang.language import grid as lang

if TYPE_CHECKING:
    from tilelang.frontend.emitter import Emitter


def _axis(axis: object) -> int:
    axis = const_int(axis, "axis")
    if axis not in (0, 1, 2):
        raise TileValueError(f"axis must be 0, 1 or 2, got {axis}")
    return axis


@lowers(lang.bid)
def emit_bid(em: Emitter, axis: object) -> TileValue:
    return build.op("bid", [], dt.int32, (), axis=_axis(axis))


@lowers(lang.num_blocks)
def emit_num_blocks(em: Emitter, axis: object) -> TileValue:
    return build.op("num_blocks", [], dt.int32, (), axis=_axis(axis))


@lowers(lang.num_tiles)
def emit_num_tiles(em: Emitter, array: object, axis: object, shape: object,
                   order: object) -> object:
    array = as_array(array, "num_tiles")
    shape = check_shape(shape, ndim=array.ndim) if shape != () else (1,) * array.ndim  # as load
    axis = normalize_axis(axis, array.ndim)
    order = tile_order(order, array.ndim)
    return cdiv(_dim(array, order[axis]), shape[axis])


def _dim(array: ArrayValue, dim: int) -> TileValue | int:
    from tilelang.frontend.attributes import _array_query

    return _array_query("dim", array, dim)


@lowers(lang.cdiv)
def emit_cdiv(em: Emitter, x: object, y: object) -> object:
    return cdiv(x, y)


def cdiv(x: Any, y: Any) -> object:
    if is_loose(x) and is_loose(y):
        return operators.fold(lang.cdiv, x, y)
    for v in (x, y):
        if isinstance(v, float) or (isinstance(v, TileValue) and not v.dtype.is_integer):
            raise TileTypeError("cdiv() requires integer operands")
    # exact for every sign and width, as cuTile's rounding-up division: x // y, plus one where
    # the remainder is not zero (no x + y - 1 that could overflow)
    quotient, remainder = operators.binary("floordiv", x, y), operators.binary("mod", x, y)
    inexact = operators.compare("not_equal", remainder, 0)
    return operators.binary("add", quotient, operators.astype(inexact, quotient.dtype))
