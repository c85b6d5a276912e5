"""Language: tiles made from constants and scalars."""

from __future__ import annotations

from typing import Any

from tilelang.language.stub import stub


@stub
def full(shape: Any, fill_value: Any, dtype: Any) -> Any:
    """A tile of `shape` whose every element is `fill_value` (a constant or a run-time scalar).

    Example:
        >>> t = tilelang.full((16, 16), 1.5, tilelang.float32)
    """


@stub
def zeros(shape: Any, dtype: Any) -> Any:
    """A tile of `shape` filled with zeros."""


@stub
def ones(shape: Any, dtype: Any) -> Any:
    """A tile of `shape` filled with ones."""


@stub
def arange(size: Any, /, *, dtype: Any, start: Any = 0, step: Any = 1) -> Any:
    """The 1-D tile `start, start + step, ...` of `size` elements.

    Example:
        >>> offsets = tilelang.arange(128, dtype=tilelang.int32)
    """
