"""Compilation: the constraints of a kernel signature, one per kernel parameter (cuTile's
`ScalarConstraint`, `ArrayConstraint`, `ListConstraint`, `TupleConstraint`,
`ConstantConstraint`): what the argument is and what the compiler may assume about it.

Each constraint checks its own fields when built; whether it fits the kernel's parameter is
checked when a signature is compiled (compilation/specs.py).
"""

from __future__ import annotations

import dataclasses
import enum
import math
import struct
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from tilelang.compilation.conventions import CallingConvention
from tilelang.language import dtypes as dt
from tilelang.language.dtypes import DType

INDEX_DTYPES = (dt.int32, dt.uint32, dt.int64)


def _set(obj: object, **fields: object) -> None:
    for name, value in fields.items():
        object.__setattr__(obj, name, value)


def _check_dtype(dtype: object) -> DType:
    if not isinstance(dtype, DType):
        raise TypeError(f"Expected a DType for the `dtype` parameter, got '{dtype}'")
    return dtype


@dataclass(frozen=True, init=False)
class ScalarConstraint:
    """A scalar parameter passed at each launch, of dtype `dtype` (`ct.int32`, `ct.float32`,
    ...)."""

    dtype: DType

    def __init__(self, dtype: DType):
        _set(self, dtype=_check_dtype(dtype))


@dataclass(frozen=True, init=False)
class ArrayConstraint:
    """An array parameter and what the compiler may assume about it.

    Per-axis fields take one value per axis, or one value for every axis; factors are in
    elements except `base_addr_divisible_by`, which is in bytes.

    Args:
        dtype: the element dtype.
        ndim: the rank.
        index_dtype: the dtype of `shape` and `strides` inside the kernel: `ct.int32` or
            `ct.int64` (`ct.uint32` is accepted here but tilelang cannot compile it).
        stride_lower_bound_incl: per axis, a lower bound of the stride, or None (0: strides
            are never negative).
        alias_groups: names of groups; two parameters may share memory only if they have a
            group in common (an empty sequence: this array shares memory with no other).
        may_alias_internally: whether two different in-bounds indices may reach one element
            (a zero stride, say).
        stride_constant: per axis, the stride when it is known (1 for a contiguous last axis).
        shape_constant: per axis, the extent when it is known (needs `cutile_python_v2`).
        stride_divisible_by: per axis, a factor of the stride.
        shape_divisible_by: per axis, a factor of the extent.
        base_addr_divisible_by: a factor, in bytes, of the address of the first element.
    """

    dtype: DType
    ndim: int
    index_dtype: DType
    stride_lower_bound_incl: tuple[int | None, ...]
    alias_groups: tuple[str, ...]
    may_alias_internally: bool
    stride_constant: tuple[int | None, ...]
    shape_constant: tuple[int | None, ...]
    stride_divisible_by: tuple[int, ...]
    shape_divisible_by: tuple[int, ...]
    base_addr_divisible_by: int

    def __init__(self, dtype: DType, ndim: int, *, index_dtype: DType,
                 stride_lower_bound_incl: Sequence[int | None] | int | None,
                 alias_groups: Sequence[str], may_alias_internally: bool,
                 stride_constant: Sequence[int | None] | None = None,
                 shape_constant: Sequence[int | None] | None = None,
                 stride_divisible_by: Sequence[int] | int = 1,
                 shape_divisible_by: Sequence[int] | int = 1,
                 base_addr_divisible_by: int = 1):
        _check_dtype(dtype)
        if isinstance(ndim, bool) or not isinstance(ndim, int):
            raise TypeError(f"Expected an integer for `ndim`, got '{ndim}'")
        if ndim < 0:
            raise ValueError("`ndim` cannot be negative")
        if index_dtype not in INDEX_DTYPES:
            raise ValueError(f"`index_dtype` must be int32 or int64, got {index_dtype}")
        strides = _per_axis(stride_constant, ndim, "stride_constant", None, _optional_int)
        shape = _per_axis(shape_constant, ndim, "shape_constant", None, _optional_extent)
        bounds = _per_axis(stride_lower_bound_incl, ndim, "stride_lower_bound_incl", None,
                           _optional_int)
        stride_div = _per_axis(stride_divisible_by, ndim, "stride_divisible_by", 1, _factor)
        shape_div = _per_axis(shape_divisible_by, ndim, "shape_divisible_by", 1, _factor)
        if isinstance(base_addr_divisible_by, bool) or not isinstance(base_addr_divisible_by,
                                                                      int):
            raise TypeError("Expected an integer for the `base_addr_divisible_by` parameter, "
                            f"got {base_addr_divisible_by}")
        if base_addr_divisible_by <= 0:
            raise ValueError("`base_addr_divisible_by` must be strictly positive, "
                             f"got {base_addr_divisible_by}")
        _set(self, dtype=dtype, ndim=ndim, index_dtype=index_dtype,
             stride_lower_bound_incl=_drop_known_bounds(strides, bounds),
             alias_groups=alias_group_names(alias_groups),
             may_alias_internally=bool(may_alias_internally),
             stride_constant=strides, shape_constant=shape,
             stride_divisible_by=_drop_known_factors(strides, stride_div, "stride_constant"),
             shape_divisible_by=_drop_known_factors(shape, shape_div, "shape_constant"),
             base_addr_divisible_by=base_addr_divisible_by)

    def replace(self, **changes: object) -> ArrayConstraint:
        """A copy with some fields changed (checked again)."""
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        fields.update(changes)
        return ArrayConstraint(fields.pop("dtype"), fields.pop("ndim"), **fields)


def _optional_int(i: int, value: object, name: str) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise TypeError(f"Element #{i} of `{name}` must be None or int, got {value}")


def _optional_extent(i: int, value: object, name: str) -> None:
    _optional_int(i, value, name)
    if isinstance(value, int) and value < 0:
        raise ValueError(f"Element #{i} of `{name}` must be non-negative, got {value}")


def _factor(i: int, value: object, name: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"Element #{i} of `{name}` must be int, got {value}")
    if value <= 0:
        raise ValueError(f"Element #{i} of `{name}` must be strictly positive, got {value}")


def _per_axis(value: Any, ndim: int, name: str, default: int | None,
              check: Callable[[int, object, str], None]) -> tuple[Any, ...]:
    """One entry per axis: `value` repeated when it is one int, `default` when None."""
    if value is None:
        return (default,) * ndim
    if isinstance(value, int) and not isinstance(value, bool):
        items: tuple[Any, ...] = (value,) * ndim
    else:
        items = tuple(value)
        if len(items) != ndim:
            raise ValueError(f"Length of `{name}` {items} doesn't match ndim={ndim}")
    for i, item in enumerate(items):
        check(i, item, name)
    return items


def _drop_known_bounds(known: tuple[int | None, ...],
                       bounds: tuple[int | None, ...]) -> tuple[int | None, ...]:
    """A lower bound says nothing more where the stride is known (and must hold for it)."""
    for d, (value, bound) in enumerate(zip(known, bounds, strict=True)):
        if value is not None and bound is not None and value < bound:
            raise ValueError(f"stride_constant[{d}] is set to {value}, which is less than the "
                             f"lower bound {bound}")
    return tuple(None if value is not None else bound
                 for value, bound in zip(known, bounds, strict=True))


def _drop_known_factors(known: tuple[int | None, ...], factors: tuple[int, ...],
                        name: str) -> tuple[int, ...]:
    """A factor says nothing more where the value is known (and must divide it)."""
    for d, (value, factor) in enumerate(zip(known, factors, strict=True)):
        if value is not None and value % factor:
            raise ValueError(f"{name}[{d}] is set to {value}, which is not divisible by "
                             f"{factor}")
    return tuple(1 if value is not None else factor
                 for value, factor in zip(known, factors, strict=True))


def alias_group_names(groups: Iterable[str]) -> tuple[str, ...]:
    if isinstance(groups, str):
        raise TypeError("`alias_groups` cannot be a string")
    names = tuple(groups)
    for i, name in enumerate(names):
        if not isinstance(name, str):
            raise TypeError(f"Element #{i} of `alias_groups` has non-string type {type(name)}")
    return names


@dataclass(frozen=True, init=False)
class ListConstraint:
    """A list-of-arrays parameter: every array fits `element`.

    Args:
        element: the `ArrayConstraint` every array of the list fits.
        alias_groups: the groups of the list's own storage (cuTile passes a list as a buffer
            of array descriptors; tilelang passes the arrays themselves, so these only need to
            be consistent).
        elements_may_alias: whether two arrays of the list may share memory.
        length: tilelang's addition: the number of arrays. tilelang compiles a list for a fixed
            length (each array is passed on its own); `from_kernel_args` sets it, and
            `export_kernel` needs it.
    """

    element: ArrayConstraint
    alias_groups: tuple[str, ...]
    elements_may_alias: bool
    length: int | None = None

    def __init__(self, element: ArrayConstraint, *, alias_groups: Sequence[str],
                 elements_may_alias: bool, length: int | None = None):
        if not isinstance(element, ArrayConstraint):
            raise TypeError("ListConstraint only supports an ArrayConstraint as the `element` "
                            f"constraint, got '{element}'")
        if length is not None and (isinstance(length, bool) or not isinstance(length, int)
                                   or length < 1):
            raise ValueError(f"`length` must be None or an int >= 1, got {length!r}")
        _set(self, element=element, alias_groups=alias_group_names(alias_groups),
             elements_may_alias=bool(elements_may_alias), length=length)


@dataclass(frozen=True, init=False)
class TupleConstraint:
    """A tuple parameter: one constraint per item (a plain tuple is shorthand for one)."""

    items: tuple[ParameterConstraint, ...]

    def __init__(self, items: Sequence[object]):
        _set(self, items=tuple(to_constraint(item) for item in items))


ConstantValue: TypeAlias = bool | int | float


@dataclass(frozen=True)
class ConstantConstraint:
    """The value of a `ct.Constant` parameter, compiled in: a bool, int or float (and, as
    tilelang's launches allow, any other hashable value: a string, None, a dtype, an enum
    member). `1`, `1.0` and `True` are different constants; NaN equals NaN."""

    value: object

    def __post_init__(self) -> None:
        if isinstance(self.value, tuple | list | dict | set):
            raise TypeError(f"Unexpected constant value type {type(self.value)}: a tuple is "
                            "a TupleConstraint of constants")
        try:
            hash(self.value)
        except TypeError:
            raise TypeError(f"Unexpected constant value type {type(self.value)}: constants "
                            "must be hashable") from None

    def _key(self) -> tuple[Any, ...]:
        if isinstance(self.value, float):  # by bits: NaN == NaN, 0.0 != -0.0
            return float, struct.pack("<d", self.value)
        return type(self.value), self.value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ConstantConstraint):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        value = self.value
        if isinstance(value, float) and not math.isfinite(value):
            return f"ConstantConstraint(float({str(value)!r}))"
        return f"ConstantConstraint({value!r})"


ParameterConstraint: TypeAlias = (ScalarConstraint | ArrayConstraint | ListConstraint
                                  | TupleConstraint | ConstantConstraint)
CONSTRAINTS = (ScalarConstraint, ArrayConstraint, ListConstraint, TupleConstraint,
               ConstantConstraint)


def is_constant_value(value: object) -> bool:
    """Values a plain entry of a signature stands for as a ConstantConstraint."""
    return (value is None or isinstance(value, bool | int | float | str | DType | enum.Enum))


def to_constraint(value: object) -> ParameterConstraint:
    """A constraint, or the shorthand for one: a constant's value, or a tuple of entries."""
    if isinstance(value, CONSTRAINTS):
        return value
    if type(value) is tuple:
        return TupleConstraint(value)
    if is_constant_value(value):
        return ConstantConstraint(value)
    raise TypeError(f"Can't interpret {value!r} as a parameter constraint")


def alias_uses(constraints: Sequence[ParameterConstraint]
               ) -> list[tuple[ParameterConstraint, tuple[str, ...]]]:
    """(constraint, its alias groups) for every array and list, depth first."""
    found: list[tuple[ParameterConstraint, tuple[str, ...]]] = []
    for c in constraints:
        if isinstance(c, ArrayConstraint):
            found.append((c, c.alias_groups))
        elif isinstance(c, ListConstraint):
            found += [(c, c.alias_groups), (c.element, c.element.alias_groups)]
        elif isinstance(c, TupleConstraint):
            found += alias_uses(c.items)
    return found


def check_alias_groups(constraints: Sequence[ParameterConstraint]) -> None:
    """Each group is named once per constraint, by two constraints at least, of one kind."""
    count: dict[str, int] = {}
    kind: dict[str, type] = {}
    for c, groups in alias_uses(constraints):
        if len(set(groups)) != len(groups):
            twice = next(g for g in groups if groups.count(g) > 1)
            raise ValueError(f"Alias group `{twice}` occurs more than once in the group list "
                             f"{list(groups)}")
        for g in groups:
            count[g] = count.get(g, 0) + 1
            seen = kind.setdefault(g, type(c))
            if seen is not type(c):
                raise ValueError(
                    f"Alias group `{g}` is used in two constraints of different types "
                    f"{seen.__name__} and {type(c).__name__}. This is currently unsupported "
                    "(e.g., list storage is not allowed to alias an array).")
    for g, n in count.items():
        if n == 1:
            raise ValueError(f"Alias group `{g}` is mentioned only once, and is therefore "
                             "redundant. To specify that an array or a list may not alias any "
                             "other object, use an empty tuple of alias groups.")


def check_convention(c: ParameterConstraint, convention: CallingConvention) -> None:
    """Tuples and compiled-in extents need `cutile_python_v2`."""
    if isinstance(c, ArrayConstraint):
        if convention.version < 2 and any(e is not None for e in c.shape_constant):
            raise ValueError("Static array shapes are not supported by calling convention "
                             f"{convention.name}; version >= 2 is required")
    elif isinstance(c, ListConstraint):
        check_convention(c.element, convention)
    elif isinstance(c, TupleConstraint):
        if convention.version < 2:
            raise ValueError("Tuple parameters are not supported by calling convention "
                             f"{convention.name}; version >= 2 is required")
        for item in c.items:
            check_convention(item, convention)
