"""Language: loads and stores of several rows (or columns) picked by an index tile."""

from __future__ import annotations

from tilelang.language.enums import PaddingMode
from tilelang.language.stub import stub
from tilelang.language.tile import Tile, TileLike
from tilelang.language.views import Array


class Slice:
    """A dense range `[start, start + length)` of one dimension in `load_advanced_indexing`
    and `store_advanced_indexing`: `start` may be a run-time integer, `length` is a constant
    power of two."""

    def __init__(self, start: int | Tile, length: int, /) -> None:
        self.start, self.length = start, length

    def __repr__(self) -> str:
        return f"Slice({self.start!r}, {self.length!r})"


@stub
def load_advanced_indexing(array: Array, indices: tuple[Tile | Slice, ...], /, *,
                           padding_mode: PaddingMode = PaddingMode.UNDETERMINED,
                           latency: int | None = None, allow_tma: bool | None = None) -> Tile:
    """A tile of `array` where exactly one entry of `indices` is a 1-d integer tile (the rows,
    say, each an element index) and every other a `Slice`; the result's shape is the index
    tile's length along that dimension and the slices' lengths along the others. Elements
    outside the array read the padding value.

    Example:
        >>> t = tilelang.load_advanced_indexing(x, (rows, tilelang.Slice(c0, 64)))
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def store_advanced_indexing(array: Array, indices: tuple[Tile | Slice, ...], tile: TileLike, /, *,
                            latency: int | None = None,
                            allow_tma: bool | None = None) -> None:
    """Store `tile` (of exactly the shape the indices imply) where load_advanced_indexing
    would read it; elements outside the array are dropped."""
