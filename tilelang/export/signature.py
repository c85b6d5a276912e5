"""Export: the signature of an exported kernel, from descriptions of its arguments.

An export names one specialization. Each entry of the signature is what a launch would pass
(a NumPy or torch array, a number, a constant's value, a tuple, a list, a dataclass instance),
or a description of an argument the C program will pass: `Array(dtype, ndim, ...)`, `Scalar(dtype)`.
Descriptions become small NumPy stand-ins with exactly the described facts, and the signature
comes from `Kernel.specialize`, the same code a launch runs, so an exported kernel is the one a
launch with such arguments would compile.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from tilelang.dialect.semantics import np_dtype
from tilelang.errors import TileArgumentError, TileValueError
from tilelang.interface import kinds
from tilelang.interface.arguments import DataclassInstance, foreign_dtype, is_instance
from tilelang.interface.specs import ArraySpec, LeafSpec, ParamSpec, leaves
from tilelang.language import dtypes as dt
from tilelang.language.dtypes import DType

if TYPE_CHECKING:
    from tilelang.interface.kernel import Kernel

ALIGNMENTS = (1, 2, 4, 8, 16)


def _dtype(value: object, what: str) -> DType:
    found = value if isinstance(value, DType) else foreign_dtype(value)
    if found is None and isinstance(value, str):
        found = dt.BY_NAME.get(value)
    if found is None:
        raise TileValueError(f"{what}: expected a dtype (ct.float32, 'float32', np.float32, "
                             f"torch.float32), got {value!r}")
    return found


@dataclass(frozen=True)
class Array:
    """An array argument the C program will pass: its dtype and rank, which axes have stride 1
    (default: the last one, as in row-major arrays), the alignment in bytes of its address and
    of every stride in bytes of the other axes (default: the element size, which every array
    has), and optionally extents or strides known in advance (None where not)."""

    dtype: Any
    ndim: int
    unit_stride: tuple[bool, ...] | None = None
    align: int | None = None
    shape: tuple[int | None, ...] | None = None
    strides: tuple[int | None, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "dtype", _dtype(self.dtype, "Array"))
        if isinstance(self.ndim, bool) or not isinstance(self.ndim, int) or self.ndim < 0:
            raise TileValueError(f"Array: ndim must be an int >= 0, got {self.ndim!r}")
        if self.unit_stride is None:
            unit = tuple(d == self.ndim - 1 for d in range(self.ndim))
            object.__setattr__(self, "unit_stride", unit)
        if self.align is None:
            object.__setattr__(self, "align", self.dtype.itemsize)
        self._check()

    def _check(self) -> None:
        for what in ("unit_stride", "shape", "strides"):
            value = getattr(self, what)
            if value is not None and (not isinstance(value, tuple) or len(value) != self.ndim):
                raise TileValueError(f"Array: {what} must be a tuple of {self.ndim} entries "
                                     f"(one per axis), got {value!r}")
        if self.align not in ALIGNMENTS or self.align < min(self.dtype.itemsize, 16):
            raise TileValueError(
                f"Array: align must be one of {ALIGNMENTS} bytes and at least the element size "
                f"({self.dtype.itemsize} for {self.dtype.name}), got {self.align!r}")
        for d, unit in enumerate(self.unit_stride or ()):
            stride = (self.strides or (None,) * self.ndim)[d]
            if unit and stride not in (None, 1):
                raise TileValueError(f"Array: axis {d} has unit_stride but stride {stride}")

    def __repr__(self) -> str:
        extra = "".join(f", {k}={getattr(self, k)!r}" for k in ("shape", "strides")
                        if getattr(self, k) is not None)
        return (f"Array({self.dtype.name}, {self.ndim}, unit_stride={self.unit_stride}, "
                f"align={self.align}{extra})")


@dataclass(frozen=True)
class Scalar:
    """A scalar argument the C program will pass, of this dtype."""

    dtype: Any

    def __post_init__(self) -> None:
        object.__setattr__(self, "dtype", _dtype(self.dtype, "Scalar"))

    def __repr__(self) -> str:
        return f"Scalar({self.dtype.name})"


Description = Array | Scalar


def export_signature(kernel: Kernel, entries: tuple[object, ...]) -> tuple[ParamSpec, ...]:
    """The signature `entries` select: checked against the kernel's parameters."""
    if len(entries) != len(kernel.params):
        listed = ", ".join(p.name for p in kernel.params)
        raise TileArgumentError(
            f"export of kernel {kernel.name}: the signature has {len(entries)} "
            f"entr{'y' if len(entries) == 1 else 'ies'}, the kernel takes {len(kernel.params)} "
            f"arguments: {kernel.name}({listed})",
            hint="give one entry per kernel parameter, constants included: an Array(...) or "
                 "Scalar(...) description, an example value, or a constant's value")
    for param, entry in zip(kernel.params, entries, strict=True):
        _check_kinds(param.kind, entry, param.name)
    standins: dict[int, Description] = {}
    values = tuple(_stand_in(entry, standins) for entry in entries)
    signature = kernel.specialize(values)
    for param, spec, value in zip(kernel.params, signature, values, strict=True):
        for leaf, item in leaves(spec, value):
            _check_leaf(param.name, leaf, standins.get(id(item)))
    return signature


def _check_kinds(kind: kinds.Kind, entry: object, where: str) -> None:
    """Descriptions must fit the parameter's annotation: a `Constant` needs a value, a
    `ScalarInt64` a scalar of its dtype, an array annotation an array."""
    if isinstance(kind, kinds.Const):
        found = _description_in(entry)
        if found is not None:
            raise TileArgumentError(
                f"parameter `{where}` is a Constant: the export needs its value, got {found!r}",
                hint="write the value the kernel is compiled with, e.g. 1024 for a tile size")
    elif isinstance(kind, kinds.Scalar) and isinstance(entry, Array | Scalar):
        if not (isinstance(entry, Scalar) and entry.dtype == kind.dtype):
            raise TileArgumentError(
                f"parameter `{where}` is annotated as a {kind.dtype.name} scalar, but the "
                f"signature describes {entry!r}", hint=f"write Scalar(ct.{kind.dtype.name})")
    elif isinstance(kind, kinds.Array | kinds.ArrayList) and isinstance(entry, Scalar):
        raise TileArgumentError(
            f"parameter `{where}` is annotated as an array, but the signature describes "
            f"{entry!r}", hint="describe it with Array(dtype, ndim, ...)")
    elif isinstance(kind, kinds.Tuple) and type(entry) is tuple:
        for i, item in enumerate(entry):
            if kind.items is None or i < len(kind.items):
                _check_kinds(kind.item(i), item, f"{where}[{i}]")


def _description_in(entry: object) -> Description | None:
    if isinstance(entry, Array | Scalar):
        return entry
    if isinstance(entry, tuple | list):
        return next((d for d in map(_description_in, entry) if d is not None), None)
    return None


def _stand_in(entry: object, standins: dict[int, Description]) -> object:
    """`entry` with every description replaced by a NumPy value that has its facts."""
    if isinstance(entry, Array):
        value = _array_stand_in(entry)
    elif isinstance(entry, Scalar):
        value = np_dtype(entry.dtype).type(0)
    elif type(entry) is tuple:
        return tuple(_stand_in(item, standins) for item in entry)
    elif type(entry) is list:
        return [_stand_in(item, standins) for item in entry]
    elif is_instance(entry) and _has_description(entry):
        changes = {f.name: _stand_in(getattr(entry, f.name), standins)
                   for f in dataclasses.fields(entry)}
        return dataclasses.replace(entry, **changes)
    else:
        return entry
    standins[id(value)] = entry
    return value


def _has_description(obj: DataclassInstance) -> bool:
    return any(_description_in(getattr(obj, f.name)) is not None or
               (is_instance(getattr(obj, f.name)) and _has_description(getattr(obj, f.name)))
               for f in dataclasses.fields(obj))


def _array_stand_in(desc: Array) -> np.ndarray:
    """A NumPy view whose facts (unit strides, alignment, known extents and strides) are
    exactly the description's: unknown extents are 2, so that every axis moves."""
    assert desc.unit_stride is not None and desc.align is not None, "set by __post_init__"
    size = desc.dtype.itemsize
    moving = max(2, desc.align // size)  # a non-unit stride, in elements, of `align` bytes
    shape = tuple(2 if s is None else s for s in desc.shape or (None,) * desc.ndim)
    strides = tuple(
        (1 if unit else moving) if given is None else given
        for unit, given in zip(desc.unit_stride, desc.strides or (None,) * desc.ndim,
                               strict=True))
    span = sum(abs(s) * max(n - 1, 0) for s, n in zip(strides, shape, strict=True)) + 1
    start = sum(abs(s) * max(n - 1, 0) for s, n in zip(strides, shape, strict=True) if s < 0)
    buffer = np.zeros((span + 1) * size + 64, np.uint8)
    # an address that is a multiple of `align` and of no larger power of two (up to 16)
    address = buffer.ctypes.data
    offset = (-address) % 32 + (desc.align if desc.align < 16 else 0)
    base = buffer[offset:offset + span * size].view(np_dtype(desc.dtype))
    return np.lib.stride_tricks.as_strided(
        base[start:], shape, tuple(s * size for s in strides), writeable=False)


def _check_leaf(param: str, leaf: LeafSpec, desc: Description | None) -> None:
    """What the kernel's annotations made of a description must still be what it says."""
    if isinstance(desc, Array) and isinstance(leaf, ArraySpec):
        for what, compiled, given in (("shape", leaf.static_shape, desc.shape),
                                      ("strides", leaf.static_strides, desc.strides)):
            _check_static(param, what, compiled or (None,) * leaf.ndim,
                          given or (None,) * leaf.ndim, desc)
        if leaf.align != desc.align:
            raise TileValueError(f"parameter `{param}`: the strides of {desc!r} are not "
                                 f"multiples of its {desc.align}-byte alignment")


def _check_static(param: str, what: str, compiled: tuple[int | None, ...],
                  given: tuple[int | None, ...], desc: Array) -> None:
    """`shape=` and `strides=` give exactly the values the parameter's ArrayAnnotation compiles
    in (static_shape_dims, static_stride_dims)."""
    noun = "extent" if what == "shape" else "stride"
    for axis, (value, told) in enumerate(zip(compiled, given, strict=True)):
        if value is not None and told is None:
            raise TileArgumentError(
                f"parameter `{param}` compiles in the {noun} of axis {axis} (its "
                f"ArrayAnnotation), but the signature's {desc!r} does not give it",
                hint=f"give it: Array(..., {what}=(...))")
        if value is None and told is not None:
            raise TileArgumentError(
                f"parameter `{param}` does not compile in the {noun} of axis {axis}, but the "
                f"signature's {desc!r} gives one",
                hint=f"leave that axis None in {what}=: the C program passes it at each launch")
