"""Front end: calls to language functions, tile methods, Python builtins and inlined helpers."""

from __future__ import annotations

import ast
import dataclasses
import enum
import inspect
import math
import types
from collections.abc import Iterable
from typing import Any, NoReturn

import numpy as np

from tilelang.errors import (
    TileSyntaxError,
    TileTypeError,
    UnsupportedCallError,
)
from tilelang.frontend import context_managers, dataclass_values, exits, static
from tilelang.frontend.binding import bind
from tilelang.frontend.builtins import registry
from tilelang.frontend.builtins.common import as_dtype
from tilelang.frontend.emitter import HOOKS, MAX_INLINE_DEPTH, Emitter, Frame, recursion_error
from tilelang.frontend.local_functions import LocalFunction, call_local
from tilelang.frontend.operators import astype, fold
from tilelang.frontend.semantics import describe
from tilelang.frontend.source import parse_function
from tilelang.frontend.values import ArrayValue, BoundMethod, TileValue, is_loose
from tilelang.language.dtypes import DType
from tilelang.language.function import tile_function
from tilelang.language.stub import stub_name


def emit_call(em: Emitter, node: ast.Call) -> object:
    callee = em.expr(node.func)
    keyword = stub_name(callee)
    if keyword is not None and keyword in static.KEYWORDS:
        return static.emit(em, keyword, node)
    if stub_name(callee) == "static_iter":
        static.require_direct(em, node.func, "static_iter")
        raise TileSyntaxError("static_iter() is only allowed as iterable in a `for` loop, i.e. "
                              "`for i in ct.static_iter(...)`")
    args = em.exprs(node.args)
    kwargs: dict[str, Any] = {}
    for kw in node.keywords:
        value = em.expr(kw.value)
        for name, item in (_double_star(value) if kw.arg is None else [(kw.arg, value)]):
            if name in kwargs:
                raise TileTypeError(f"got multiple values for keyword argument '{name}'")
            kwargs[name] = item
    return call(em, callee, args, kwargs)


def _double_star(value: object) -> list[tuple[str, Any]]:
    """The keyword arguments `**value` passes (a dict with string keys, such as **kwargs)."""
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise TileTypeError(f"argument after ** must be a dict with string keys, got "
                            f"{describe(value)}")
    return list(value.items())


def call(em: Emitter, callee: Any, args: list[Any], kwargs: dict[str, Any]) -> object:
    if isinstance(callee, BoundMethod):
        return registry.call_method(em, callee, args, kwargs)
    entry = registry.lookup(callee)
    if entry is not None:
        return entry.call(em, args, kwargs)
    user_value = _call_user_value(em, callee, args, kwargs)
    if user_value is not NOT_HANDLED:
        return user_value
    dtype = _constructed_dtype(callee)
    if dtype is not None:  # ct.int16(5), np.float32(1.5), torch.float16(2), ct.int32()
        return _strict_constant(dtype, args, kwargs)
    if getattr(callee, "__tilelang_kernel__", False):
        raise TileTypeError(
            "a kernel cannot be called from a kernel", hint="call a plain helper function instead"
        )
    if tile_function(callee) is not None:  # @tilelang.function: inline the function itself
        callee = tile_function(callee)
    if isinstance(callee, types.FunctionType):
        return inline(em, callee, args, kwargs)
    if isinstance(callee, LocalFunction):
        return call_local(em, callee, args, kwargs)
    if getattr(callee, "__module__", None) == "math" and all(map(is_loose, args)) and not kwargs:
        return fold(callee, *args)
    _reject(callee)


def _reject(callee: object) -> NoReturn:
    """A callee with no meaning in device code (cuTile's messages for builtins and classes)."""
    if isinstance(callee, types.BuiltinFunctionType):
        raise UnsupportedCallError(f"{callee.__name__}() is not supported in device code",
                                   hint="use the tilelang function of that name, if any")
    if isinstance(callee, type):
        raise UnsupportedCallError(f'Creating instances of type "{callee.__name__}" is not '
                                   "supported in device code",
                                   hint="only dataclasses, Enum classes and dtypes can be "
                                        "constructed in a kernel")
    raise TileTypeError(f"{describe(callee)} {_callee_name(callee)} cannot be called in a kernel")


NOT_HANDLED = object()
DICT_METHODS = ("get", "keys", "values", "items")


def _call_user_value(em: Emitter, callee: object, args: list[Any],
                     kwargs: dict[str, Any]) -> object:
    """Calls of the user's dataclasses and Enum classes, of their instances and methods, of
    `dataclasses.replace` and of dict methods; NOT_HANDLED for anything else."""
    if isinstance(callee, dataclass_values.BoundUserMethod):
        return dataclass_values.call_method(em, callee, args, kwargs)
    if callee is dataclasses.replace:
        return dataclass_values.replace(em, args[0] if args else None, args[1:], kwargs)
    if isinstance(callee, type) and issubclass(callee, enum.Enum):  # an Enum class
        return dataclass_values.call_enum(callee, args, kwargs)
    if dataclass_values.is_dataclass_type(callee):
        return dataclass_values.construct(em, callee, args, kwargs)
    if dataclass_values.is_instance(callee):
        return dataclass_values.call_instance(em, callee, args, kwargs)
    if isinstance(callee, types.BuiltinMethodType) and isinstance(callee.__self__, dict) and \
            callee.__name__ in DICT_METHODS:
        if kwargs or any(isinstance(a, TileValue | ArrayValue) for a in args):
            raise TileTypeError(f"dict.{callee.__name__}() takes compile-time constant "
                                "positional arguments")
        result = fold(callee, *args)
        if callee.__name__ == "get":
            return result
        assert isinstance(result, Iterable), "keys(), values() and items() give views"
        return tuple(result)  # views become tuples
    return NOT_HANDLED


def _callee_name(callee: object) -> str:
    name = getattr(callee, "__qualname__", None) or getattr(callee, "__name__", None)
    return f"`{name}`" if name else ""


def _constructed_dtype(callee: object) -> DType | None:
    """The dtype a callee constructs: a tilelang dtype, a NumPy scalar type, or a NumPy or torch
    dtype object (cuTile accepts them all as constructors)."""
    if isinstance(callee, DType):
        return callee
    numpy_type = isinstance(callee, type) and issubclass(callee, np.generic)
    if numpy_type or isinstance(callee, np.dtype) or (
            type(callee).__module__ == "torch" and type(callee).__name__ == "dtype"):
        return as_dtype(callee, "a dtype constructor")
    return None


def _strict_constant(dtype: DType, args: list[Any], kwargs: dict[str, Any]) -> TileValue:
    """`tilelang.int16(5)`: a constant (or value) of exactly that dtype; `int16()` is 0."""
    if dtype.bitwidth < 8 and dtype.kind != "b":  # cuTile's: a sub-byte dtype has no scalars
        raise TileTypeError(f"Cannot call an object of type DTypeSpec(dtype=<DType "
                            f"'{dtype.name}'>): a {dtype.bitwidth}-bit dtype has no scalars",
                            hint=f"make tiles of it: full(shape, value, "
                                 f"dtype=tilelang.{dtype.name}) or astype")
    if len(args) > 1 or kwargs:
        raise TileTypeError(f"{dtype.name}() takes at most one argument")
    value = args[0] if args else 0
    if isinstance(value, str) and dtype.kind != "b":  # ct.float32("-inf"), as NumPy parses it
        try:
            value = int(value) if dtype.kind in ("i", "u") else float(value)
        except ValueError:
            raise TileTypeError(f"Invalid argument for {dtype.name}: cannot parse {value!r}"
                                ) from None
    if not isinstance(value, TileValue) and not is_loose(value):
        raise TileTypeError(f"Invalid argument type for {dtype.name}: {describe(value)}")
    if isinstance(value, TileValue) and value.shape:
        raise TileTypeError(f"{dtype.name}() takes a scalar, got {describe(value)}")
    return astype(value, dtype)


def inline(em: Emitter, fn: types.FunctionType, args: list[Any], kwargs: dict[str, Any]) -> object:
    """Emit a helper function's body in place, with its own scope; return its result."""
    if context_managers.is_contextmanager(fn):  # its generator runs where it is entered
        return context_managers.create(fn, args, kwargs)
    if len(em.frames) >= MAX_INLINE_DEPTH:
        raise recursion_error()
    source = parse_function(fn)
    bound = bind(fn.__name__, inspect.signature(fn, follow_wrapped=False), args, kwargs)
    bound.apply_defaults()
    em.frames.append(Frame(source, dict(bound.arguments), em.loc))
    try:
        return exits.emit_body(em, source.tree.body)
    finally:
        em.frames.pop()


__all__ = ["call", "emit_call", "inline", "math"]


HOOKS["inline"] = inline  # a dataclass's methods, inlined (dataclass_values)
