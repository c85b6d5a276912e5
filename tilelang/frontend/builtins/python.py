"""Front end: Python builtins with a meaning in kernels (len, min, max, abs, int, float, ...)."""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tilelang.errors import TileStaticAssertionError, TileTypeError
from tilelang.frontend import build, operators
from tilelang.frontend.builtins.registry import lowers
from tilelang.frontend.semantics import describe
from tilelang.frontend.values import ArrayValue, ListValue, TileValue, is_loose
from tilelang.language import dtypes as dt
from tilelang.language import static as static_lang
from tilelang.language.dtypes import DType

if TYPE_CHECKING:
    from tilelang.frontend.emitter import Emitter


@lowers(builtins.range, raw=True)
def emit_range(em: Emitter, *args: object) -> object:
    raise TileTypeError("range() can only be used as the iterable of a `for` loop")


@lowers(builtins.tuple, raw=True)
def emit_tuple(em: Emitter, *args: object) -> tuple:
    """`tuple(x)` of a tuple (a comprehension is one already) or of nothing."""
    if not args:
        return ()
    if len(args) != 1 or not isinstance(args[0], tuple):
        raise TileTypeError(f"tuple() takes a tuple or a comprehension in a kernel, got "
                            f"{', '.join(describe(a) for a in args)}")
    return args[0]


@lowers(builtins.len, raw=True)
def emit_len(em: Emitter, obj: object) -> object:
    if isinstance(obj, tuple | dict | ListValue):  # a list of arrays has a compiled-in length
        return len(obj)
    if isinstance(obj, TileValue) and obj.shape:
        return obj.shape[0]
    if isinstance(obj, ArrayValue) and obj.ndim:
        from tilelang.frontend.attributes import get_attribute

        return get_attribute(obj, "shape")[0]
    raise TileTypeError(f"len() of {describe(obj)}")


def _reduce_pairwise(name: str, args: tuple[Any, ...]) -> object:
    if len(args) == 1 and isinstance(args[0], tuple):
        args = args[0]
    if len(args) < 2:
        raise TileTypeError(f"{name}() of a single value is not supported in a kernel")
    result = args[0]
    for value in args[1:]:
        result = operators.binary("minimum" if name == "min" else "maximum", result, value)
    return result


@lowers(builtins.min, raw=True)
def emit_min(em: Emitter, *args: object) -> object:
    return _reduce_pairwise("min", args)


@lowers(builtins.max, raw=True)
def emit_max(em: Emitter, *args: object) -> object:
    return _reduce_pairwise("max", args)


@lowers(builtins.abs, raw=True)
def emit_abs(em: Emitter, x: object) -> object:
    return operators.absolute(x)


def _convert(name: str, fn: Callable[..., object], dtype: DType, x: object) -> object:
    if is_loose(x) or (isinstance(x, str) and name != "bool"):  # float("-inf"), int("3")
        return operators.fold(fn, x)
    if isinstance(x, TileValue) and not x.shape:
        known = build.constant_value(x)  # int(ct.int16(3)) is the loose constant 3 (cuTile)
        return operators.fold(fn, known) if known is not None else operators.astype(x, dtype)
    raise TileTypeError(f"{name}() needs a scalar, got {describe(x)}")


@lowers(builtins.int, raw=True)
def emit_int(em: Emitter, x: object = 0) -> object:
    return _convert("int", int, dt.int32, x)


@lowers(builtins.float, raw=True)
def emit_float(em: Emitter, x: object = 0.0) -> object:
    return _convert("float", float, dt.float32, x)


@lowers(builtins.bool, raw=True)
def emit_bool(em: Emitter, x: object = False) -> object:
    return _convert("bool", bool, dt.bool_, x)


@lowers(builtins.isinstance, raw=True)
def emit_isinstance(em: Emitter, obj: object, cls: Any) -> bool:
    if isinstance(obj, TileValue | ArrayValue):
        raise TileTypeError("isinstance() of tiles and arrays is not supported")
    return isinstance(obj, cls)


@lowers(static_lang.ensure_constant)
def emit_ensure_constant(em: Emitter, value: object) -> object:
    if isinstance(value, TileValue | ArrayValue):
        raise TileStaticAssertionError(
            "Argument of ensure_constant() is not a compile-time constant")
    return value
