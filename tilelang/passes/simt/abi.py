"""Passes (simt): the kernel calling convention shared by code generation and the runtime.

Parameters follow the kernel's non-constant parameters in order: an array of rank n becomes its
base pointer, then n extents, then n strides in elements (all i64); a scalar becomes one value
of its dtype (bools as one byte). Constant parameters are compiled in and not passed.
"""

from __future__ import annotations

import mlir.ir as ir

from tilelang.dialect import dtype_of, parse_array_type
from tilelang.passes.simt.values import ArrayArgs, i64, param_type

POINTER = "!llvm.ptr<1>"


def is_array(t: ir.Type) -> bool:
    return str(t).startswith("!tile.array")


def parameter_types(t: ir.Type) -> list[ir.Type]:
    """The kernel parameters one tile-stage argument of type `t` becomes."""
    if is_array(t):
        _, unit, _ = parse_array_type(t)
        return [ir.Type.parse(POINTER)] + [i64()] * (2 * len(unit))
    return [param_type(dtype_of(t))]


def array_args(t: ir.Type, params: list[ir.Value]) -> ArrayArgs:
    dtype, unit, align = parse_array_type(t)
    n = len(unit)
    return ArrayArgs(params[0], tuple(params[1:1 + n]), tuple(params[1 + n:]), dtype, unit, align)
