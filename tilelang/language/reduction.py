"""Language: reductions and scans over tile axes."""

from __future__ import annotations

from collections.abc import Callable

from tilelang.language.enums import RoundingMode
from tilelang.language.stub import stub
from tilelang.language.tile import Axis, Tile, TileLike

Combiner = Callable[..., TileLike | tuple[TileLike, ...]]
"""A combining function of `reduce` and `scan`: scalars in, a scalar (or a tuple) out."""
Identity = int | float | tuple[int | float, ...]


@stub
def sum(x: Tile, /, axis: Axis = None, *, keepdims: bool = False,
        rounding_mode: RoundingMode | None = None, flush_to_zero: bool = False) -> Tile:
    """The sum of `x` along `axis` (an int, a tuple of ints, or None for all axes).

    float16 and bfloat16 tiles are summed in float32 and the result rounded once.

    Example:
        >>> row_sums = tilelang.sum(t, axis=1, keepdims=True)
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def prod(x: Tile, /, axis: Axis = None, *, keepdims: bool = False,
         rounding_mode: RoundingMode | None = None, flush_to_zero: bool = False) -> Tile:
    """The product of `x` along `axis` (float16/bfloat16 multiplied in float32)."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def max(x: Tile, /, axis: Axis = None, *, keepdims: bool = False, flush_to_zero: bool = False,
        propagate_nan: bool = False) -> Tile:
    """The largest element of `x` along `axis`; NaNs are ignored unless `propagate_nan`."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def min(x: Tile, /, axis: Axis = None, *, keepdims: bool = False, flush_to_zero: bool = False,
        propagate_nan: bool = False) -> Tile:
    """The smallest element of `x` along `axis`; NaNs are ignored unless `propagate_nan`."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def argmax(x: Tile, /, axis: Axis = None, *, keepdims: bool = False,
           propagate_nan: bool = False) -> Tile:
    """The int32 index of the largest element along `axis` (one int or None: the flat index);
    ties give the first index, as NumPy does."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def argmin(x: Tile, /, axis: Axis = None, *, keepdims: bool = False,
           propagate_nan: bool = False) -> Tile:
    """The int32 index of the smallest element along `axis` (first index on ties)."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def reduce(x: Tile | tuple[Tile, ...], /, axis: Axis, func: Combiner,
           identity: Identity, *, keepdims: bool = False) -> Tile | tuple[Tile, ...]:
    """Combine `x` (a tile or a tuple of tiles) along `axis` with `func`, an associative
    function of two groups of scalars (`func(a, b)`, or `func(a0, a1, b0, b1)` for a pair) whose
    `identity` (a scalar or a tuple) leaves a value unchanged.

    Example:
        >>> def add(a, b):
        ...     return a + b
        >>> total = tilelang.reduce(t, axis=0, func=add, identity=0)
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def cumsum(x: Tile, /, axis: int = 0, *, reverse: bool = False,
           rounding_mode: RoundingMode | None = None, flush_to_zero: bool = False) -> Tile:
    """Inclusive running sum along `axis` (from the end when `reverse`).

    Example:
        >>> offsets = tilelang.cumsum(counts, axis=0)
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def cumprod(x: Tile, /, axis: int = 0, *, reverse: bool = False,
            rounding_mode: RoundingMode | None = None, flush_to_zero: bool = False) -> Tile:
    """Inclusive running product along `axis` (from the end when `reverse`)."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def scan(x: Tile | tuple[Tile, ...], /, axis: int, func: Combiner, identity: Identity, *,
         reverse: bool = False) -> Tile | tuple[Tile, ...]:
    """Inclusive scan of `x` (a tile or a tuple of tiles) along `axis` with the associative
    `func` and its `identity`, as in `reduce`."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits
