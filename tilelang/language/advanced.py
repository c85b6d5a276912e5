"""Language: loads and stores of several rows (or columns) picked by an index tile."""

from __future__ import annotations

from typing import Any

from tilelang.language.enums import PaddingMode
from tilelang.language.stub import stub


class Slice:
    """A dense range `[start, start + length)` of one dimension in `load_advanced_indexing`
    and `store_advanced_indexing`: `start` may be a run-time integer, `length` is a constant
    power of two."""

    def __init__(self, start: Any, length: int, /) -> None:
        self.start, self.length = start, length

    def __repr__(self) -> str:
        return f"Slice({self.start!r}, {self.length!r})"


@stub
def load_advanced_indexing(array: Any, indices: Any, /, *,
                           padding_mode: PaddingMode = PaddingMode.UNDETERMINED,
                           latency: Any = None, allow_tma: Any = None) -> Any:
    """A tile of `array` where exactly one entry of `indices` is a 1-d integer tile (the rows,
    say, each an element index) and every other a `Slice`; the result's shape is the index
    tile's length along that dimension and the slices' lengths along the others. Elements
    outside the array read the padding value.

    Example:
        >>> t = tilelang.load_advanced_indexing(x, (rows, tilelang.Slice(c0, 64)))
    """


@stub
def store_advanced_indexing(array: Any, indices: Any, tile: Any, /, *, latency: Any = None,
                            allow_tma: Any = None) -> None:
    """Store `tile` (of exactly the shape the indices imply) where load_advanced_indexing
    would read it; elements outside the array are dropped."""
