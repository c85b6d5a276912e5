"""Language: `Tile` and `Scalar`, the types of kernel values, for annotations (as cuTile's).

Kernels never construct them: `def helper(t: tilelang.Tile, n: tilelang.Scalar) -> Tile` says
what a helper takes. Inside `static_eval`, a kernel's tiles and scalars are instances of `Tile`
(`isinstance(x, tilelang.Tile)`), as cuTile's proxies are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# Set by the front end (frontend/values.py): whether an object is one of its tile values.
IS_TILE: list[Callable[[Any], bool] | None] = [None]


class _TileType(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        check = IS_TILE[0]
        return (check is not None and check(obj)) or type.__instancecheck__(cls, obj)


class Tile(metaclass=_TileType):
    """An immutable N-d value of one dtype with a compile-time shape, held by the block as a
    whole; a scalar is a 0-d tile.

    What a tile offers in a kernel: `dtype`, `shape` and `ndim` (constants); the methods
    `astype`, `reshape`, `item` (a one-element tile as a scalar), `expand_dims`,
    `broadcast_to`, `permute`, `transpose`, `extract` and `insert` (as the functions of the
    same names); Python's operators (`+ - * / // % ** & | ^ ~ << >> @`, comparisons, unary
    `-`), and `t[:, None]` (a new axis).

    Example:
        >>> def scaled(t: tilelang.Tile, s: tilelang.Scalar) -> tilelang.Tile:
        ...     return t * s
    """


Scalar = int | float | Tile
"""A scalar: a Python `int` or `float`, or a kernel's 0-d tile (for annotations)."""
