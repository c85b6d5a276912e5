"""Compilation: a kernel signature as tilelang's specialization (one ParamSpec per parameter),
checked against the kernel's parameters and their annotations.

What the compiler specializes on, from each array constraint:
- `stride_constant` 1 makes the axis unit-stride, as a launch does for such arrays (vector
  accesses along it), unless `shape_constant` is 1 (an axis that never moves: its stride
  does not matter, and a launch does not count it);
- the alignment (bytes, up to 16) is the largest power of two dividing
  `base_addr_divisible_by` and, in bytes, the stride (`stride_constant`, else
  `stride_divisible_by`) of every other axis: what a launch computes from an array;
- every other `shape_constant` / `stride_constant`, and those of the axes the parameter's
  `ArrayAnnotation` lists (which must be given), are compiled in: `x.shape[d]` /
  `x.strides[d]` are constants in the kernel;
- `index_dtype` is the dtype of `x.shape` and `x.strides`.
Lower bounds, extent factors and alias groups are checked and kept in the symbol, but grant
nothing: tilelang's code is correct for any strides' signs and for arrays that share memory.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

from tilelang.compilation.constraints import (
    ArrayConstraint,
    ConstantConstraint,
    ListConstraint,
    ParameterConstraint,
    ScalarConstraint,
    TupleConstraint,
)
from tilelang.compilation.from_args import MAX_ALIGN, power_of_two
from tilelang.compilation.signature import KernelSignature
from tilelang.errors import TileArgumentError, TileArgumentValueError
from tilelang.interface import kinds
from tilelang.interface.arguments import foreign_dtype
from tilelang.interface.specs import (
    ArraySpec,
    ConstSpec,
    ListSpec,
    ParamSpec,
    ScalarSpec,
    TupleSpec,
)
from tilelang.language import dtypes as dt
from tilelang.language.annotations import ArrayAnnotation

if TYPE_CHECKING:
    from tilelang.interface.kernel import Kernel

# restricted floats that kernels take as scalar arguments (as their bytes)
_RESTRICTED_SCALARS = (dt.float8_e4m3fn, dt.float8_e5m2)


class Path:
    """Which parameter (and which item of it) a constraint is for, for messages."""

    def __init__(self, kernel: str, name: str, items: tuple[int, ...] = ()):
        self.kernel, self.name, self.items = kernel, name, items

    def item(self, i: int) -> Path:
        return Path(self.kernel, self.name, (*self.items, i))

    def error(self, message: str, hint: str = "",
              cls: type[TileArgumentError] = TileArgumentError) -> TileArgumentError:
        what = f"kernel parameter '{self.name}'"
        for i in self.items:
            what = f"item #{i} of {what}"
        return cls(f"Invalid {what}: {message}",
                   hint=f"kernel {self.kernel}" + (f"; {hint}" if hint else ""))


def signature_specs(kernel: Kernel, signature: KernelSignature) -> tuple[ParamSpec, ...]:
    """tilelang's specialization for `signature`, one entry per parameter of `kernel`."""
    if not isinstance(signature, KernelSignature):
        raise TileArgumentError(f"expected a KernelSignature, got {type(signature).__name__}")
    params = kernel.params
    if len(signature.parameters) != len(params):
        listed = ", ".join(p.name for p in params)
        raise TileArgumentError(
            f"the signature has {len(signature.parameters)} parameter constraints but kernel "
            f"{kernel.name} takes {len(params)} parameters: {kernel.name}({listed})",
            hint="give one constraint per kernel parameter, constants included")
    return tuple(param_spec(c, p.kind, Path(kernel.name, p.name))
                 for c, p in zip(signature.parameters, params, strict=True))


def param_spec(c: ParameterConstraint, kind: kinds.Kind, where: Path) -> ParamSpec:
    """The ParamSpec of one constraint, for a parameter whose annotation asks `kind`."""
    if isinstance(kind, kinds.Const):
        return ConstSpec(_constant_value(c, where))
    if isinstance(c, TupleConstraint):
        return _tuple(c, kind, where)
    if isinstance(kind, kinds.Tuple):
        raise where.error(f"the parameter is annotated as a tuple, but the constraint is "
                          f"{_name(c)}", hint="give a TupleConstraint")
    if isinstance(c, ConstantConstraint):
        return _compiled_in(c, where)
    if isinstance(c, ScalarConstraint):
        return _scalar(c, kind, where)
    if isinstance(c, ArrayConstraint):
        if isinstance(kind, kinds.Scalar | kinds.ArrayList):
            raise where.error(f"the parameter is annotated as {_annotated(kind)}, but the "
                              "constraint is an ArrayConstraint")
        annotation = kind.annotation if isinstance(kind, kinds.Array) else kinds.DEFAULT_ARRAY
        return array_spec(c, annotation, where)
    assert isinstance(c, ListConstraint)
    if isinstance(kind, kinds.Scalar | kinds.Array):
        raise where.error(f"the parameter is annotated as {_annotated(kind)}, but the "
                          "constraint is a ListConstraint")
    return _list(c, kind.element if isinstance(kind, kinds.ArrayList) else kinds.DEFAULT_ARRAY,
                 where)


def _name(c: ParameterConstraint) -> str:
    return type(c).__name__


def _annotated(kind: kinds.Kind) -> str:
    if isinstance(kind, kinds.Scalar):
        return f"a {kind.dtype.name} scalar (ScalarAnnotation)"
    if isinstance(kind, kinds.Array):
        return "an array (ArrayAnnotation)"
    return "a list of arrays (ListAnnotation)"


def _constant_value(c: ParameterConstraint, where: Path) -> object:
    """The value of a `Constant` parameter: a ConstantConstraint, or a tuple of them."""
    if isinstance(c, ConstantConstraint):
        return foreign_dtype(c.value) or c.value
    if isinstance(c, TupleConstraint):
        return tuple(_constant_value(item, where.item(i)) for i, item in enumerate(c.items))
    raise where.error(
        f"Expected a scalar/tuple constant, as implied by the Constant annotation, got {_name(c)}",
        hint="give the value the kernel is compiled with: ConstantConstraint(64), or just 64")


def _compiled_in(c: ConstantConstraint, where: Path) -> ConstSpec:
    """A constant for a parameter without `Constant`: only what a launch compiles in."""
    value = c.value
    if value is None or isinstance(value, dt.DType | enum.Enum) or \
            foreign_dtype(value) is not None:
        return ConstSpec(foreign_dtype(value) or value)
    raise where.error(
        "ConstantConstraint is only valid for parameters annotated as Constant.",
        hint="annotate the parameter `ct.Constant[...]`, or describe the run-time value "
             "(ScalarConstraint(ct.int32), ...)")


def _scalar(c: ScalarConstraint, kind: kinds.Kind, where: Path) -> ScalarSpec:
    if isinstance(kind, kinds.Array | kinds.ArrayList):
        raise where.error(f"the parameter is annotated as {_annotated(kind)}, but the "
                          "constraint is a ScalarConstraint")
    if isinstance(kind, kinds.Scalar) and kind.dtype != c.dtype:
        raise where.error(f"ScalarConstraint.dtype {c.dtype.name} does not match the "
                          f"annotated dtype {kind.dtype.name}.")
    if c.dtype.restricted and c.dtype not in _RESTRICTED_SCALARS:
        raise where.error(f"tilelang cannot pass a {c.dtype.name} scalar to a kernel",
                          hint="pass it as another dtype and convert it in the kernel")
    return ScalarSpec(c.dtype)


def _tuple(c: TupleConstraint, kind: kinds.Kind, where: Path) -> TupleSpec:
    if isinstance(kind, kinds.Scalar | kinds.Array | kinds.ArrayList):
        raise where.error(f"the parameter is annotated as {_annotated(kind)}, but the "
                          "constraint is a TupleConstraint")
    if isinstance(kind, kinds.Tuple) and kind.items is not None and \
            len(kind.items) != len(c.items):
        raise where.error(f"Received a tuple of length {len(c.items)} but the annotation "
                          f"implies length {len(kind.items)}.")
    return TupleSpec(tuple(
        param_spec(item, kind.item(i) if isinstance(kind, kinds.Tuple) else kinds.INFERRED,
                   where.item(i))
        for i, item in enumerate(c.items)))


def _list(c: ListConstraint, annotation: ArrayAnnotation, where: Path) -> ListSpec:
    if c.length is None:
        raise where.error(
            "tilelang compiles a list of arrays for a fixed number of arrays (each is passed "
            "on its own), and this ListConstraint has no length",
            hint="give ListConstraint(..., length=n), or build the signature with "
                 "KernelSignature.from_kernel_args")
    return ListSpec(array_spec(c.element, annotation, where), c.length)


def array_spec(c: ArrayConstraint, annotation: ArrayAnnotation, where: Path) -> ArraySpec:
    """What the compiler specializes on for an array constraint (the module's docstring)."""
    if c.index_dtype not in (dt.int32, dt.int64):
        raise where.error(f"tilelang indexes arrays with int32 or int64, not {c.index_dtype}",
                          hint="use index_dtype=ct.int32 or ct.int64")
    ndim = c.ndim
    shape_axes = _axes(annotation.static_shape_dims, ndim, "static_shape_dims", where)
    stride_axes = _axes(annotation.static_stride_dims, ndim, "static_stride_dims", where)
    _require(shape_axes, c.shape_constant, "static_shape_dims", "shape", where)
    _require(stride_axes, c.stride_constant, "static_stride_dims", "stride", where)
    one = tuple(n == 1 for n in c.shape_constant)  # an axis that never moves
    # (listing stride axes replaces the inferred unit strides; an axis that never moves is
    # not the contiguous one: runtime/host_arrays.unit_strides)
    unit = tuple(s == 1 and (not o or bool(stride_axes))
                 for s, o in zip(c.stride_constant, one, strict=True))
    shape = tuple(None if o and d not in shape_axes else n
                  for d, (n, o) in enumerate(zip(c.shape_constant, one, strict=True)))
    strides = tuple(s if s is not None and (s != 1 or d in stride_axes) else None
                    for d, s in enumerate(c.stride_constant))
    return ArraySpec(c.dtype, ndim, unit, _alignment(c, unit), c.index_dtype,
                     shape if any(n is not None for n in shape) else (),
                     strides if any(s is not None for s in strides) else ())


def _alignment(c: ArrayConstraint, unit: tuple[bool, ...]) -> int:
    """Bytes dividing the address and every moving non-unit stride in bytes (at least the
    element size, which every array's address is a multiple of)."""
    size = c.dtype.itemsize
    align = power_of_two(c.base_addr_divisible_by)
    for d in range(c.ndim):
        if unit[d] or c.shape_constant[d] == 1:
            continue
        stride = c.stride_constant[d]
        factor = stride * size if stride is not None else c.stride_divisible_by[d] * size
        align = min(align, power_of_two(factor))
    return max(align, min(size, MAX_ALIGN))


def _axes(dims: tuple[int, ...], ndim: int, what: str, where: Path) -> set[int]:
    found: set[int] = set()
    for d in dims:
        if not -ndim <= d < ndim:
            raise where.error(f"Axis {d} found in `{what}` is out of range for an array of "
                              f"rank {ndim}.", cls=TileArgumentValueError)
        if d % ndim in found:
            raise where.error(f"Axis {d} appears more than once in `{what}`.",
                              cls=TileArgumentValueError)
        found.add(d % ndim)
    return found


def _require(axes: set[int], values: tuple[int | None, ...], what: str, noun: str,
             where: Path) -> None:
    """The axes an ArrayAnnotation lists are compiled in: the constraint must give them."""
    for d in sorted(axes):
        if values[d] is None:
            raise where.error(
                f"Axis {d} is annotated in `{what}`, but no constant {noun} value is "
                "available there.",
                hint=f"give {noun}_constant[{d}] in the ArrayConstraint",
                cls=TileArgumentValueError)
