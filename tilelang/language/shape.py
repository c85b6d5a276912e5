"""Language: reshaping and broadcasting tiles."""

from __future__ import annotations

from tilelang.language.dtypes import DTypeLike
from tilelang.language.stub import stub
from tilelang.language.tile import Index, Shape, Tile, TileLike


@stub
def reshape(x: TileLike, /, shape: Shape) -> Tile:
    """`x` with a new shape of the same size, in row-major order; one dimension may be -1.

    Example:
        >>> t = tilelang.reshape(x, (4, -1))
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def expand_dims(x: TileLike, /, axis: int) -> Tile:
    """`x` with a new dimension of size 1 at `axis` (negative counts from the end)."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def broadcast_to(x: TileLike, /, shape: Shape) -> Tile:
    """`x` broadcast to `shape` by NumPy rules.

    Example:
        >>> rows = tilelang.broadcast_to(bias[None, :], (64, 128))
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def permute(x: TileLike, /, axes: tuple[int, ...]) -> Tile:
    """`x` with its dimensions reordered: dimension i of the result is dimension axes[i] of `x`
    (like numpy.transpose(x, axes)).

    Example:
        >>> t = tilelang.permute(x, (2, 0, 1))  # (A, B, C) -> (C, A, B)
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def transpose(x: TileLike, /, axis0: int | None = None, axis1: int | None = None) -> Tile:
    """`x` with dimensions axis0 and axis1 swapped. A 2-d tile's two dimensions are swapped when
    neither axis is given; a tile of more dimensions needs both.

    Example:
        >>> t = tilelang.transpose(x)  # (M, N) -> (N, M)
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def cat(tiles: Tile | tuple[Tile, ...], /, axis: int) -> Tile:
    """The pair of tiles `tiles` (same shape and dtype) concatenated along `axis`, whose size must
    be a power of two. A single tile is returned as it is.

    Example:
        >>> t = tilelang.cat((lo, hi), 0)  # two (4, 8) tiles -> (8, 8)
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def extract(x: TileLike, /, index: Index, shape: Shape) -> Tile:
    """The sub-tile of `shape` at grid position `index` of `x`: `x` is split into sub-tiles of
    `shape` (which must divide x.shape), and index[k] counts sub-tiles, not elements, so the
    result holds the elements index[k] * shape[k] ... (index[k] + 1) * shape[k] - 1 along each
    dimension k. The index may be known only at run time.

    Example:
        >>> right = tilelang.extract(x, (0, 1), shape=(64, 32))  # columns 32..63 of a (64, 64)
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def insert(x: TileLike, /, index: Index, value: TileLike) -> Tile:
    """`x` with the sub-tile at grid position `index` (as in `extract`, with value.shape as the
    sub-tile shape) replaced by `value`; a scalar `value` replaces one element.
    `extract(insert(x, index, v), index, v.shape)` is `v`. `x` itself is not changed.

    Example:
        >>> x = tilelang.insert(x, (1,), tilelang.zeros((32,), x.dtype))
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def bitcast(x: TileLike, /, dtype: DTypeLike) -> Tile:
    """`x` with its bits read as `dtype`, element by element; both dtypes must have the same
    width (bool is not allowed).

    Example:
        >>> bits = tilelang.bitcast(x, tilelang.uint32)  # float32 -> its IEEE-754 bits
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits
