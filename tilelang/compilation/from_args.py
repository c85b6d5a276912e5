"""Compilation: the constraints of example arguments (`KernelSignature.from_kernel_args`):
the specialization a launch would compile (`Kernel.specialize`), plus what the arrays show
(divisibility of addresses, strides and extents, overlaps) written as cuTile's constraints."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from tilelang.compilation.constraints import (
    ArrayConstraint,
    ConstantConstraint,
    ListConstraint,
    ParameterConstraint,
    ScalarConstraint,
    TupleConstraint,
)
from tilelang.compilation.conventions import CallingConvention
from tilelang.errors import TileArgumentError
from tilelang.interface import kinds
from tilelang.interface.host_arrays import ArrayFacts, array_facts
from tilelang.interface.specs import (
    ArraySpec,
    ConstSpec,
    DataclassSpec,
    ListSpec,
    ParamSpec,
    ScalarSpec,
    TupleSpec,
)
from tilelang.language.annotations import ArrayAnnotation

if TYPE_CHECKING:
    from tilelang.interface.kernel import Kernel

MAX_ALIGN = 16  # bytes: the widest access (and the most tilelang specializes on)
SHAPE_FACTOR = 16  # extents divisible by it are recorded as such (cuTile's rule)


def constraints_from_args(kernel: Kernel, args: Sequence[Any],
                          convention: CallingConvention) -> list[ParameterConstraint]:
    """One constraint per parameter of `kernel` for the arguments `args`."""
    signature = kernel.specialize(args)  # the launch's own checks and messages
    overlaps = Overlaps(signature, args)
    return [_constraint(spec, value, param.kind, convention, overlaps, (i,), param.name)
            for i, (param, spec, value) in enumerate(zip(kernel.params, signature, args,
                                                         strict=True))]


def _constraint(spec: ParamSpec, value: Any, kind: kinds.Kind, convention: CallingConvention,
                overlaps: Overlaps, path: tuple[int, ...], name: str) -> ParameterConstraint:
    if isinstance(spec, ConstSpec):
        return _constant(spec.value)
    if isinstance(spec, ScalarSpec):
        return ScalarConstraint(spec.dtype)
    if isinstance(spec, ArraySpec):
        annotation = kind.annotation if isinstance(kind, kinds.Array) else kinds.DEFAULT_ARRAY
        return array_constraint(spec, _facts(value), annotation, convention,
                                overlaps.groups(path))
    if isinstance(spec, ListSpec):
        element = kind.element if isinstance(kind, kinds.ArrayList) else kinds.DEFAULT_ARRAY
        return _list(spec, value, element, convention, overlaps, path)
    if isinstance(spec, TupleSpec):
        return TupleConstraint([
            _constraint(item, value[i], kind.item(i) if isinstance(kind, kinds.Tuple)
                        else kinds.INFERRED, convention, overlaps, (*path, i), f"{name}[{i}]")
            for i, item in enumerate(spec.items)])
    assert isinstance(spec, DataclassSpec)
    raise TileArgumentError(
        f"argument `{name}` is a {spec.cls.__name__} instance: a KernelSignature cannot "
        "describe dataclass arguments (cuTile's needs its development calling convention v3)",
        hint="export such a kernel with Kernel.export (docs/export.md), or pass the fields as "
             "separate arguments")


def _constant(value: object) -> ParameterConstraint:
    if type(value) is tuple:
        return TupleConstraint([_constant(v) for v in value])
    return ConstantConstraint(value)


def _facts(value: object) -> ArrayFacts:
    facts = array_facts(value, "")
    assert facts is not None, "specialize accepted it as an array"
    return facts


def array_constraint(spec: ArraySpec, facts: ArrayFacts, annotation: ArrayAnnotation,
                     convention: CallingConvention,
                     groups: tuple[str, ...] = ()) -> ArrayConstraint:
    """The constraint of one array: the extents and strides the spec compiles in, unit strides
    (and, with v2, extents of 1) where no annotation lists the axes, the divisibility of the
    address and of every stride (powers of two up to 16 bytes), extents divisible by 16."""
    ndim, size = spec.ndim, spec.dtype.itemsize
    shape: list[int | None] = list(spec.static_shape or (None,) * ndim)
    strides: list[int | None] = list(spec.static_strides or (None,) * ndim)
    for d in range(ndim):
        if not annotation.static_shape_dims and convention.version >= 2 and facts.shape[d] == 1:
            shape[d] = 1
        if not annotation.static_stride_dims and facts.strides[d] == 1:
            strides[d] = 1
    return ArrayConstraint(
        spec.dtype, ndim, index_dtype=spec.index_dtype,
        stride_lower_bound_incl=[0 if s >= 0 else None for s in facts.strides],
        alias_groups=groups, may_alias_internally=not disjoint(facts),
        stride_constant=strides, shape_constant=shape,
        stride_divisible_by=[max(1, power_of_two(s * size) // size) if size else 1
                             for s in facts.strides],
        shape_divisible_by=[SHAPE_FACTOR if n % SHAPE_FACTOR == 0 else 1 for n in facts.shape],
        base_addr_divisible_by=power_of_two(facts.ptr))


def power_of_two(value: int, limit: int = MAX_ALIGN) -> int:
    """The largest power of two up to `limit` dividing `value` (`limit` for 0)."""
    found = 1
    while found < limit and value % (found * 2) == 0:
        found *= 2
    return found


def disjoint(facts: ArrayFacts) -> bool:
    """Whether different in-bounds indices always reach different elements: the moving axes,
    by stride, each step over the whole extent of the ones before."""
    if any(n == 0 for n in facts.shape):
        return True
    moving = sorted((abs(s), n) for s, n in zip(facts.strides, facts.shape, strict=True)
                    if n > 1)
    span = 1
    for stride, extent in moving:
        if stride < span:
            return False
        span = stride * extent
    return True


def _list(spec: ListSpec, values: list[Any], annotation: ArrayAnnotation,
          convention: CallingConvention, overlaps: Overlaps,
          path: tuple[int, ...]) -> ListConstraint:
    element = None
    for value in values:
        item = array_constraint(spec.element, _facts(value), annotation, convention,
                                overlaps.groups(path))
        element = item if element is None else _weaker(element, item)
    assert element is not None, "specialize refuses an empty list"
    return ListConstraint(element, alias_groups=(), elements_may_alias=path in overlaps.inside,
                          length=len(values))


def _weaker(a: ArrayConstraint, b: ArrayConstraint) -> ArrayConstraint:
    """What holds of both arrays of a list."""
    def same(x: tuple[Any, ...], y: tuple[Any, ...]) -> list[Any]:
        return [u if u == v else None for u, v in zip(x, y, strict=True)]

    def low(x: tuple[Any, ...], y: tuple[Any, ...]) -> list[Any]:
        return [None if u is None or v is None else min(u, v) for u, v in zip(x, y, strict=True)]

    shape, strides = same(a.shape_constant, b.shape_constant), same(a.stride_constant,
                                                                     b.stride_constant)
    # a factor of a known value that stops being known: the factor of the other's
    stride_div = [min(_factor(u, f), _factor(v, g)) for u, f, v, g in
                  zip(a.stride_constant, a.stride_divisible_by, b.stride_constant,
                      b.stride_divisible_by, strict=True)]
    shape_div = [min(_factor(u, f), _factor(v, g)) for u, f, v, g in
                 zip(a.shape_constant, a.shape_divisible_by, b.shape_constant,
                     b.shape_divisible_by, strict=True)]
    return ArrayConstraint(
        a.dtype, a.ndim, index_dtype=a.index_dtype,
        stride_lower_bound_incl=low(_bounds(a), _bounds(b)),
        alias_groups=sorted(set(a.alias_groups) | set(b.alias_groups)),
        may_alias_internally=a.may_alias_internally or b.may_alias_internally,
        stride_constant=strides, shape_constant=shape,
        stride_divisible_by=[f if s is None else 1 for f, s in zip(stride_div, strides,
                                                                    strict=True)],
        shape_divisible_by=[f if s is None else 1 for f, s in zip(shape_div, shape,
                                                                   strict=True)],
        base_addr_divisible_by=min(a.base_addr_divisible_by, b.base_addr_divisible_by))


def _factor(known: int | None, factor: int) -> int:
    return factor if known is None else power_of_two(known, 1 << 62)


def _bounds(a: ArrayConstraint) -> tuple[int | None, ...]:
    return tuple(s if s is not None else b
                 for s, b in zip(a.stride_constant, a.stride_lower_bound_incl, strict=True))


class Overlaps:
    """Which arrays of the arguments share memory: owners (an array argument, or a list
    argument's arrays together, by path) whose spans overlap are joined, and each set of joined
    owners is one alias group; a list whose own arrays overlap has `elements_may_alias`."""

    def __init__(self, signature: tuple[ParamSpec, ...], args: Sequence[Any]):
        leaves = [(path, _span(_facts(value))) for i, (spec, arg) in
                  enumerate(zip(signature, args, strict=True))
                  for path, value in _arrays(spec, arg, (i,))]
        self.inside: set[tuple[int, ...]] = set()
        parent: dict[tuple[int, ...], tuple[int, ...]] = {path: path for path, _ in leaves}

        def root(p: tuple[int, ...]) -> tuple[int, ...]:
            while parent[p] != p:
                p = parent[p]
            return p

        for i, (pa, (a0, a1)) in enumerate(leaves):
            for pb, (b0, b1) in leaves[i + 1:]:
                if a0 < b1 and b0 < a1:
                    if pa == pb:
                        self.inside.add(pa)
                    else:
                        parent[root(pa)] = root(pb)
        members: dict[tuple[int, ...], set[tuple[int, ...]]] = {}
        for path in parent:
            members.setdefault(root(path), set()).add(path)
        joined = sorted(min(m) for m in members.values() if len(m) > 1)
        self._names = {path: f"alias{joined.index(min(m))}"
                       for m in members.values() if len(m) > 1 for path in m}

    def groups(self, path: tuple[int, ...]) -> tuple[str, ...]:
        name = self._names.get(path)
        return () if name is None else (name,)


def _arrays(spec: ParamSpec, value: Any,
            path: tuple[int, ...]) -> Iterator[tuple[tuple[int, ...], Any]]:
    """(owner path, array) of each array of an argument: a list's arrays share their owner."""
    if isinstance(spec, ArraySpec):
        yield path, value
    elif isinstance(spec, ListSpec):
        for item in value:
            yield path, item
    elif isinstance(spec, TupleSpec):
        for i, item in enumerate(spec.items):
            yield from _arrays(item, value[i], (*path, i))


def _span(facts: ArrayFacts) -> tuple[int, int]:
    """The bytes [first, end) an array can reach."""
    size = facts.dtype.itemsize
    if any(n == 0 for n in facts.shape):
        return facts.ptr, facts.ptr
    low = sum(s * (n - 1) for s, n in zip(facts.strides, facts.shape, strict=True) if s < 0)
    high = sum(s * (n - 1) for s, n in zip(facts.strides, facts.shape, strict=True) if s > 0)
    return facts.ptr + low * size, facts.ptr + (high + 1) * size
