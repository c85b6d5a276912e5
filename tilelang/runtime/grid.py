"""Runtime: a launch's grid as three positive ints (x, y, z), within CUDA's limits on every
backend."""

from __future__ import annotations

from tilelang.errors import TileArgumentError, TileLaunchError

# Blocks along x, y and z: CUDA's gridDim limits (compute capability 3.0 and later). The
# interpreter applies them too, so that a grid runs there only if it would run on the GPU.
MAX_GRID = (2**31 - 1, 65535, 65535)


def normalize_grid(grid: object) -> tuple[int, int, int]:
    """The grid as (x, y, z), missing axes 1; a `TileArgumentError` for what is not 1-3
    positive ints, a `TileLaunchError` for a grid over CUDA's limits."""
    if isinstance(grid, int) and not isinstance(grid, bool):
        grid = (grid,)
    if not isinstance(grid, tuple | list) or len(grid) > 3:
        raise TileArgumentError(f"grid must be a tuple of up to 3 ints, got {grid!r}")
    if not all(isinstance(g, int) and not isinstance(g, bool) and g > 0 for g in grid):
        raise TileArgumentError(f"grid sizes must be positive ints, got {tuple(grid)}")
    full: tuple[int, int, int] = (*grid, *(1,) * (3 - len(grid)))
    check_grid_limits(full)
    return full


def check_grid_limits(grid: tuple[int, int, int]) -> None:
    """Raise `TileLaunchError` naming the first axis of `grid` over CUDA's limit."""
    for axis, (size, limit) in enumerate(zip(grid, MAX_GRID, strict=True)):
        if size > limit:
            raise TileLaunchError(
                f"grid {grid} has {size} blocks along {'xyz'[axis]} (axis {axis}); a grid "
                f"allows at most {limit} along {'xyz'[axis]} (2^31 - 1 along x, 65535 along y "
                "and z), on the GPU and on the interpreter",
                hint="launch fewer, larger blocks, or put the long axis first (x), or loop "
                     "over the rest inside the kernel",
            )
