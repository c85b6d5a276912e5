"""Passes (tile-opt): tile-rewrite-gathers: a gather or scatter of one contiguous, tile-aligned
run of elements becomes a tile load or store.

cuTile kernels often index a row chunk by hand: `offs = j * T + ct.arange(T)`, then
`ct.gather(x, (row, offs))` and `ct.scatter(out, (row, offs), y)` (cuTile's gather RMS norm).
A gather reads element by element, each with its own bounds test; the same elements read as
`ct.load(x, (row, j), shape=(1, T))` travel as 16-byte vectors, with one bounds test per tile
when the tile is inside the array, and the loop passes (pipelining, TMA) see a load. Both
forms read the elements (row, j*T + t) and give the padding value for those outside the array
(a negative index included), so the rewrite keeps the meaning.

A gather qualifies when its result is 1-d (T elements, a power of two), its mask is a splat of
true, its padding a splat of a constant that a padding mode names (0, -0, NaN, +-inf), it checks
its bounds, one index is `splat(m) + arange(T)` (or `arange(T)`: m = 0) with m = `k * T` (or a
constant multiple of T), and every other index is a splat of a scalar of the same integer type.
A scatter qualifies on the same indices with a mask of true.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mlir.ir as ir

from tilelang.dialect import dtype_of, op_table, ops
from tilelang.dialect.types import shape_of, tensor_type
from tilelang.passes.ir_utils import defining_op, name, uniform_constant, walk_ops

NAME = "tile-rewrite-gathers"


@dataclass(frozen=True)
class Options:
    pass


@dataclass(frozen=True)
class Run:
    """The tile indices of a contiguous run: one per array axis (a constant one as an int, made
    an op only when the rewrite happens); `axis` holds the run."""

    indices: list[ir.Value | int]
    axis: int
    length: int
    index_type: ir.Type

    def values(self, at: ir.Operation) -> list[ir.Value]:
        """The indices as values, constants made before `at`."""
        return [i if isinstance(i, ir.Value) else _constant_index(at, i, self.index_type)
                for i in self.indices]


def run(module: ir.Operation, options: Options) -> None:
    """Turn gathers and scatters of one aligned contiguous run into loads and stores."""
    for op in walk_ops(module):
        if name(op) == op_table.GATHER.name:
            _rewrite_gather(op)
        elif name(op) == op_table.SCATTER.name:
            _rewrite_scatter(op)


def _rewrite_gather(op: ir.Operation) -> None:
    operands = list(op.operands)
    array, mask, padding = operands[0], operands[-2], operands[-1]
    mode = _padding_mode(padding)
    if mode is None or not _all_true(mask) or not _checks_bounds(op):
        return
    found = _contiguous_run(operands[1:-2])
    if found is None:
        return
    result = op.results[0]
    dtype = dtype_of(result.type)
    indices = found.values(op)
    with ir.InsertionPoint(op), op.location:
        load = ops.create(op_table.LOAD.short, [array, *indices],
                          [tensor_type(_tile_shape(found, len(found.indices)), dtype)],
                          order=list(range(len(found.indices))), padding_mode=mode)
        value = ops.create(op_table.RESHAPE.short, [load.results[0]], [result.type])
    result.replace_all_uses_with(value.results[0])
    op.erase()


def _rewrite_scatter(op: ir.Operation) -> None:
    operands = list(op.operands)
    array, value, mask = operands[0], operands[-2], operands[-1]
    if not _all_true(mask) or not _checks_bounds(op):
        return
    found = _contiguous_run(operands[1:-2])
    if found is None:
        return
    rank = len(found.indices)
    indices = found.values(op)
    with ir.InsertionPoint(op), op.location:
        tile = ops.create(op_table.RESHAPE.short, [value],
                          [tensor_type(_tile_shape(found, rank), dtype_of(value.type))])
        ops.create(op_table.STORE.short, [array, *indices, tile.results[0]],
                   order=list(range(rank)))
    op.erase()


def _contiguous_run(indices: list[ir.Value]) -> Run | None:
    """The load/store indices of a gather/scatter that reads one aligned run, else None."""
    if not indices or len(shape_of(indices[0].type)) != 1:  # a 0-d array has no index
        return None
    (length,) = shape_of(indices[0].type)
    if length & (length - 1):
        return None
    found: list[ir.Value | int] = []
    axis = None
    for k, index in enumerate(indices):
        uniform = _splat_scalar(index)
        if uniform is None:
            tile_index = _tile_index(index, length)
            if tile_index is None or axis is not None:
                return None  # not a run, or a second one
            axis = k
        found.append(uniform if uniform is not None else tile_index)
    types = {str(i.type) for i in found if isinstance(i, ir.Value)}
    types.add(str(ir.Type.parse(dtype_of(indices[0].type).mlir)))  # a made constant's type
    if axis is None or len(types) != 1:
        return None
    return Run(found, axis, length, ir.Type.parse(types.pop()))


def _splat_scalar(value: ir.Value) -> ir.Value | None:
    op = defining_op(value)
    if op is not None and name(op) == op_table.SPLAT.name and \
            not shape_of(op.operands[0].type):
        return op.operands[0]
    return None


def _tile_index(value: ir.Value, length: int) -> ir.Value | int | None:
    """k when `value` is `splat(k * length) + arange(length)` (or `arange(length)`: 0), else
    None."""
    op = defining_op(value)
    if op is None:
        return None
    if name(op) == op_table.ARANGE.name:
        return 0
    if name(op) != op_table.ADD.name:
        return None
    a, b = op.operands
    for first, second in ((a, b), (b, a)):
        inner = defining_op(second)
        start = _splat_scalar(first)
        if inner is not None and name(inner) == op_table.ARANGE.name and start is not None:
            return _multiple_of(start, length)
    return None


def _multiple_of(start: ir.Value, length: int) -> ir.Value | int | None:
    """k with start == k * length, from `k * length` or a constant."""
    constant = uniform_constant(start)
    if constant is not None:
        value = constant[0]
        return value // length if isinstance(value, int) and value % length == 0 else None
    op = defining_op(start)
    if op is None or name(op) != op_table.MUL.name:
        return None
    for k, factor in (tuple(op.operands), tuple(reversed(list(op.operands)))):
        found = uniform_constant(factor)
        if found is not None and found[0] == length:
            return k
    return None


def _constant_index(at: ir.Operation, value: int, index_type: ir.Type) -> ir.Value:
    with ir.InsertionPoint(at), at.location:
        return ops.create(op_table.CONSTANT.short, [], [index_type],
                          value=ops.constant_attr(value, dtype_of(index_type))).results[0]


def _tile_shape(found: Run, rank: int) -> tuple[int, ...]:
    return tuple(found.length if k == found.axis else 1 for k in range(rank))


def _padding_mode(padding: ir.Value) -> str | None:
    constant = uniform_constant(padding)
    if constant is None:
        return None
    value = constant[0]
    if isinstance(value, bool):
        return "zero" if value is False else None
    value = float(value)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "pos_inf" if value > 0 else "neg_inf"
    if value == 0.0:
        return "neg_zero" if math.copysign(1.0, value) < 0 else "zero"
    return None


def _all_true(mask: ir.Value) -> bool:
    constant = uniform_constant(mask)
    return constant is not None and bool(constant[0]) is True


def _checks_bounds(op: ir.Operation) -> bool:
    return "check_bounds" not in op.attributes or ir.BoolAttr(op.attributes["check_bounds"]).value
