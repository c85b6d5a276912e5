"""Front end: build the `tile` module of one kernel specialization."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import mlir.ir as ir
from mlir.dialects import func

from tilelang.dialect import array_type, mlir_type
from tilelang.frontend import (  # noqa: F401  (register handlers)
    comprehensions,
    expressions,
    local_functions,
    statements,
)
from tilelang.frontend.emitter import Emitter, Frame, room_for_inlining, to_mlir_location
from tilelang.frontend.source import kernel_source
from tilelang.frontend.values import ArrayValue, ListValue, TileValue
from tilelang.interface.parameters import kernel_parameters
from tilelang.interface.specs import (
    ArraySpec,
    ConstSpec,
    DataclassSpec,
    ListSpec,
    ParamSpec,
    TupleSpec,
    leaves,
)


def build_module(fn: Callable[..., Any], signature: tuple[ParamSpec, ...],
                 num_warps: int) -> ir.Module:
    """Emit the kernel `fn` specialized for `signature` into a new module of the current context."""
    source = kernel_source(fn)
    params = kernel_parameters(fn)
    runtime = [(name, leaf) for p, s in zip(params, signature, strict=True)
               for name, leaf in _named_leaves(p.name, s)]
    arg_types = [_arg_type(s) for _, s in runtime]
    module = ir.Module.create(loc=ir.Location.unknown())
    with to_mlir_location(source.loc(source.tree)), ir.InsertionPoint(module.body):
        kernel = func.FuncOp(source.name, ir.FunctionType.get(arg_types, []))
        kernel.attributes["tile.kernel"] = ir.UnitAttr.get()
        kernel.attributes["tile.num_warps"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32),
                                                                 num_warps)
        kernel.arg_attrs = ir.ArrayAttr.get(
            [ir.DictAttr.get({"tile.name": ir.StringAttr.get(name)}) for name, _ in runtime]
        )
        entry = kernel.add_entry_block()
    scope: dict[str, Any] = {}
    args = iter(entry.arguments)
    for p, spec in zip(params, signature, strict=True):
        scope[p.name] = _param_value(p.name, spec, args)
    emitter = Emitter([Frame(source, scope, None)])
    with ir.InsertionPoint(entry), room_for_inlining():
        emitter.block(source.tree.body)
        with to_mlir_location(source.loc(source.tree)):
            func.ReturnOp([])
    return module


def _arg_type(spec: ParamSpec) -> ir.Type:
    if isinstance(spec, ArraySpec):
        return array_type(spec.dtype, spec.unit_stride, spec.align)
    return mlir_type(spec.dtype)  # type: ignore[union-attr]


def _named_leaves(name: str, spec: ParamSpec) -> list[tuple[str, Any]]:
    """The run-time leaves of a parameter, each named as Python would write it (`xs[1]`)."""
    names = list(_leaf_names(name, spec))
    return list(zip(names, (leaf for leaf, _ in leaves(spec)), strict=True))


def _leaf_names(name: str, spec: ParamSpec) -> Iterator[str]:
    if isinstance(spec, TupleSpec):
        for i, item in enumerate(spec.items):
            yield from _leaf_names(f"{name}[{i}]", item)
    elif isinstance(spec, ListSpec):
        yield from (f"{name}[{i}]" for i in range(spec.length))
    elif isinstance(spec, DataclassSpec):
        for field_name, item in spec.fields:
            yield from _leaf_names(f"{name}.{field_name}", item)
    elif not isinstance(spec, ConstSpec):
        yield name


def _param_value(name: str, spec: ParamSpec, args: Iterator[ir.Value]) -> Any:
    """What the kernel's name holds: constants, tiles, arrays, and tuples, lists and dataclass
    instances of those (rebuilt around the run-time leaves, taken from `args` in order)."""
    if isinstance(spec, ConstSpec):
        return spec.value
    if isinstance(spec, TupleSpec):
        return tuple(_param_value(f"{name}[{i}]", s, args) for i, s in enumerate(spec.items))
    if isinstance(spec, ListSpec):
        return ListValue(tuple(_param_value(f"{name}[{i}]", spec.element, args)
                               for i in range(spec.length)), name)
    if isinstance(spec, DataclassSpec):
        from tilelang.frontend.dataclass_values import make_instance

        fields = {f: _param_value(f"{name}.{f}", s, args) for f, s in spec.fields}
        return make_instance(spec.cls, fields)
    value = next(args)
    if isinstance(spec, ArraySpec):
        return ArrayValue(value, spec.dtype, spec.ndim, name, spec.index_dtype,
                          spec.static_shape, spec.static_strides)
    return TileValue(value, spec.dtype, ())
