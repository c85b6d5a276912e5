"""Front end: types of variables carried through `if`/`for`/`while` (join and coercion rules)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from tilelang.errors import TileTypeError
from tilelang.frontend import build, semantics
from tilelang.frontend.semantics import describe
from tilelang.frontend.values import TileValue, Undefined, is_loose
from tilelang.language.dtypes import DType


@dataclass(frozen=True)
class CarriedType:
    dtype: DType
    shape: tuple[int, ...]
    loose: Any = None  # the loose constant the variable started from, if any

    def describe(self) -> str:
        return f"{self.dtype.name} " + (f"tile of shape {self.shape}" if self.shape else "scalar")


def assigned_names(body: list[ast.stmt]) -> list[str]:
    """Names a list of statements assigns, in first-assignment order."""
    names: dict[str, None] = {}
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.setdefault(node.id)
    return list(names)


def can_carry(value: Any) -> bool:
    return isinstance(value, TileValue) or is_loose(value)


def initial_type(value: Any) -> CarriedType:
    if isinstance(value, TileValue):
        return CarriedType(value.dtype, value.shape)
    return CarriedType(semantics.constant_dtype(value), (), loose=value)


def join(name: str, current: CarriedType, value: Any) -> CarriedType:
    """The type a carried variable needs so that both `current` and `value` fit in it."""
    if isinstance(value, Undefined) or not can_carry(value):
        raise TileTypeError(
            f"`{name}` is {describe(value)} at the end of the body; only tiles and numbers "
            "can change inside a loop or an `if`"
        )
    if is_loose(value):
        if current.loose is not None:
            return CarriedType(semantics.constant_dtype(_py_join(current.loose, value)), (),
                               current.loose)
        semantics.check_fits(value, current.dtype)
        if semantics.category(semantics.constant_dtype(value)) > semantics.category(current.dtype):
            raise _changes(name, current, describe(value))
        return current
    shape = _join_shape(name, current, value)
    if current.loose is not None:
        return CarriedType(semantics.promote_with_constant(value.dtype, current.loose), shape,
                           current.loose)
    if not semantics.lossless_cast(value.dtype, current.dtype):
        raise _changes(name, current, describe(value))
    return CarriedType(current.dtype, shape)


def _py_join(a: Any, b: Any) -> Any:
    """A loose constant standing for both `a` and `b` (the wider kind)."""
    return b if semantics.category(semantics.constant_dtype(b)) > \
        semantics.category(semantics.constant_dtype(a)) else a


def _join_shape(name: str, current: CarriedType, value: TileValue) -> tuple[int, ...]:
    try:
        return semantics.broadcast_shapes(current.shape, value.shape)
    except TileTypeError:
        raise _changes(name, current, describe(value)) from None


def _changes(name: str, current: CarriedType, new: str) -> TileTypeError:
    return TileTypeError(
        f"the type of `{name}` depends on the path taken: {current.describe()} on one path, "
        f"{new} on another",
        hint="make both paths produce the same dtype and shape (astype, broadcast_to, full)",
    )


def coerce(value: Any, carried: CarriedType) -> TileValue:
    """`value` as a tile of exactly the carried dtype and shape."""
    tile = build.to_tile(value, carried.dtype)
    return build.broadcast_to(tile, carried.shape)
