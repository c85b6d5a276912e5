"""Runtime: a launch's grid as three positive ints (x, y, z)."""

from __future__ import annotations

from typing import Any

from tilelang.errors import TileArgumentError


def normalize_grid(grid: Any) -> tuple[int, int, int]:
    if isinstance(grid, int) and not isinstance(grid, bool):
        grid = (grid,)
    if not isinstance(grid, tuple | list) or len(grid) > 3:
        raise TileArgumentError(f"grid must be a tuple of up to 3 ints, got {grid!r}")
    if not all(isinstance(g, int) and not isinstance(g, bool) and g > 0 for g in grid):
        raise TileArgumentError(f"grid sizes must be positive ints, got {tuple(grid)}")
    return (*grid, *(1,) * (3 - len(grid)))  # type: ignore[return-value]
