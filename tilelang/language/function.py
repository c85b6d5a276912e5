"""Language: `@function`, cuTile's marker for helpers meant to be called from kernels."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any


def function(func: Callable[..., Any] | None = None, /, *, host: bool = False,
             tile: bool = True) -> Any:
    """Mark `func` as a tile function: kernels call it like any helper (it is inlined).

    With `host=True` it stays callable from Python too; otherwise calling it outside a kernel
    raises RuntimeError. Plain, undecorated helpers work in kernels as well.
    """

    def decorate(fn: Callable[..., Any]) -> Any:
        if host:
            return fn

        @functools.wraps(fn)
        def host_call(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("Device functions can only be called from device code.")

        host_call.__tilelang_function__ = fn  # type: ignore[attr-defined]
        return host_call

    return decorate if func is None else decorate(func)


def tile_function(obj: Any) -> Callable[..., Any] | None:
    """The helper a `@function` wrapper stands for, or None if `obj` is not one."""
    return getattr(obj, "__tilelang_function__", None)
