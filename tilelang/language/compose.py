"""Language: tiles made from scalars, and quotient-remainder pairs."""

from __future__ import annotations

from tilelang.language.dtypes import DTypeLike
from tilelang.language.stub import stub
from tilelang.language.tile import Tile, TileLike


@stub
def astile(value: TileLike | tuple, /, *, dtype: DTypeLike) -> Tile:
    """A tile of `dtype` from a scalar (a 0-d tile) or a nested tuple of scalars, constants or
    run-time ones, whose nesting gives the shape (power-of-two lengths, siblings of one length).

    Example:
        >>> t = tilelang.astile(((1, 2), (3, n)), dtype=tilelang.int32)
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def divmod(x: TileLike, y: TileLike, /) -> tuple[TileLike, TileLike]:
    """`(x // y, x % y)`, element-wise with broadcasting and promotion (Python's rounding);
    the builtin `divmod(x, y)` is the same in a kernel."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits
