"""Language: loading tiles from arrays and storing tiles into arrays."""

from __future__ import annotations

from typing import Any

from tilelang.language.enums import PaddingMode
from tilelang.language.stub import stub


@stub
def load(
    array: Any,
    /,
    index: Any,
    shape: Any,
    *,
    order: Any = "C",
    padding_mode: PaddingMode = PaddingMode.UNDETERMINED,
    latency: int | None = None,
    allow_tma: bool | None = None,
) -> Any:
    """Load the tile at tile coordinates `index` of `array` split into tiles of `shape`.

    `t[x, y] = array[i * shape[0] + x, j * shape[1] + y]`; elements outside the array take the
    `padding_mode` value. `order` ("C", "F" or a permutation) maps tile axes to array axes, so
    `order=(1, 0)` loads a transposed tile. `latency` and `allow_tma` are accepted hints.

    Example:
        >>> zero = tilelang.PaddingMode.ZERO
        >>> t = tilelang.load(x, index=(i, j), shape=(64, 64), padding_mode=zero)
    """


@stub
def store(
    array: Any,
    /,
    index: Any,
    tile: Any,
    *,
    order: Any = "C",
    latency: int | None = None,
    allow_tma: bool | None = None,
) -> None:
    """Store `tile` at tile coordinates `index` of `array`; elements outside the array are dropped.

    The tile is cast to the array's dtype only when that is lossless (use `astype` otherwise); a
    scalar is stored as a tile of ones shape.

    Example:
        >>> tilelang.store(y, index=(i,), tile=t)
    """
