"""Passes (tile-opt): tile-fold-accumulations: `acc + mma(x, y, 0)` becomes `mma(x, y, acc)`.

Kernels ported from Triton accumulate as `acc += tl.dot(a, b)`: in tilelang,
`acc = acc + ct.mma(x, y, ct.zeros(...))`. That is the same product and the same float32
accumulation as `acc = ct.mma(x, y, acc)`, but the matrix-product loop lowerings
(passes/matmul_loops.py) recognise the accumulator only when the product adds into it itself:
the spelling with the add took the slower staged-products path (A through registers). Folding
the add into the product gives both spellings the same path.

The meaning stays within the product's documented precision (docs/language.md, "Precision"):
the tensor cores add the products into the accumulator in an order of their choosing, and the
add after a product into zero is one more such addition. Integer products (int32 accumulators,
wrapping) are exactly the same either way. Folded only when the zero is a splat of a constant 0
(or 0.0), the product's result has no other use and has the dtype and shape of `acc`, and the
add carries no attribute (a rounding mode).
"""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir

from tilelang.dialect import op_table, ops
from tilelang.passes.ir_utils import defining_op, name, replace, uniform_constant, walk_ops

NAME = "tile-fold-accumulations"


@dataclass(frozen=True)
class Options:
    pass


def run(module: ir.Operation, options: Options) -> None:
    """Fold `acc + mma(x, y, 0)` into `mma(x, y, acc)`."""
    for op in walk_ops(module):
        if name(op) != op_table.ADD.name or len(op.attributes) or len(op.operands) != 2:
            continue
        for acc, product in (tuple(op.operands), tuple(reversed(list(op.operands)))):
            mma = defining_op(product)
            if mma is not None and _foldable(mma, acc, op):
                _fold(op, mma, acc)
                break


def _foldable(mma: ir.Operation, acc: ir.Value, add: ir.Operation) -> bool:
    if name(mma) != op_table.MMA.name or len(mma.operands) != 3:
        return False
    result = mma.results[0]
    if str(result.type) != str(acc.type) or str(add.results[0].type) != str(acc.type):
        return False
    if len(list(result.uses)) != 1:
        return False
    zero = uniform_constant(mma.operands[2])
    return zero is not None and zero[0] == 0


def _fold(add: ir.Operation, mma: ir.Operation, acc: ir.Value) -> None:
    x, y = mma.operands[0], mma.operands[1]
    with ir.InsertionPoint(add), add.location:
        folded = ops.create(op_table.MMA.short, [x, y, acc], [add.results[0].type])
    for attribute in mma.attributes:  # what the product was asked for (e.g. its precision)
        folded.attributes[attribute.name] = attribute.attr
    replace(add, folded.results[0])
    mma.erase()
