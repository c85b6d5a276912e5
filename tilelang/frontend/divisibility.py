"""Front end: what an integer scalar is known to be a multiple of, read from the ops that made it
(constants, `assume_divisible_by`, and the arithmetic between them), for alignment facts."""

from __future__ import annotations

import math

import mlir.ir as ir

from tilelang.dialect import dtype_of, ops
from tilelang.frontend.values import TileValue

MAX_DEPTH = 32  # ops followed back from a value (long chains rarely add a fact)


def known_multiple(value: TileValue) -> int:
    """A number the integer scalar `value` is always a multiple of: 0 for the constant 0 (a
    multiple of everything), 1 when nothing is known."""
    if value.shape or not value.dtype.is_integer:
        return 1
    return _multiple(value.value, MAX_DEPTH)


def _multiple(value: ir.Value, depth: int) -> int:
    owner = value.owner
    if depth == 0 or not isinstance(owner, ir.Operation | ir.OpView):
        return 1  # a block argument (a loop's carried value, a parameter): unknown
    op = owner.operation
    rule = _RULES.get(op.name)
    if rule is None or isinstance(op.results[0].type, ir.ShapedType):
        return 1
    return rule(op, depth - 1)


def _constant(op: ir.Operation, depth: int) -> int:
    return abs(int(ops.constant_value(op.attributes["value"], dtype_of(op.results[0].type))))


def _assumed(op: ir.Operation, depth: int) -> int:
    return math.lcm(ops.int_attr(op, "divisor"), _multiple(op.operands[0], depth))


def _product(op: ir.Operation, depth: int) -> int:
    return _multiple(op.operands[0], depth) * _multiple(op.operands[1], depth)


def _sum(op: ir.Operation, depth: int) -> int:  # a + b, a - b, where(c, a, b)
    first, *rest = list(op.operands)[-2:]
    return math.gcd(_multiple(first, depth), *(_multiple(v, depth) for v in rest))


def _negation(op: ir.Operation, depth: int) -> int:
    return _multiple(op.operands[0], depth)


def _shift(op: ir.Operation, depth: int) -> int:
    shift = _multiple_constant(op.operands[1])
    base = _multiple(op.operands[0], depth)
    return base << shift if shift is not None and 0 <= shift < 64 else 1


def _cast(op: ir.Operation, depth: int) -> int:
    source, target = dtype_of(op.operands[0].type), dtype_of(op.results[0].type)
    if not (source.is_integer and target.is_integer):
        return 1
    multiple = _multiple(op.operands[0], depth)
    if target.bitwidth >= source.bitwidth:
        return multiple
    return math.gcd(multiple, 1 << target.bitwidth)  # wrapping keeps powers of two below it


def _multiple_constant(value: ir.Value) -> int | None:
    owner = value.owner
    if isinstance(owner, ir.Operation | ir.OpView) and owner.operation.name == "tile.constant":
        op = owner.operation
        return int(ops.constant_value(op.attributes["value"], dtype_of(op.results[0].type)))
    return None


_RULES = {
    "tile.constant": _constant,
    "tile.assume_div_by": _assumed,
    "tile.mul": _product,
    "tile.add": _sum,
    "tile.sub": _sum,
    "tile.select": _sum,
    "tile.neg": _negation,
    "tile.shl": _shift,
    "tile.cast": _cast,
}
