"""Language: the marker for functions that only have a meaning inside a kernel."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

STUBS: dict[str, Callable[..., Any]] = {}
# Set by the front end while a static_eval / static_iter expression runs: calls of stubs go to
# it (it emits the pure functions' operations, and raises KernelOnlyCall for the others).
STATIC_CALL: list[Callable[[str, tuple, dict[str, Any]], Any] | None] = [None]


class KernelOnlyCall(RuntimeError):
    """A kernel-only function was called by Python code (host code, or a static_eval)."""

    def __init__(self, name: str):
        super().__init__(f"tilelang.{name}() can only be called inside a @tilelang.kernel "
                         "function (launched with tilelang.launch)")
        self.name = name


def stub(fn: F) -> F:
    """Register `fn` as a kernel-only function; calling it from host code raises a clear error.

    The front end never runs the body: it binds the call's arguments to this signature (so names,
    defaults and positional-only rules are exactly the documented ones) and emits IR.
    """

    name = fn.__qualname__  # "load", or "TiledView.load" for a method stub

    @functools.wraps(fn)
    def host_call(*args: object, **kwargs: object) -> object:
        hook = STATIC_CALL[0]
        if hook is not None:
            return hook(name, args, kwargs)
        raise KernelOnlyCall(name)

    host_call.__tilelang_stub__ = name  # type: ignore[attr-defined]
    STUBS[name] = host_call
    return host_call  # type: ignore[return-value]


def stub_name(obj: object) -> str | None:
    """The language name of a stub, or None if `obj` is not one."""
    return getattr(obj, "__tilelang_stub__", None)
