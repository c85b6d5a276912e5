"""Passes (tile-opt): tile-split-masked-loops: a loop whose body masks its tiles by the loop
index runs the iterations where every mask is all-true in a copy without the masks.

Flash attention written plainly masks every key block, `ct.where(cols < keys & cols <= rows,
s, -inf)` with `cols = j * BN + arange(BN)`, though only the blocks past the last full one
and those on the causal diagonal hold a masked element; hand-tuned kernels split the key loop
in two (unmasked blocks, then masked ones) to save the mask's instructions on the others (a
quarter of the softmax's work at 128x128 tiles). This pass makes that split for the user: the
spelling should not decide the speed.

What it finds: in an `scf.for` with step 1, each `tile.select` directly in the body whose
condition is an `and` of signed integer comparisons (through broadcasts and reshapes), each
side an affine index expression: the loop index times a constant, plus loop-invariant scalars
and constants, plus aranges (elements vary by a known range). For `lhs < rhs` that is all-true
exactly when the largest element of `lhs - rhs` is below 0, a bound on the index: an upper
bound when the index's coefficient is positive (keys past the end, the causal diagonal), a
lower bound when negative (a sliding window's start). The range [L, U) where every analysable
select is all-true is computed before the loop, and the loop becomes three: [lb, L) as written,
[L, U) with those selects replaced by their true operand, [U, ub) as written (the first and
last only where some comparison gives such a bound). The iterations and their order are the
same, and the copies compute the same values: the split is exact.

Selects nested in an `scf.if` on the index (cuTile's attention: `if j >= mask_start:` then
mask) are left alone: the branch costs nothing where it is not taken, and splitting there only
adds a pipeline drain between the loops (tried: cuTile's causal attention took 1.133 ms
with the split, 1.105 and 1.106 ms in two runs without).

Only loops that start at a constant are split: a loop starting at a run-time block index is, in
practice, the masked tail of a loop its author split already (the sample's and cuTile's
attention), whose all-true range is empty; splitting it would only add an empty loop.

Assumed, as by every index computation: index arithmetic does not wrap past the integer type
(tile indices stay far below 2**31).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mlir.ir as ir

from tilelang.dialect import dtype_of, op_table, ops
from tilelang.dialect.types import is_tile_type
from tilelang.passes.ir_utils import (
    constant_of,
    defining_op,
    is_within,
    name,
    uniform_constant,
    walk_ops,
)

NAME = "tile-split-masked-loops"
PASS_THROUGH = (op_table.SPLAT.name, op_table.BROADCAST.name, op_table.RESHAPE.name)
# lhs PRED rhs as "d < 0" with d = sign * (lhs - rhs) + shift, for every element
LESS_THAN_ZERO = {"lt": (1, 0), "le": (1, -1), "gt": (-1, 0), "ge": (-1, -1)}


@dataclass(frozen=True)
class Options:
    pass


@dataclass
class Affine:
    """index * `j` + sum of coefficient * invariant scalar + `const`, plus a part that varies
    over the tile's elements within [lo, hi] (from aranges)."""

    j: int = 0
    terms: dict[ir.Value, int] = field(default_factory=dict)
    const: int = 0
    lo: int = 0
    hi: int = 0

    def plus(self, other: Affine, sign: int = 1) -> Affine:
        terms = dict(self.terms)
        for v, c in other.terms.items():
            terms[v] = terms.get(v, 0) + sign * c
        lo, hi = (other.lo, other.hi) if sign > 0 else (-other.hi, -other.lo)
        return Affine(self.j + sign * other.j, {v: c for v, c in terms.items() if c},
                      self.const + sign * other.const, self.lo + lo, self.hi + hi)

    def scaled(self, c: int) -> Affine:
        lo, hi = sorted((self.lo * c, self.hi * c))
        return Affine(self.j * c, {v: k * c for v, k in self.terms.items() if k * c},
                      self.const * c, lo, hi)

    @property
    def is_constant(self) -> bool:
        return not self.j and not self.terms and self.lo == self.hi


@dataclass
class Bounds:
    """Where a condition is all-true: lower <= index < upper, each bound the max / min of the
    Affine expressions listed (as `floordiv(expr, divisor) + add`)."""

    lower: list[tuple[Affine, int, int]] = field(default_factory=list)
    upper: list[tuple[Affine, int, int]] = field(default_factory=list)


def run(module: ir.Operation, options: Options) -> None:
    """Split scf.for loops at the index range where their masks are all-true."""
    for loop in walk_ops(module, post_order=True):
        if name(loop) == "scf.for":
            _split(loop)


def _split(loop: ir.Operation) -> None:
    lb, ub, step = loop.operands[0], loop.operands[1], loop.operands[2]
    unit = uniform_constant(step)
    if unit is None or unit[0] != 1 or dtype_of(lb.type).kind != "i":
        return
    if uniform_constant(lb) is None:  # a hand-split loop's masked tail (see the docstring)
        return
    body = loop.regions[0].blocks[0]
    index = body.arguments[0]
    analysis = _Analysis(loop, index)
    found: list[int] = []
    bounds = Bounds()
    for position, op in enumerate(body.operations):
        if name(op) != op_table.SELECT.name:
            continue
        b = analysis.all_true(op.operands[0])
        if b is None:
            continue
        found.append(position)
        bounds.lower += b.lower
        bounds.upper += b.upper
    if not found:
        return
    with ir.InsertionPoint(loop), loop.location:
        start, stop = lb, ub
        if bounds.lower:  # [lb, start) as written
            start = _min(ub, _max(lb, _extreme(bounds.lower, _max, lb.type)))
        if bounds.upper:  # [start, stop) without the masks, [stop, ub) as written
            stop = _max(start, _min(ub, _extreme(bounds.upper, _min, ub.type)))
    pieces = [(lb, start, False)] if bounds.lower else []
    pieces.append((start, stop, True))
    if bounds.upper:
        pieces.append((stop, ub, False))
    inits = list(loop.operands)[3:]
    for low, high, clean in pieces:
        with ir.InsertionPoint(loop):
            copy = loop.clone()
        copy.operands[0], copy.operands[1] = low, high
        for i, v in enumerate(inits):
            copy.operands[3 + i] = v
        if clean:
            _unmask(copy, found)
        inits = list(copy.results)
    for old, new in zip(loop.results, inits, strict=True):
        old.replace_all_uses_with(new)
    loop.erase()


def _unmask(loop: ir.Operation, positions: list[int]) -> None:
    """Replace the selects at `positions` of the loop's body by their true operand."""
    body = list(loop.regions[0].blocks[0].operations)
    for position in positions:
        select = body[position]
        select.results[0].replace_all_uses_with(select.operands[1])
        select.erase()


class _Analysis:
    def __init__(self, loop: ir.Operation, index: ir.Value):
        self.loop = loop
        self.index = index

    def all_true(self, cond: ir.Value) -> Bounds | None:
        """Bounds on the index within which every element of `cond` is true, or None."""
        op = defining_op(cond)
        if op is None:
            return None
        n = name(op)
        if n in PASS_THROUGH:
            return self.all_true(op.operands[0])
        if n == op_table.AND.name:
            parts = [p for v in op.operands if (p := self.all_true(v)) is not None]
            if len(parts) != len(op.operands):
                return None
            return Bounds([b for p in parts for b in p.lower],
                          [b for p in parts for b in p.upper])
        if n == op_table.CMP.name:
            return self._compare(op)
        return None

    def _compare(self, op: ir.Operation) -> Bounds | None:
        predicate = ops.str_attr(op, "predicate")
        lhs, rhs = (self.affine(v) for v in op.operands)
        if predicate not in LESS_THAN_ZERO or lhs is None or rhs is None or \
                dtype_of(op.operands[0].type).kind != "i":
            return None
        sign, shift = LESS_THAN_ZERO[predicate]
        d = lhs.plus(rhs, -1).scaled(sign)
        d = Affine(d.j, d.terms, d.const + shift, d.lo, d.hi)
        # every element < 0  <=>  j * index + rest < 0, rest = terms + const + hi
        rest = Affine(0, d.terms, d.const + d.hi)
        if d.j > 0:  # index < ceil(-rest / j) = -floor(rest / j)
            return Bounds(upper=[(rest, d.j, 0)])
        if d.j < 0:  # -j * index > rest  <=>  index >= floor(rest / -j) + 1
            return Bounds(lower=[(rest, -d.j, 1)])
        return None

    def affine(self, value: ir.Value) -> Affine | None:
        if value == self.index:
            return Affine(j=1)
        op = defining_op(value)
        constant = uniform_constant(value)
        if constant is not None:
            return Affine(const=int(constant[0])) if isinstance(constant[0], int) and \
                not isinstance(constant[0], bool) else None
        is_scalar = not is_tile_type(value.type)
        if is_scalar and not is_within(op, self.loop) and \
                not (op is None and _inside_block_of(value, self.loop)):
            return Affine(terms={value: 1})
        if op is None:
            return None
        n = name(op)
        if n in PASS_THROUGH:
            return self.affine(op.operands[0])
        if n == op_table.ARANGE.name:
            extent = ir.RankedTensorType(value.type).shape[0]
            return Affine(hi=extent - 1)
        if n in (op_table.ADD.name, op_table.SUB.name):
            a, b = (self.affine(v) for v in op.operands)
            if a is None or b is None:
                return None
            return a.plus(b, 1 if n == op_table.ADD.name else -1)
        if n == op_table.MUL.name:
            a, b = (self.affine(v) for v in op.operands)
            if a is None or b is None:
                return None
            if b.is_constant:
                return a.scaled(b.const + b.lo)
            if a.is_constant:
                return b.scaled(a.const + a.lo)
        return None


def _inside_block_of(value: ir.Value, loop: ir.Operation) -> bool:
    """Whether block argument `value` belongs to a block of `loop` (its index, iter_args)."""
    owner = value.owner
    return isinstance(owner, ir.Block) and is_within(owner.owner, loop)


# ----- the bounds, computed before the loop -----------------------------------------------------


def _extreme(bounds: list[tuple[Affine, int, int]], pick, t: ir.Type) -> ir.Value:
    """The max (`pick` = _max) or min of the bounds."""
    values = [_bound(expr, divisor, add, t) for expr, divisor, add in bounds]
    result = values[0]
    for v in values[1:]:
        result = pick(result, v)
    return result


def _bound(expr: Affine, divisor: int, add: int, t: ir.Type) -> ir.Value:
    """floor(expr / divisor) + 1 for a lower bound (add = 1), -floor(expr / divisor) for an
    upper one (add = 0)."""
    total = constant_of(expr.const, t)
    for v, c in expr.terms.items():
        term = v if c == 1 else _binary(op_table.MUL, v, constant_of(c, t))
        total = _binary(op_table.ADD, total, term)
    quotient = _binary(op_table.FLOORDIV, total, constant_of(divisor, t))
    if add:  # a lower bound: floor(rest / d) + 1
        return _binary(op_table.ADD, quotient, constant_of(add, t))
    return _binary(op_table.SUB, constant_of(0, t), quotient)  # an upper one: -floor(rest / d)


def _binary(op, a: ir.Value, b: ir.Value) -> ir.Value:
    return ops.create(op.short, [a, b], [a.type]).results[0]


def _min(a: ir.Value, b: ir.Value) -> ir.Value:
    return _binary(op_table.MINIMUM, a, b)


def _max(a: ir.Value, b: ir.Value) -> ir.Value:
    return _binary(op_table.MAXIMUM, a, b)
