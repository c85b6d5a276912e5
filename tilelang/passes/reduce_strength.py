"""Passes (tile-opt): tile-reduce-strength: a float raised to the constant power 2, 3 or 4
becomes products.

`x ** 2` (cuTile's variance idiom) and `x ** 3` (GELU's tanh form) otherwise lower to the
general `pow` (libdevice's `__nv_powf`: about 60 instructions and two branches per element),
which made the variance loop of a layer norm compute-bound and, in a GEMM's epilogue, kept
every element's temporaries live across the branches (1.5 KB of spills at 128x256).

Precision. A square is exact where it matters: the interpreter's meaning of pow
(dialect/semantics.power) computes in a wider float whose product of two narrower values is
exact, then rounds once, which is what the rounded product gives; for float64 both are within
half an ulp of the exact square, and the product is the correctly rounded one. Cubes and fourth
powers of float16 and bfloat16 are multiplied in float32 (a bfloat16 cube is exact there) and
rounded once; float32 and float64 ones round at each product (within 1.5 ulp of the exact power,
where CUDA's powf and pow guarantee 4 and 2 ulp). Run-time exponents, other constants and
integer powers keep their pow.
"""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir

from tilelang.dialect import dtype_of, op_table, ops
from tilelang.dialect.types import is_tile_type, mlir_type, shape_of
from tilelang.language import dtypes
from tilelang.passes.ir_utils import name, replace, uniform_constant, walk_ops

NAME = "tile-reduce-strength"
EXPONENTS = (2, 3, 4)


@dataclass(frozen=True)
class Options:
    pass


def run(module: ir.Operation, options: Options) -> None:
    """Replace float `pow(x, n)` (n a constant or splat 2, 3 or 4) by products."""
    for op in walk_ops(module):
        if name(op) != op_table.POW.name or not dtype_of(op.results[0].type).is_float:
            continue
        exponent = uniform_constant(op.operands[1])
        if exponent is None or exponent[0] not in EXPONENTS:
            continue
        with ir.InsertionPoint(op), op.location:
            power = _products(op.operands[0], op.results[0].type, int(exponent[0]))
        replace(op, power)


def _products(x: ir.Value, result: ir.Type, n: int) -> ir.Value:
    """x ** n for n in 2..4 as products: in float32 for a 16-bit float's cube or fourth power,
    rounded once at the end."""
    def mul(a: ir.Value, b: ir.Value) -> ir.Value:
        return ops.create(op_table.MUL.short, [a, b], [a.type]).results[0]

    if n == 2:
        return mul(x, x)
    narrow = dtype_of(result).itemsize == 2
    wide_type = _float32_like(result) if narrow else result
    w = ops.create(op_table.CAST.short, [x], [wide_type]).results[0] if narrow else x
    square = mul(w, w)
    power = mul(square, w) if n == 3 else mul(square, square)
    return ops.create(op_table.CAST.short, [power], [result]).results[0] if narrow else power


def _float32_like(t: ir.Type) -> ir.Type:
    """`t` (a scalar or tile type) with float32 elements, its layout dropped (tile-opt has none)."""
    f32 = mlir_type(dtypes.float32)
    return ir.RankedTensorType.get(list(shape_of(t)), f32) if is_tile_type(t) else f32
