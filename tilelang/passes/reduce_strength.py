"""Passes (tile-opt): tile-reduce-strength: a float raised to the constant power 2 becomes a
product with itself.

`x ** 2` (cuTile's variance idiom) otherwise lowers to the general `pow` (libdevice's
`__nv_powf`: about 60 instructions and two branches per element), which made the variance loop
of a layer norm compute-bound. The product is exact where it matters: the interpreter's meaning
of pow (dialect/semantics.power) computes in a wider float whose product of two narrower values
is exact, then rounds once, which is what the rounded product gives; for float64 both are within
half an ulp of the exact square, and the product is the correctly rounded one.
"""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir

from tilelang.dialect import dtype_of, op_table, ops
from tilelang.passes.ir_utils import name, replace, uniform_constant, walk_ops

NAME = "tile-reduce-strength"


@dataclass(frozen=True)
class Options:
    pass


def run(module: ir.Operation, options: Options) -> None:
    """Replace float `pow(x, 2)` (a constant or splat exponent) by `x * x`."""
    for op in walk_ops(module):
        if name(op) != op_table.POW.name or not dtype_of(op.results[0].type).is_float:
            continue
        exponent = uniform_constant(op.operands[1])
        if exponent is None or exponent[0] != 2:
            continue
        base = op.operands[0]
        with ir.InsertionPoint(op), op.location:
            product = ops.create(op_table.MUL.short, [base, base], [op.results[0].type])
        replace(op, product.results[0])
