"""Interface: the specialization entry of an argument, from its value and its parameter's
annotation (tuples, lists of arrays and dataclass instances included).

Errors name the argument the way cuTile does ("Invalid item #1 of kernel argument #2: ...").
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import inspect
import sys
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeGuard

from tilelang.errors import (
    TileArgumentError,
    TileArgumentOverflowError,
    TileArgumentValueError,
    TileTypeError,
)
from tilelang.interface import kinds
from tilelang.interface.host_arrays import (
    ArrayFacts,
    alignment,
    array_facts,
    is_numpy_scalar,
    unit_strides,
)
from tilelang.interface.parameters import Parameter
from tilelang.interface.specs import (
    ArraySpec,
    ConstSpec,
    DataclassSpec,
    ListSpec,
    ParamSpec,
    ScalarSpec,
    TupleSpec,
)
from tilelang.language import dtypes as dt
from tilelang.language.annotations import ArrayAnnotation
from tilelang.language.dtypes import DType

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
ACCEPTED = (
    "kernels take arrays (NumPy arrays and CPU torch tensors on the interpreter; on the GPU, "
    "CUDA arrays: torch tensors, CuPy arrays, any object with __dlpack__ or "
    "__cuda_array_interface__), Python int, float and bool and NumPy scalars, plain tuples of "
    "arguments, lists of arrays, frozen dataclass instances, and enum members, dtypes and None "
    "(compiled in); a Constant parameter takes any hashable value"
)


class _DataclassParams(Protocol):
    frozen: bool
    repr: bool


class DataclassInstance(Protocol):
    """An instance of a dataclass (what `is_instance` finds)."""

    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]
    __dataclass_params__: ClassVar[_DataclassParams]


@dataclass(frozen=True)
class Where:
    """Which argument (and which item or field inside it) is being read, for messages."""

    name: str  # how the value is written in Python: `pair`, `pair[1]`, `d.bar`
    position: int
    path: tuple[str, ...] = ()
    kernel: str = ""  # the kernel's name

    def item(self, i: int) -> Where:
        return Where(f"{self.name}[{i}]", self.position, (*self.path, f"item #{i}"), self.kernel)

    def field(self, name: str) -> Where:
        return Where(f"{self.name}.{name}", self.position, (*self.path, f"field '{name}'"),
                     self.kernel)

    def error(self, message: str, cls: type[TileArgumentError] = TileArgumentError,
              hint: str = "") -> Exception:
        what = " of ".join((*reversed(self.path), f"kernel argument #{self.position}"))
        of = f" of kernel {self.kernel}" if self.kernel else ""
        return cls(f"Invalid {what}: {message}",
                   hint=f"the argument is `{self.name}`{of}" + (f"; {hint}" if hint else ""))


def spec_of(param: Parameter, value: object, position: int, kernel: str = "") -> ParamSpec:
    """The specialization entry of the argument at `position` for `param` (of `kernel`)."""
    return _spec(param.kind, value, Where(param.name, position, kernel=kernel))


def _spec(kind: kinds.Kind, value: object, where: Where) -> ParamSpec:
    if isinstance(kind, kinds.Const):
        return _constant(value, where)
    if isinstance(kind, kinds.Scalar):
        return _typed_scalar(value, kind.dtype, where)
    if isinstance(kind, kinds.Array):
        return _array(value, kind.annotation, where)
    if isinstance(kind, kinds.ArrayList):
        return _list(value, kind.element, where)
    if isinstance(kind, kinds.Tuple):
        return _tuple(value, kind, where)
    return _inferred(value, where)


def _inferred(value: object, where: Where) -> ParamSpec:
    if isinstance(value, tuple):
        return _tuple(value, None, where)
    if type(value) is list:
        return _list(value, kinds.DEFAULT_ARRAY, where)
    if isinstance(value, enum.Enum | DType) or value is None or foreign_dtype(value):
        return _constant(value, where)  # no run-time form: compiled in, like a Constant
    if is_instance(value):
        return _dataclass(value, where)
    facts = array_facts(value, where.name)
    if facts is not None:
        return array_spec(facts, kinds.DEFAULT_ARRAY, where)
    if isinstance(value, bool | int | float) or is_numpy_scalar(value):
        return scalar_spec(value, where.name)
    if isinstance(value, str):
        raise where.error("Objects of type 'str' are only accepted for parameters annotated "
                          "as Constant.")
    raise where.error(f"Objects of type '{type(value).__name__}' are not supported",
                      hint=ACCEPTED)


def scalar_spec(value: object, name: str) -> ScalarSpec:
    if is_numpy_scalar(value):  # first: np.float64 is also a Python float
        found = dt.from_numpy(value.dtype)
        if found is None:
            raise TileArgumentError(f"argument `{name}` has unsupported dtype {value.dtype}")
        return ScalarSpec(found)
    if isinstance(value, bool):
        return ScalarSpec(dt.bool_)
    if isinstance(value, int):
        if -(2**31) <= value < 2**31:
            return ScalarSpec(dt.int32)
        if -(2**63) <= value < 2**63:
            return ScalarSpec(dt.int64)
        raise TileArgumentError(f"argument `{name}` = {value} does not fit in 64 bits")
    if isinstance(value, float):
        return ScalarSpec(dt.float32)
    dtype = getattr(value, "dtype", None)
    found = dt.from_numpy(dtype) if is_numpy_scalar(value) else None
    if found is None:
        raise TileArgumentError(
            f"argument `{name}` is a {type(value).__name__}; expected an array, a number "
            "or a NumPy scalar"
        )
    return ScalarSpec(found)


def is_instance(value: object) -> TypeGuard[DataclassInstance]:
    """An instance of a user's dataclass (the front end's own values are dataclasses too)."""
    return dataclasses.is_dataclass(value) and not isinstance(value, type) and \
        not type(value).__module__.startswith("tilelang.")


def _constant(value: object, where: Where) -> ConstSpec:
    _check_constant(value, where)
    try:
        hash(value)
    except TypeError:
        raise TileArgumentError(
            f"constant argument `{where.name}` must be hashable, got {type(value).__name__}"
        ) from None
    return ConstSpec(_tile_dtypes(value))


def foreign_dtype(value: object) -> DType | None:
    """The tilelang dtype of a torch or NumPy dtype (`torch.float32`, `np.dtype("i4")`,
    `np.float32`), or None."""
    module = type(value).__module__.split(".")[0]
    if module == "torch" and type(value).__name__ == "dtype":
        return dt.from_torch(value)
    if module == "numpy" and (type(value).__name__.endswith("DType") or
                              type(value).__name__ == "dtype"):
        return dt.from_numpy(value)
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, type) and issubclass(value, np.generic):
        return dt.from_numpy(np.dtype(value))  # np.float32 as a dtype
    return None


def _tile_dtypes(value: object) -> object:
    """Constants as a kernel sees them: torch and NumPy dtypes become tilelang's, so that
    `c == ct.float32` holds for `torch.float32`."""
    if isinstance(value, tuple) and type(value) is tuple:
        return tuple(_tile_dtypes(v) for v in value)
    return foreign_dtype(value) or value


def _check_constant(value: object, where: Where) -> None:
    if isinstance(value, tuple):
        for i, item in enumerate(value):
            _check_constant(item, where.item(i))
    elif array_facts(value, where.name) is not None:
        raise where.error(
            f"Could not interpret object of type '{type(value).__name__}' as a constant.")


def _typed_scalar(value: object, dtype: DType, where: Where) -> ScalarSpec:
    if isinstance(value, bool) or not (isinstance(value, int) or
                                       (is_numpy_scalar(value) and value.dtype.kind in "iu")):
        raise where.error(f"expected an integer for a parameter annotated as a {dtype.name} "
                          f"scalar, got {type(value).__name__}")
    if not -(2 ** (dtype.bitwidth - 1)) <= int(value) < 2 ** (dtype.bitwidth - 1):
        raise where.error(f"{int(value)} does not fit in {dtype.name}")
    return ScalarSpec(dtype)


def _tuple(value: object, kind: kinds.Tuple | None, where: Where) -> TupleSpec:
    if type(value) is not tuple:
        if isinstance(value, tuple):
            raise where.error(f"'{type(value).__name__}' is a subclass of 'tuple'. "
                              "Only plain tuples are accepted.")
        raise where.error(f"expected a tuple, got {type(value).__name__}")
    if kind is not None and kind.items is not None and len(value) != len(kind.items):
        raise where.error(f"Received a tuple of length {len(value)} for a parameter annotated "
                          f"as a tuple of length {len(kind.items)}")
    return TupleSpec(tuple(
        _spec(kinds.INFERRED if kind is None else kind.item(i), item, where.item(i))
        for i, item in enumerate(value)))


def _array(value: object, annotation: ArrayAnnotation, where: Where,
           listed: str | None = None) -> ArraySpec:
    facts = array_facts(value, where.name)
    if facts is None:
        raise _not_an_array(value, where, listed)
    return array_spec(facts, annotation, where)


def _not_an_array(value: object, where: Where, listed: str | None) -> Exception:
    """`value` where an array belongs; `listed`: the name of the list argument it is in."""
    got = type(value).__name__
    if listed is not None:  # a list of numbers, most likely: meant as an array
        return where.error(
            f"expected an array, got {got}: argument `{listed}` is a list, and a list argument "
            "holds arrays (of one dtype and rank)",
            hint=f"to pass numbers, pass a NumPy array (np.asarray({listed})) or a tuple; "
                 f"{ACCEPTED}")
    if isinstance(value, list | tuple):
        return where.error(f"expected an array, got {got}",
                           hint=f"pass a NumPy array (np.asarray({where.name})); {ACCEPTED}")
    return where.error(f"expected an array, got {got}", hint=ACCEPTED)


def array_spec(facts: ArrayFacts, annotation: ArrayAnnotation, where: Where) -> ArraySpec:
    if annotation.index_dtype is not dt.int64:
        _check_int32_indexing(facts, where)
    ndim = len(facts.shape)
    shape_dims = _axes(annotation.static_shape_dims, ndim, "static_shape_dims", where)
    stride_dims = _axes(annotation.static_stride_dims, ndim, "static_stride_dims", where)
    static_shape = tuple(facts.shape[d] if d in shape_dims else None for d in range(ndim))
    static_strides = tuple(facts.strides[d] if d in stride_dims else None for d in range(ndim))
    # listing stride dimensions replaces the inferred unit strides (cuTile's rule)
    unit = tuple(s == 1 for s in static_strides) if stride_dims else unit_strides(facts)
    return ArraySpec(facts.dtype, ndim, unit, alignment(facts), annotation.index_dtype,
                     static_shape if shape_dims else (), static_strides if stride_dims else ())


def _check_int32_indexing(facts: ArrayFacts, where: Where) -> None:
    """cuTile's rule: without `IndexedWithInt64`, every extent and stride is an int32 value in
    the kernel, so one that does not fit is an OverflowError (not a silently wrapped value)."""
    for what, values in (("shape", facts.shape), ("stride", facts.strides)):
        for d, v in enumerate(values):
            if not INT32_MIN <= v <= INT32_MAX:
                raise where.error(
                    f"{what} is too big: {what} {v} of dimension {d} does not fit the int32 "
                    "indexing of an array parameter without the ct.IndexedWithInt64 annotation",
                    TileArgumentOverflowError)


def _axes(dims: tuple[int, ...], ndim: int, what: str, where: Where) -> set[int]:
    axes: set[int] = set()
    for d in dims:
        if not -ndim <= d < ndim:
            raise where.error(f"{what} contains axis {d}, out of range for a {ndim}-d array",
                              TileArgumentValueError)
        if d % ndim in axes:
            raise where.error(f"{what} contains duplicate axis {d}", TileArgumentValueError)
        axes.add(d % ndim)
    return axes


def _list(value: object, annotation: ArrayAnnotation, where: Where) -> ListSpec:
    if type(value) is not list:
        raise where.error(f"expected a list of arrays, got {type(value).__name__}")
    if not value:
        raise where.error("a list argument must hold at least one array")
    specs = [_array(item, annotation, where.item(i), where.name) for i, item in enumerate(value)]
    first = specs[0]
    for i, spec in enumerate(specs[1:], 1):
        if (spec.dtype, spec.ndim) != (first.dtype, first.ndim):
            raise where.item(i).error(
                f"a list holds arrays of one dtype and rank: {spec.describe()} after "
                f"{first.describe()}")
        for what, mine, theirs in (("shape", spec.static_shape, first.static_shape),
                                   ("stride", spec.static_strides, first.static_strides)):
            axis = next((d for d, (a, b) in enumerate(zip(mine, theirs, strict=True)) if a != b),
                        None)
            if axis is not None:
                raise where.error(f"the arrays of the list vary in static {what} at axis {axis}",
                                  TileArgumentValueError)
    unit = tuple(all(s.unit_stride[d] for s in specs) for d in range(first.ndim))
    align = min(s.align for s in specs)
    element = dataclasses.replace(first, unit_stride=unit, align=align)
    return ListSpec(element, len(specs))


def _dataclass(value: DataclassInstance, where: Where) -> DataclassSpec:
    cls: type = type(value)  # annotated: mypy takes type[Any] for no Hashable (lru_cache)
    if not cls.__dataclass_params__.frozen:  # type: ignore[attr-defined]
        raise TileTypeError("Only frozen dataclasses are supported",
                            hint=f"declare {cls.__qualname__} with @dataclass(frozen=True)")
    fields = tuple((f.name, _inferred(getattr(value, f.name), where.field(f.name)))
                   for f in dataclasses.fields(value))
    return DataclassSpec(cls, fields, class_key(cls))


@functools.lru_cache(maxsize=256)
def class_key(cls: type) -> str:
    """The class's name and a hash of its source: dataclass arguments key the disk cache."""
    try:
        text = inspect.getsource(cls)
    except (OSError, TypeError):
        text = ""
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    return f"{cls.__module__}.{cls.__qualname__}:{digest}"
