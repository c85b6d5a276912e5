"""Language: block indices, grid size and tile counts."""

from __future__ import annotations

from typing import overload

from tilelang.language.stub import stub
from tilelang.language.tile import Shape, Tile, TileLike
from tilelang.language.views import Array


@stub
def bid(axis: int) -> Tile:
    """Index of the running block along `axis` (0, 1 or 2) of the grid, as an int32 scalar.

    Example:
        >>> i = tilelang.bid(0)
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def num_blocks(axis: int) -> Tile:
    """Number of blocks of the grid along `axis` (0, 1 or 2), as an int32 scalar."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def num_tiles(array: Array, /, axis: int, shape: Shape,
              order: str | tuple[int, ...] = "C") -> Tile:
    """Number of tiles of `shape` along `axis` of `array`'s tile space: cdiv(extent, shape[axis]).

    Example:
        >>> n = tilelang.num_tiles(x, axis=0, shape=(128,))
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@overload
def cdiv(x: int, y: int, /) -> int: ...
@overload
def cdiv(x: TileLike, y: TileLike, /) -> TileLike: ...
def cdiv(x: TileLike, y: TileLike, /) -> TileLike:
    """Ceiling division `(x + y - 1) // y` of integers; works on the host and in kernels.

    Example:
        >>> tilelang.cdiv(1000, 128)
        8
    """
    return -(x // -y)
