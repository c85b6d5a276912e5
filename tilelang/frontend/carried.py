"""Front end: values that differ between the paths of run-time control flow, and their types.

A name's value after a run-time `if` or loop is described by a *skeleton*: the static parts of
the value (constants, the structure of a tuple, a tiled view's tile shape) and the types of its
run-time leaves (tiles and scalars, arrays). The scf ops carry the leaves; the skeleton rebuilds
the value from them. A value that is the same constant on every path stays that constant.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import mlir.ir as ir

from tilelang.dialect import tensor_type
from tilelang.errors import TileTypeError, TileUnsupportedFeatureError, TileValueError
from tilelang.frontend import build, records, semantics, values
from tilelang.frontend.semantics import describe
from tilelang.frontend.values import (
    ArrayValue,
    RawMemoryValue,
    TiledViewValue,
    TileValue,
    Undefined,
    is_loose,
)
from tilelang.language.dtypes import DType

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

# Values made of other values and static fields, carried field by field.
WRAPPERS: tuple[type[DataclassInstance], ...] = (TiledViewValue, RawMemoryValue) + (
    (values.ListValue,) if hasattr(values, "ListValue") else ()
)


@dataclass(frozen=True)
class CarriedType:
    """A tile or scalar leaf."""

    dtype: DType
    shape: tuple[int, ...]
    loose: bool | int | float | None = None  # the loose constant the variable started from, if any

    def describe(self) -> str:
        return f"{self.dtype.name} " + (f"tile of shape {self.shape}" if self.shape else "scalar")


@dataclass(frozen=True, eq=False)
class ArraySlot:
    """An array leaf: arrays of one dtype, rank and index width may differ. The slot keeps the
    specialization facts every one of them has (unit strides, alignment: its MLIR type;
    compiled-in extents and strides: the template's); an array with more is weakened to it."""

    template: ArrayValue
    weaker: ir.Type | None = None  # the leaf's type, where it is weaker than the template's

    @property
    def type(self) -> ir.Type:
        return self.weaker or self.template.value.type

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ArraySlot) and self.type == other.type and \
            _same_facts(self.template, other.template)

    def __hash__(self) -> int:
        return hash(str(self.type))


@dataclass(frozen=True, eq=False)
class Fixed:
    """A static part: the same constant (or object) on every path."""

    value: object

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Fixed) and same_constant(self.value, other.value)

    def __hash__(self) -> int:
        return 0


class Shared(Fixed):
    """A record's part while every path has the same one (the same object: it may be a tile or
    an array); where paths differ it widens to what the values need (join)."""


@dataclass(frozen=True, eq=False)
class Wrapper:
    """A tiled view, raw memory or list: the wrapper's fields, each a skeleton."""

    template: DataclassInstance
    fields: tuple[tuple[str, Any], ...]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Wrapper) and type(other.template) is type(self.template) \
            and self.fields == other.fields

    def __hash__(self) -> int:
        return hash(type(self.template))


@dataclass(frozen=True, eq=False)
class Record:
    """A user's dataclass instance or a local function (records.py): the static key every
    path shares, and each part as a skeleton."""

    template: object
    key: tuple
    parts: tuple[tuple[str, Any], ...]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Record) and self.key == other.key and self.parts == other.parts

    def __hash__(self) -> int:
        return hash(type(self.template))


Skeleton = CarriedType | ArraySlot | Fixed | Wrapper | Record | tuple


# ----- building and widening skeletons ---------------------------------------------------------


def exact(value: object) -> Skeleton:
    """The skeleton of one value: constants are static, tiles and arrays are leaves."""
    if isinstance(value, TileValue):
        return CarriedType(value.dtype, value.shape)
    if isinstance(value, ArrayValue):
        return ArraySlot(value)
    if isinstance(value, WRAPPERS):
        return _wrapper(value)
    if type(value) is tuple:
        return tuple(exact(v) for v in value)
    return _record(value, Shared) or Fixed(value)


def _record(value: object, part_skeleton: Callable[[object], Skeleton]) -> Record | None:
    """A record's skeleton; its parts start static (the same object on every path, so that
    a record every path shares is kept as it is) and widen where paths differ (join)."""
    split = records.split(value)
    if split is None:
        return None
    key, parts = split
    return Record(value, key, tuple((n, part_skeleton(v)) for n, v in parts.items()))


def _initial_part(value: object) -> Skeleton:
    return initial(value) if is_loose(value) or type(value) is tuple else Shared(value)


def _wrapper(value: DataclassInstance) -> Wrapper:
    """A wrapper's arrays are leaves; its other fields (a tile shape, ...) are static."""
    fields = []
    for f in dataclasses.fields(value):
        item = getattr(value, f.name)
        if f.name == "name":
            continue  # for messages only: the template's is kept
        arrays = isinstance(item, ArrayValue) or (
            type(item) is tuple and all(isinstance(v, ArrayValue) for v in item))
        fields.append((f.name, exact(item) if arrays else Fixed(item)))
    return Wrapper(value, tuple(fields))


def initial(value: object) -> Skeleton:
    """The skeleton a loop starts carrying `value` with: as `exact`, but a loose constant is a
    scalar of its default dtype inside the loop (and widens to what the body makes of it)."""
    if is_loose(value):
        return CarriedType(semantics.constant_dtype(value), (), loose=value)
    if type(value) is tuple:
        return tuple(initial(v) for v in value)
    return _record(value, _initial_part) or exact(value)


def pin_constants(skel: Skeleton, start: object, end: object) -> Skeleton:
    """`skel` with the loose constants that a loop body leaves as they were (`end` is the same
    constant as `start`) made static again: they need not be carried."""
    if isinstance(skel, CarriedType) and skel.loose is not None and is_loose(end) and \
            same_constant(start, end):
        return Fixed(start)
    if type(skel) is tuple and type(start) is tuple and type(end) is tuple and \
            len(start) == len(end) == len(skel):
        return tuple(pin_constants(s, a, b) for s, a, b in zip(skel, start, end, strict=True))
    if isinstance(skel, Record):
        starts, ends = records.split(start), records.split(end)
        if starts is not None and ends is not None and starts[0] == ends[0] == skel.key:
            return Record(skel.template, skel.key, tuple(
                (n, pin_constants(s, starts[1][n], ends[1][n])) for n, s in skel.parts))
    return skel


def join(name: str, skel: Skeleton, value: object) -> Skeleton:
    """The skeleton that holds what `skel` holds and `value` too, or a TileTypeError."""
    if isinstance(value, Undefined):
        raise value.error_for(name)
    if isinstance(skel, Fixed):
        if same_constant(skel.value, value):
            return skel
        if is_loose(skel.value) and (is_loose(value) or isinstance(value, TileValue)):
            start = CarriedType(semantics.constant_dtype(skel.value), (), loose=skel.value)
            return _join_leaf(name, start, value)
        if isinstance(skel, Shared) and exact(skel.value) != skel:  # a tile, tuple, record...
            return join(name, exact(skel.value), value)
        raise path_error(name, _describe(skel.value), _describe(value))
    if isinstance(skel, CarriedType):
        if not (is_loose(value) or isinstance(value, TileValue)):
            raise path_error(name, skel.describe(), _describe(value))
        return _join_leaf(name, skel, value)
    if isinstance(skel, ArraySlot):
        met = _array_meet(skel, value) if isinstance(value, ArrayValue) else None
        if met is None:
            raise path_error(name, describe(skel.template), _describe(value))
        return met
    whole = path_error(name, describe_skeleton(skel), _describe(value))
    if isinstance(skel, Record):
        split = records.split(value)
        if split is None or split[0] != skel.key:
            raise whole
        try:
            parts = tuple((n, join(name, s, split[1][n])) for n, s in skel.parts)
        except TileTypeError:
            raise whole from None
        return Record(skel.template, skel.key, parts)
    if isinstance(skel, Wrapper):
        if type(value) is not type(skel.template):
            raise whole
        try:
            fields = tuple((f, join(name, s, getattr(value, f))) for f, s in skel.fields)
        except TileTypeError:
            raise whole from None
        return Wrapper(skel.template, fields)
    if type(value) is not tuple or len(value) != len(skel):
        raise whole
    try:
        return tuple(join(name, s, v) for s, v in zip(skel, value, strict=True))
    except TileTypeError:
        raise whole from None


def join_branches(name: str, a: object, b: object) -> Skeleton:
    """The skeleton of a name that is `a` on one path and `b` on another (peers: both orders
    are tried, as lossless conversions go one way)."""
    try:
        return join(name, exact(a), b)
    except (TileTypeError, TileValueError) as first:
        try:
            return join(name, exact(b), a)
        except (TileTypeError, TileValueError):
            raise first from None


def _join_leaf(name: str, current: CarriedType, value: Any) -> CarriedType:
    if is_loose(value):
        if current.loose is not None:
            if semantics.category(semantics.constant_dtype(value)) != \
                    semantics.category(semantics.constant_dtype(current.loose)):
                # constants of two kinds (1 and 2.0, True and 1): no typed value chooses the
                # type, and each would be its own dtype (int32, float32), as in cuTile
                raise path_error(name, current.describe(), describe(value))
            wider = _py_join(current.loose, value)
            return CarriedType(semantics.constant_dtype(wider), current.shape, current.loose)
        semantics.check_fits(value, current.dtype)
        if semantics.category(semantics.constant_dtype(value)) > semantics.category(current.dtype):
            raise path_error(name, current.describe(), describe(value))
        return current
    try:
        shape = semantics.broadcast_shapes(current.shape, value.shape)
    except TileTypeError:
        raise path_error(name, current.describe(), describe(value)) from None
    if current.loose is not None:
        if semantics.category(value.dtype) > \
                semantics.category(semantics.constant_dtype(current.loose)):
            # `a = 1` before a loop whose body makes it a float: the constant was an int32 in
            # the body, the new value is not (cuTile's error too); `acc = 0.0` adopts any float
            raise path_error(name, current.describe(), describe(value))
        return CarriedType(semantics.promote_with_constant(value.dtype, current.loose), shape,
                           current.loose)
    if not semantics.lossless_cast(value.dtype, current.dtype):
        raise path_error(name, current.describe(), describe(value))
    return CarriedType(current.dtype, shape)


def _py_join(a: bool | int | float, b: bool | int | float) -> bool | int | float:
    """A loose constant standing for both `a` and `b` (the wider kind)."""
    return b if semantics.category(semantics.constant_dtype(b)) > \
        semantics.category(semantics.constant_dtype(a)) else a


def path_error(name: str, one: str, other: str) -> TileTypeError:
    """cuTile's message for a name whose type differs between paths."""
    return TileTypeError(
        f"Type of `{name}` depends on path taken: {one} vs. {other}",
        hint="make every path produce the same type (astype, broadcast_to, full)",
    )


def _describe(value: object) -> str:
    """`describe`, and what static values are (cuTile shows enum constants like this)."""
    if isinstance(value, enum.Enum):
        return f"<enum constant {type(value).__name__}.{value.name}>"
    if isinstance(value, DType):
        return f"dtype {value.name}"
    if value is None or isinstance(value, str):
        return repr(value)
    if type(value) is tuple:
        return "tuple (" + ", ".join(_describe(v) for v in value) + ")"
    if records.split(value) is not None:
        return records.describe_record(value)
    return describe(value)


describe_value = _describe  # how messages show a value: a constant's value, a tile's type


def describe_skeleton(skel: Skeleton) -> str:
    if isinstance(skel, CarriedType):
        return skel.describe()
    if isinstance(skel, Fixed):
        return _describe(skel.value)
    if isinstance(skel, ArraySlot | Wrapper):
        return describe(skel.template)
    if isinstance(skel, Record):
        return records.describe_record(skel.template)
    return "tuple (" + ", ".join(describe_skeleton(s) for s in skel) + ")"


# ----- leaves ----------------------------------------------------------------------------------


def mlir_types(skel: Skeleton) -> list[ir.Type]:
    """The types of the run-time leaves, in order."""
    if isinstance(skel, CarriedType):
        return [tensor_type(skel.shape, skel.dtype)]
    if isinstance(skel, ArraySlot):
        return [skel.type]
    if isinstance(skel, Fixed):
        return []
    return [t for s in _children(skel) for t in mlir_types(s)]


def _children(skel: Wrapper | Record | tuple) -> list[Skeleton]:
    if isinstance(skel, Wrapper):
        return [s for _, s in skel.fields]
    if isinstance(skel, Record):
        return [s for _, s in skel.parts]
    return list(skel)


def leaves(skel: Skeleton, value: Any) -> list[ir.Value]:
    """`value`'s run-time leaves, converted to the skeleton's types; placeholders for a value
    that is undefined on this path (it is never read there)."""
    if isinstance(value, Undefined):
        if value.value is None:
            return placeholders(skel)
        value = value.value
    if isinstance(skel, CarriedType):
        tile = build.to_tile(value, skel.dtype)
        return [build.broadcast_to(tile, skel.shape).value]
    if isinstance(skel, ArraySlot):
        return [_weakened(value, skel.type)]
    if isinstance(skel, Fixed):
        return []
    if isinstance(skel, Wrapper):
        return [v for f, s in skel.fields for v in leaves(s, getattr(value, f))]
    if isinstance(skel, Record):
        parts = records.split(value)[1]  # type: ignore[index]
        return [v for n, s in skel.parts for v in leaves(s, parts[n])]
    return [v for s, item in zip(skel, value, strict=True) for v in leaves(s, item)]


def rebuild(skel: Skeleton, it: Iterator[ir.Value]) -> object:
    """The front-end value whose leaves are the next values of `it`."""
    if isinstance(skel, CarriedType):
        return TileValue(next(it), skel.dtype, skel.shape)
    if isinstance(skel, ArraySlot):
        return dataclasses.replace(skel.template, value=next(it))
    if isinstance(skel, Fixed):
        return skel.value
    if isinstance(skel, Wrapper):
        fields = {f: rebuild(s, it) for f, s in skel.fields}
        return dataclasses.replace(skel.template, **fields)
    if isinstance(skel, Record):
        parts = {n: rebuild(s, it) for n, s in skel.parts}
        split = records.split(skel.template)
        assert split is not None, "a Record's template is a record"
        if all(parts[n] is v for n, v in split[1].items()):
            return skel.template  # nothing differs: the record itself (a live closure stays so)
        return records.assemble(skel.template, parts)
    return tuple(rebuild(s, it) for s in skel)


def placeholders(skel: Skeleton) -> list[ir.Value]:
    """Leaves for a path where the value does not exist: zeros, or a kernel array."""
    if isinstance(skel, CarriedType):
        return [build.broadcast_to(build.constant(0, skel.dtype), skel.shape).value]
    if isinstance(skel, ArraySlot):
        return [_kernel_array(skel)]
    if isinstance(skel, Fixed):
        return []
    return [v for s in _children(skel) for v in placeholders(s)]


def _kernel_array(slot: ArraySlot) -> ir.Value:
    """A kernel argument of the slot's array type, or one that weakens to it (it dominates
    every use)."""
    template = slot.template
    op = ir.InsertionPoint.current.block.owner
    while op is not None and op.name != "func.func":
        op = op.parent
    if op is not None:
        args = list(op.regions[0].blocks[0].arguments)
        for arg in args:
            if arg.type == slot.type:
                return arg
        for arg in args:
            if _implies(arg.type, slot.type):
                array = dataclasses.replace(template, value=arg, static_shape=(),
                                            static_strides=())
                return _weakened(array, slot.type)
    raise TileUnsupportedFeatureError(
        f"`{template.name}`: an array that exists on only some paths through run-time control "
        "flow cannot be carried out of it", hint="assign the array before the `if` or loop")


# ----- comparisons -----------------------------------------------------------------------------


def same_constant(a: Any, b: Any) -> bool:
    """The same static value: the same object, or equal constants of one Python type."""
    if a is b:
        return True
    if type(a) is not type(b) or isinstance(a, TileValue | ArrayValue | Undefined):
        return False
    if type(a) is tuple:
        return len(a) == len(b) and all(same_constant(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, WRAPPERS):
        return all(same_constant(getattr(a, f.name), getattr(b, f.name))
                   for f in dataclasses.fields(a) if f.name != "name")
    try:
        return bool(a == b)
    except Exception:
        return False


def _same_facts(a: ArrayValue, b: ArrayValue) -> bool:
    """The same dtype, rank, index width and compiled-in extents and strides."""
    facts = [f.name for f in dataclasses.fields(a) if f.name not in ("value", "name")]
    return all(getattr(a, f) == getattr(b, f) for f in facts)


def _array_meet(slot: ArraySlot, value: ArrayValue) -> ArraySlot | None:
    """The slot holding the arrays of `slot` and `value`: the facts both have (an array with
    unit strides meets one without: cuTile's array type has no strides to differ in), or None
    for arrays of another dtype, rank or index width."""
    from tilelang.dialect import array_type, parse_array_type

    a = slot.template
    if (a.dtype, a.ndim, a.index_dtype) != (value.dtype, value.ndim, value.index_dtype):
        return None
    if slot.type == value.value.type and _same_facts(a, value):
        return slot
    if value.ndim == 0:
        return None  # a 0-d array has no axis to take the weakening view along
    dtype, unit_a, align_a = parse_array_type(slot.type)
    _, unit_b, align_b = parse_array_type(value.value.type)
    met = array_type(dtype, tuple(x and y for x, y in zip(unit_a, unit_b, strict=True)),
                     min(align_a, align_b))
    template = dataclasses.replace(a, static_shape=_common(a.static_shape, value.static_shape),
                                   static_strides=_common(a.static_strides,
                                                          value.static_strides))
    return ArraySlot(template, None if met == template.value.type else met)


def _common(a: tuple[int | None, ...], b: tuple[int | None, ...]) -> tuple[int | None, ...]:
    """Compiled-in extents (or strides) both arrays have; () when none."""
    if not a or not b:
        return ()
    both = tuple(x if x == y else None for x, y in zip(a, b, strict=True))
    return () if all(x is None for x in both) else both


def _implies(strong: ir.Type, weak: ir.Type) -> bool:
    """Arrays of type `strong` have every fact of type `weak`."""
    from tilelang.dialect import parse_array_type

    try:
        (d1, u1, a1), (d2, u2, a2) = parse_array_type(strong), parse_array_type(weak)
    except ValueError:
        return False
    return d1 is d2 and len(u1) == len(u2) and a1 >= a2 and \
        all(x or not y for x, y in zip(u1, u2, strict=True))


def _weakened(array: ArrayValue, to: ir.Type) -> ir.Value:
    """`array` as an array of the weaker type `to`: the view of all of it along axis 0 (a
    `tile.slice` from 0 to its extent, whose facts are its result type's)."""
    from tilelang.dialect import ops

    if array.value.type == to:
        return array.value
    known = array.static_shape[0] if array.static_shape else None
    dtype = array.index_dtype
    if known is not None:
        extent = build.constant(known, dtype)
    else:
        dim = ops.create("dim", [array.value], [tensor_type((), dtype)], dim=0)
        extent = TileValue(dim.result, dtype, ())
    zero = build.constant(0, dtype)
    return ops.create("slice", [array.value, zero.value, extent.value], [to], axis=0).result


def has_leaves(skel: Skeleton) -> bool:
    return bool(mlir_types(skel))


def is_static(value: object) -> bool:
    """A value with no run-time part (it is valid anywhere in the kernel)."""
    return not isinstance(value, Undefined) and not has_leaves(exact(value))


def fitting_leaves(name: str, skel: Skeleton, value: object) -> list[ir.Value]:
    """`value`'s leaves when it fits `skel`, else placeholders (for a value that is never read
    on this path: undefined, or of another type, there)."""
    if isinstance(value, Undefined):
        value = value.value
    if value is None and not (isinstance(skel, Fixed) and skel.value is None):
        return placeholders(skel)
    try:
        fits = join(name, skel, value) == skel
    except (TileTypeError, TileValueError):
        fits = False
    return leaves(skel, value) if fits else placeholders(skel)
