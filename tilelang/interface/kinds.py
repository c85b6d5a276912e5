"""Interface: what a kernel parameter's annotation asks of its argument (read once per kernel).

An annotation becomes a small tree: `Inferred` (the argument's own type decides), `Const`
(compiled in), `Scalar` (an integer of a given dtype), `Array` (an array with an
`ArrayAnnotation`), `ArrayList` (a list of arrays) or `Tuple` (per item, or one kind for every
item of a `tuple[X, ...]`).
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Annotated

from tilelang.errors import TileArgumentError
from tilelang.language.annotations import ArrayAnnotation, ListAnnotation, ScalarAnnotation
from tilelang.language.constant import ConstantAnnotation
from tilelang.language.dtypes import DType

DEFAULT_ARRAY = ArrayAnnotation()


@dataclass(frozen=True)
class Inferred:
    """No annotation that matters: the argument's type decides what it becomes."""


@dataclass(frozen=True)
class Const:
    """`Constant[...]`: the value is compiled in."""


@dataclass(frozen=True)
class Scalar:
    """`ScalarInt64` (or another `ScalarAnnotation`): an integer scalar of `dtype`."""

    dtype: DType


@dataclass(frozen=True)
class Array:
    annotation: ArrayAnnotation


@dataclass(frozen=True)
class ArrayList:
    element: ArrayAnnotation


@dataclass(frozen=True)
class Tuple:
    """`tuple[A, B]` (`items`) or `tuple[A, ...]` (`rest`, for every item)."""

    items: tuple[Kind, ...] | None
    rest: Kind | None = None

    def item(self, i: int) -> Kind:
        return self.rest if self.items is None else self.items[i]  # type: ignore[return-value]


Kind = Inferred | Const | Scalar | Array | ArrayList | Tuple
INFERRED = Inferred()


def parameter_kind(hint: object) -> Kind:
    """The kind of argument a parameter annotated with `hint` takes."""
    if typing.get_origin(hint) is Annotated:
        base, *metadata = typing.get_args(hint)  # Annotated[base, *metadata]
        return _annotated(base, tuple(metadata))
    if typing.get_origin(hint) is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return Tuple(None, parameter_kind(args[0]))
        return Tuple(tuple(parameter_kind(a) for a in args))
    return INFERRED


def _annotated(base: object, metadata: tuple[object, ...]) -> Kind:
    if any(isinstance(m, ConstantAnnotation) for m in metadata):
        if _has_scalar_annotation(base) or any(isinstance(m, ScalarAnnotation) for m in metadata):
            raise TileArgumentError(
                "Constant annotation cannot be combined with ScalarAnnotation/ScalarInt64")
        return Const()
    for m in metadata:
        if isinstance(m, ScalarAnnotation):
            return Scalar(m.dtype)
        if isinstance(m, ArrayAnnotation):
            return Array(m)
        if isinstance(m, ListAnnotation):
            return ArrayList(m.element)
    return parameter_kind(base)


def _has_scalar_annotation(hint: object) -> bool:
    if typing.get_origin(hint) is Annotated:
        base, *metadata = typing.get_args(hint)
        if any(isinstance(m, ScalarAnnotation) for m in metadata):
            return True
        return _has_scalar_annotation(base)
    return any(_has_scalar_annotation(a) for a in typing.get_args(hint) if a is not Ellipsis)
