"""Passes (tile-opt): tile-fold-constants: evaluate element-wise ops on constant operands."""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir
import numpy as np

from tilelang.dialect import directed, dtype_of, ops, rounding, semantics
from tilelang.dialect.types import is_tile_type
from tilelang.passes.ir_utils import name, replace, uniform_constant, walk_ops

NAME = "tile-fold-constants"


@dataclass(frozen=True)
class Options:
    pass


def run(module: ir.Operation, options: Options) -> None:
    """Replace element-wise ops whose operands are (splats of) constants by the constant result.

    Values come from the interpreter's semantics, so folding can never disagree with execution.
    """
    for op in walk_ops(module):
        if not _foldable(op):
            continue
        found = [uniform_constant(v) for v in op.operands]
        constants = [c for c in found if c is not None]
        if len(constants) < len(found):
            continue
        if _divides_by_zero(op, constants):
            continue  # undefined on the GPU: left as it is rather than given a value
        value = _evaluate(op, [semantics.hold(v, d) for v, d in constants])
        _replace_with_constant(op, value)


def _divides_by_zero(op: ir.Operation, constants: list) -> bool:
    divisor, dtype = constants[-1]
    return name(op) in ("tile.floordiv", "tile.mod") and not dtype.is_float and divisor == 0


def _foldable(op: ir.Operation) -> bool:
    n = name(op)
    return bool(op.operands) and (
        n in semantics.BINARY or n in semantics.UNARY or n in ("tile.cmp", "tile.select",
                                                                "tile.cast")
    )


def _evaluate(op: ir.Operation, args: list[np.ndarray]) -> np.ndarray:
    n = name(op)
    mode = ops.str_attr(op, "rounding_mode") if "rounding_mode" in op.attributes else None
    with np.errstate(all="ignore"):
        if n in semantics.BINARY:
            return directed.binary_meaning(n, mode, semantics.BINARY[n])(*args)
        if n in semantics.UNARY:
            return directed.unary_meaning(n, mode, semantics.UNARY[n])(*args)
        if n == "tile.cmp":
            return semantics.compare(ops.str_attr(op, "predicate"), *args)
        if n == "tile.select":
            return semantics.select(*args)
        return rounding.cast(args[0], dtype_of(op.results[0].type), mode)


def _replace_with_constant(op: ir.Operation, value: np.ndarray) -> None:
    result_type = op.results[0].type
    dtype = dtype_of(result_type)
    with ir.InsertionPoint(op), op.location:
        scalar_type = ir.Type.parse(dtype.mlir)
        attr = ops.constant_attr(semantics.widen_restricted(value).item(), dtype)
        new = ops.create("constant", [], [scalar_type], value=attr).result
        if is_tile_type(result_type):
            new = ops.create("splat", [new], [result_type]).result
    replace(op, new)
