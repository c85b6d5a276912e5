"""Language: block indices, grid size and tile counts."""

from __future__ import annotations

from typing import Any

from tilelang.language.stub import stub


@stub
def bid(axis: int) -> Any:
    """Index of the running block along `axis` (0, 1 or 2) of the grid, as an int32 scalar.

    Example:
        >>> i = tilelang.bid(0)
    """


@stub
def num_blocks(axis: int) -> Any:
    """Number of blocks of the grid along `axis` (0, 1 or 2), as an int32 scalar."""


@stub
def num_tiles(array: Any, /, axis: int, shape: Any, order: Any = "C") -> Any:
    """Number of tiles of `shape` along `axis` of `array`'s tile space: cdiv(extent, shape[axis]).

    Example:
        >>> n = tilelang.num_tiles(x, axis=0, shape=(128,))
    """


def cdiv(x: Any, y: Any, /) -> Any:
    """Ceiling division `(x + y - 1) // y` of integers; works on the host and in kernels.

    Example:
        >>> tilelang.cdiv(1000, 128)
        8
    """
    return -(x // -y)
