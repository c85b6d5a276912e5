"""Language: tiles made from scalars, and quotient-remainder pairs."""

from __future__ import annotations

from typing import Any

from tilelang.language.stub import stub


@stub
def astile(value: Any, /, *, dtype: Any) -> Any:
    """A tile of `dtype` from a scalar (a 0-d tile) or a nested tuple of scalars, constants or
    run-time ones, whose nesting gives the shape (power-of-two lengths, siblings of one length).

    Example:
        >>> t = tilelang.astile(((1, 2), (3, n)), dtype=tilelang.int32)
    """


@stub
def divmod(x: Any, y: Any, /) -> Any:
    """`(x // y, x % y)`, element-wise with broadcasting and promotion (Python's rounding);
    the builtin `divmod(x, y)` is the same in a kernel."""
