"""Language: reshaping and broadcasting tiles."""

from __future__ import annotations

from typing import Any

from tilelang.language.stub import stub


@stub
def reshape(x: Any, /, shape: Any) -> Any:
    """`x` with a new shape of the same size, in row-major order; one dimension may be -1.

    Example:
        >>> t = tilelang.reshape(x, (4, -1))
    """


@stub
def expand_dims(x: Any, /, axis: int) -> Any:
    """`x` with a new dimension of size 1 at `axis` (negative counts from the end)."""


@stub
def broadcast_to(x: Any, /, shape: Any) -> Any:
    """`x` broadcast to `shape` by NumPy rules.

    Example:
        >>> rows = tilelang.broadcast_to(bias[None, :], (64, 128))
    """
