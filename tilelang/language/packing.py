"""Language: a tile's raw bytes, and tiles read back from bytes."""

from __future__ import annotations

from tilelang.language.dtypes import DTypeLike
from tilelang.language.stub import stub
from tilelang.language.tile import Tile


@stub
def pack_to_bytes(x: Tile, /) -> Tile:
    """The bytes of `x` (flattened in row-major order, each element little-endian) as a 1-d
    uint8 tile of `x.size * x.dtype.itemsize` elements.

    Example:
        >>> b = tilelang.pack_to_bytes(t)  # t: (2, 4) int32 -> (32,) uint8
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def unpack_from_bytes(x: Tile, /, dtype: DTypeLike) -> Tile:
    """The inverse of pack_to_bytes: a 1-d uint8 tile read as a 1-d tile of `dtype`.

    Example:
        >>> t = tilelang.unpack_from_bytes(b, tilelang.float32)  # (32,) uint8 -> (8,) float32
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits
