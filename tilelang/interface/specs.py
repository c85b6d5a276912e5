"""Interface: the specialization of a kernel, what each argument is for one compilation
(an array of some dtype and rank, a scalar, a compiled-in constant, a tuple, list or dataclass
of those), and its run-time leaves in kernel-parameter order."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

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

    value: object
    # 1, 1.0 and True (and 0.0 and -0.0) are equal but compile differently: the kind tells them
    # apart in the specialization cache
    kind: object = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", _kind(self.value))

    def describe(self) -> str:
        return f"constant {self.value!r}"


def _kind(value: object) -> object:
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
