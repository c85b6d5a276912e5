"""Language: reductions and scans over tile axes."""

from __future__ import annotations

from typing import Any

from tilelang.language.stub import stub


@stub
def sum(x: Any, /, axis: Any = None, *, keepdims: bool = False, rounding_mode: Any = None,
        flush_to_zero: bool = False) -> Any:
    """The sum of `x` along `axis` (an int, a tuple of ints, or None for all axes).

    float16 and bfloat16 tiles are summed in float32 and the result rounded once.

    Example:
        >>> row_sums = tilelang.sum(t, axis=1, keepdims=True)
    """


@stub
def prod(x: Any, /, axis: Any = None, *, keepdims: bool = False, rounding_mode: Any = None,
         flush_to_zero: bool = False) -> Any:
    """The product of `x` along `axis` (float16/bfloat16 multiplied in float32)."""


@stub
def max(x: Any, /, axis: Any = None, *, keepdims: bool = False, flush_to_zero: bool = False,
        propagate_nan: bool = False) -> Any:
    """The largest element of `x` along `axis`; NaNs are ignored unless `propagate_nan`."""


@stub
def min(x: Any, /, axis: Any = None, *, keepdims: bool = False, flush_to_zero: bool = False,
        propagate_nan: bool = False) -> Any:
    """The smallest element of `x` along `axis`; NaNs are ignored unless `propagate_nan`."""


@stub
def argmax(x: Any, /, axis: Any = None, *, keepdims: bool = False,
           propagate_nan: bool = False) -> Any:
    """The int32 index of the largest element along `axis` (one int or None: the flat index);
    ties give the first index, as NumPy does."""


@stub
def argmin(x: Any, /, axis: Any = None, *, keepdims: bool = False,
           propagate_nan: bool = False) -> Any:
    """The int32 index of the smallest element along `axis` (first index on ties)."""


@stub
def reduce(x: Any, /, axis: Any, func: Any, identity: Any, *, keepdims: bool = False) -> Any:
    """Combine `x` (a tile or a tuple of tiles) along `axis` with `func`, an associative
    function of two groups of scalars (`func(a, b)`, or `func(a0, a1, b0, b1)` for a pair) whose
    `identity` (a scalar or a tuple) leaves a value unchanged.

    Example:
        >>> def add(a, b):
        ...     return a + b
        >>> total = tilelang.reduce(t, axis=0, func=add, identity=0)
    """


@stub
def cumsum(x: Any, /, axis: int = 0, *, reverse: bool = False, rounding_mode: Any = None,
           flush_to_zero: bool = False) -> Any:
    """Inclusive running sum along `axis` (from the end when `reverse`).

    Example:
        >>> offsets = tilelang.cumsum(counts, axis=0)
    """


@stub
def cumprod(x: Any, /, axis: int = 0, *, reverse: bool = False, rounding_mode: Any = None,
            flush_to_zero: bool = False) -> Any:
    """Inclusive running product along `axis` (from the end when `reverse`)."""


@stub
def scan(x: Any, /, axis: int, func: Any, identity: Any, *, reverse: bool = False) -> Any:
    """Inclusive scan of `x` (a tile or a tuple of tiles) along `axis` with the associative
    `func` and its `identity`, as in `reduce`."""
