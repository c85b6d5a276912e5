"""Language: tiles made from constants and scalars."""

from __future__ import annotations

from tilelang.language.dtypes import DTypeLike
from tilelang.language.stub import stub
from tilelang.language.tile import Shape, Tile, TileLike


@stub
def full(shape: Shape, fill_value: TileLike, dtype: DTypeLike) -> Tile:
    """A tile of `shape` whose every element is `fill_value` (a constant or a run-time scalar).

    Example:
        >>> t = tilelang.full((16, 16), 1.5, tilelang.float32)
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def zeros(shape: Shape, dtype: DTypeLike) -> Tile:
    """A tile of `shape` filled with zeros."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def ones(shape: Shape, dtype: DTypeLike) -> Tile:
    """A tile of `shape` filled with ones."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def arange(size: int, /, *, dtype: DTypeLike, start: TileLike = 0, step: int = 1) -> Tile:
    """The 1-D tile `start, start + step, ...` of `size` elements.

    Example:
        >>> offsets = tilelang.arange(128, dtype=tilelang.int32)
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits
