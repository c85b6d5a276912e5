"""Front end: the specialization of a kernel: what each parameter is for one compilation."""

from __future__ import annotations

import inspect
import math
import typing
from dataclasses import dataclass, field
from typing import Any

from tilelang.errors import TileArgumentError, TileTypeError
from tilelang.language.constant import is_constant_annotation
from tilelang.language.dtypes import DType


@dataclass(frozen=True)
class ArraySpec:
    """An array argument: dtype, rank and the facts that allow vector accesses."""

    dtype: DType
    ndim: int
    unit_stride: tuple[bool, ...]  # per dimension: the stride is known to be 1
    align: int  # bytes: base pointer and every other stride in bytes are multiples of it

    def describe(self) -> str:
        return f"{self.ndim}-d {self.dtype.name} array"


@dataclass(frozen=True)
class ScalarSpec:
    """A run-time scalar argument of a given dtype."""

    dtype: DType

    def describe(self) -> str:
        return f"{self.dtype.name} scalar"


@dataclass(frozen=True)
class ConstSpec:
    """A `Constant[...]` argument: its value is compiled in."""

    value: Any
    # 1, 1.0 and True (and 0.0 and -0.0) are equal but compile differently: the kind tells them
    # apart in the specialization cache
    kind: Any = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", _kind(self.value))

    def describe(self) -> str:
        return f"constant {self.value!r}"


def _kind(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_kind(v) for v in value)
    if isinstance(value, float):
        return float, math.copysign(1.0, value)
    return type(value)


ParamSpec = ArraySpec | ScalarSpec | ConstSpec


@dataclass(frozen=True)
class Parameter:
    name: str
    constant: bool


def kernel_parameters(fn: Any) -> tuple[Parameter, ...]:
    """The kernel's parameters, in order, with `Constant[...]` ones marked."""
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception:  # unresolvable annotations: read them raw
        hints = dict(getattr(fn, "__annotations__", {}))
    params = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise TileTypeError(
                f"kernel parameter `{p.name}`: *args and **kwargs are not supported"
            )
        params.append(Parameter(p.name, is_constant_annotation(hints.get(p.name))))
    return tuple(params)


def _count(n: int) -> str:
    return f"{n} argument" if n == 1 else f"{n} arguments"


def check_arity(name: str, params: tuple[Parameter, ...], count: int) -> None:
    if count != len(params):
        listed = ", ".join(p.name for p in params)
        raise TileArgumentError(
            f"kernel {name}({listed}) takes {_count(len(params))} but {count} "
            f"{'was' if count == 1 else 'were'} given",
            hint="pass the kernel's arguments as one tuple: launch(stream, grid, kernel, (a, b))",
        )
