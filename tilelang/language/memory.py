"""Language: loading tiles from arrays and storing tiles into arrays."""

from __future__ import annotations

from tilelang.language.enums import PaddingMode
from tilelang.language.stub import stub
from tilelang.language.tile import Index, Shape, Tile, TileLike
from tilelang.language.views import Array


@stub
def load(
    array: Array,
    /,
    index: Index,
    shape: Shape,
    *,
    order: str | tuple[int, ...] = "C",
    padding_mode: PaddingMode = PaddingMode.UNDETERMINED,
    check_bounds: bool = True,
    latency: int | None = None,
    allow_tma: bool | None = None,
) -> Tile:
    """Load the tile at tile coordinates `index` of `array` split into tiles of `shape`.

    `t[x, y] = array[i * shape[0] + x, j * shape[1] + y]`; elements outside the array take the
    `padding_mode` value. `order` ("C", "F" or a permutation) maps tile axes to array axes, so
    `order=(1, 0)` loads a transposed tile. `check_bounds` (a constant bool; False promises
    the tile lies inside the array, as in cuTile), `latency` and `allow_tma` are accepted hints:
    bounds are always checked.

    Example:
        >>> zero = tilelang.PaddingMode.ZERO
        >>> t = tilelang.load(x, index=(i, j), shape=(64, 64), padding_mode=zero)
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def store(
    array: Array,
    /,
    index: Index,
    tile: TileLike,
    *,
    order: str | tuple[int, ...] = "C",
    check_bounds: bool = True,
    latency: int | None = None,
    allow_tma: bool | None = None,
) -> None:
    """Store `tile` at tile coordinates `index` of `array`; elements outside the array are dropped.

    `check_bounds`, `latency` and `allow_tma` are accepted hints, as for `load`.

    The tile is cast to the array's dtype only when that is lossless (use `astype` otherwise); a
    scalar is stored as a tile of ones shape.

    Example:
        >>> tilelang.store(y, index=(i,), tile=t)
    """
