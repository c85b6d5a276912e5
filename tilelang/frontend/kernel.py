"""Front end: build the `tile` module of one kernel specialization."""

from __future__ import annotations

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
from tilelang.frontend.emitter import Emitter, Frame, to_mlir_location
from tilelang.frontend.signature import ArraySpec, ConstSpec, ParamSpec, kernel_parameters
from tilelang.frontend.source import parse_function
from tilelang.frontend.values import ArrayValue, TileValue


def build_module(fn: Any, signature: tuple[ParamSpec, ...], num_warps: int) -> ir.Module:
    """Emit the kernel `fn` specialized for `signature` into a new module of the current context."""
    source = parse_function(fn)
    params = kernel_parameters(fn)
    runtime = [(p, s) for p, s in zip(params, signature, strict=True)
               if not isinstance(s, ConstSpec)]
    arg_types = [_arg_type(s) for _, s in runtime]
    module = ir.Module.create(loc=ir.Location.unknown())
    with to_mlir_location(source.loc(source.tree)), ir.InsertionPoint(module.body):
        kernel = func.FuncOp(source.name, ir.FunctionType.get(arg_types, []))
        kernel.attributes["tile.kernel"] = ir.UnitAttr.get()
        kernel.attributes["tile.num_warps"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32),
                                                                 num_warps)
        kernel.arg_attrs = ir.ArrayAttr.get(
            [ir.DictAttr.get({"tile.name": ir.StringAttr.get(p.name)}) for p, _ in runtime]
        )
        entry = kernel.add_entry_block()
    scope: dict[str, Any] = {}
    args = iter(entry.arguments)
    for p, spec in zip(params, signature, strict=True):
        scope[p.name] = _param_value(p.name, spec, args)
    emitter = Emitter([Frame(source, scope, None)])
    with ir.InsertionPoint(entry):
        emitter.block(source.tree.body)
        with to_mlir_location(source.loc(source.tree)):
            func.ReturnOp([])
    return module


def _arg_type(spec: ParamSpec) -> ir.Type:
    if isinstance(spec, ArraySpec):
        return array_type(spec.dtype, spec.unit_stride, spec.align)
    return mlir_type(spec.dtype)  # type: ignore[union-attr]


def _param_value(name: str, spec: ParamSpec, args: Any) -> Any:
    if isinstance(spec, ConstSpec):
        return spec.value
    value = next(args)
    if isinstance(spec, ArraySpec):
        return ArrayValue(value, spec.dtype, spec.ndim, name)
    return TileValue(value, spec.dtype, ())
