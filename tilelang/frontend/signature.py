"""Front end: the specialization of a kernel: what each parameter is for one compilation."""

from __future__ import annotations

import contextlib
import inspect
import math
import typing
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from tilelang.errors import TileArgumentError, TileTypeError
from tilelang.frontend.parameters import INFERRED, Const, Kind, parameter_kind
from tilelang.language import dtypes as dt
from tilelang.language.dtypes import DType


@dataclass(frozen=True)
class ArraySpec:
    """An array argument: dtype, rank and the facts that allow vector accesses."""

    dtype: DType
    ndim: int
    unit_stride: tuple[bool, ...]  # per dimension: the stride is known to be 1
    align: int  # bytes: base pointer and every other stride in bytes are multiples of it
    index_dtype: DType = dt.int32  # of `shape` and `strides` in the kernel (IndexedWithInt64)
    static_shape: tuple[int | None, ...] = ()  # compiled-in extents (ArrayAnnotation); () if none
    static_strides: tuple[int | None, ...] = ()  # compiled-in strides; () if none

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


@dataclass(frozen=True)
class TupleSpec:
    """A tuple argument: one entry per item (arrays, scalars, constants, nested tuples...)."""

    items: tuple[ParamSpec, ...]

    def describe(self) -> str:
        return f"tuple of {len(self.items)}"


@dataclass(frozen=True)
class ListSpec:
    """A list of arrays: every array has the facts of `element` (those all of them share)."""

    element: ArraySpec
    length: int

    def describe(self) -> str:
        return f"list of {self.length} {self.element.describe()}s"


@dataclass(frozen=True)
class DataclassSpec:
    """A frozen dataclass instance: one entry per field, in the class's field order."""

    cls: type
    fields: tuple[tuple[str, ParamSpec], ...]
    source: str = field(default="", compare=False)  # identifies the class in the disk cache key

    def describe(self) -> str:
        return f"{self.cls.__name__} instance"

    def __repr__(self) -> str:
        return f"DataclassSpec({self.source or self.cls.__qualname__}, {self.fields!r})"


ParamSpec = ArraySpec | ScalarSpec | ConstSpec | TupleSpec | ListSpec | DataclassSpec
LeafSpec = ArraySpec | ScalarSpec


def leaves(spec: ParamSpec, value: Any = None) -> Iterator[tuple[LeafSpec, Any]]:
    """The run-time entries of one argument, depth first: (spec, value) per array or scalar.

    They are the kernel's parameters in order; constants have none. `value` may be None when
    only the specs are wanted.
    """
    if isinstance(spec, ArraySpec | ScalarSpec):
        yield spec, value
    elif isinstance(spec, TupleSpec):
        for i, item in enumerate(spec.items):
            yield from leaves(item, None if value is None else value[i])
    elif isinstance(spec, ListSpec):
        for i in range(spec.length):
            yield spec.element, None if value is None else value[i]
    elif isinstance(spec, DataclassSpec):
        for name, item in spec.fields:
            yield from leaves(item, None if value is None else getattr(value, name))


@dataclass(frozen=True)
class Parameter:
    name: str
    constant: bool
    kind: Kind = INFERRED  # what the annotation asks of the argument (frontend/parameters.py)


def kernel_parameters(fn: Any) -> tuple[Parameter, ...]:
    """The kernel's parameters, in order, with what their annotations ask of the arguments."""
    hints = _type_hints(fn)
    params = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise TileTypeError(
                f"kernel parameter `{p.name}`: *args and **kwargs are not supported"
            )
        kind = parameter_kind(hints.get(p.name))
        params.append(Parameter(p.name, isinstance(kind, Const), kind))
    return tuple(params)


def _type_hints(fn: Any) -> dict[str, Any]:
    """The annotations as objects; a string annotation (`from __future__ import annotations`)
    is evaluated with the function's globals and closure, and left out if that fails."""
    try:
        return typing.get_type_hints(fn, include_extras=True)
    except Exception:
        pass
    closure = {}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=False):
        with contextlib.suppress(ValueError):  # an empty cell: assigned later, outside
            closure[name] = cell.cell_contents
    hints = {}
    for name, hint in getattr(fn, "__annotations__", {}).items():
        if isinstance(hint, str):
            try:
                hint = eval(hint, fn.__globals__, closure)  # the user's own annotation
            except Exception:
                continue
        hints[name] = hint
    return hints


def _count(n: int) -> str:
    return f"{n} argument" if n == 1 else f"{n} arguments"


def check_arity(name: str, params: tuple[Parameter, ...], count: int) -> None:
    if count != len(params):
        listed = ", ".join(p.name for p in params)
        raise TileArgumentError(  # cuTile's wording, then which kernel
            f"Kernel expects {_count(len(params))} but {count} "
            f"{'was' if count == 1 else 'were'} given: {name}({listed})",
            hint="pass the kernel's arguments as one tuple: launch(stream, grid, kernel, (a, b))",
        )
