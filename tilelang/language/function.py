"""Language: `@function`, cuTile's marker for helpers meant to be called from kernels."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NoReturn, ParamSpec, TypeVar, overload

P = ParamSpec("P")
R = TypeVar("R")


@overload
def function(func: Callable[P, R], /, *, host: bool = False,
             tile: bool = True) -> Callable[P, R]: ...
@overload
def function(func: None = None, /, *, host: bool = False,
             tile: bool = True) -> Callable[[Callable[P, R]], Callable[P, R]]: ...
def function(func: Callable[P, R] | None = None, /, *, host: bool = False,
             tile: bool = True) -> Callable[P, R] | Callable[[Callable[P, R]], Callable[P, R]]:
    """Mark `func` as a tile function: kernels call it like any helper (it is inlined).

    With `host=True` it stays callable from Python too; otherwise calling it outside a kernel
    raises RuntimeError. Plain, undecorated helpers work in kernels as well.
    """

    def decorate(fn: Callable[P, R]) -> Callable[P, R]:
        if host:
            return fn

        @functools.wraps(fn)
        def host_call(*args: P.args, **kwargs: P.kwargs) -> NoReturn:
            raise RuntimeError("Device functions can only be called from device code.")

        host_call.__tilelang_function__ = fn  # type: ignore[attr-defined]
        return host_call

    return decorate if func is None else decorate(func)


def tile_function(obj: object) -> Callable[..., Any] | None:
    """The helper a `@function` wrapper stands for, or None if `obj` is not one."""
    return getattr(obj, "__tilelang_function__", None)
