"""Passes (simt): permute, cat, extract, insert and bitcast, register by register.

tile-assign-layouts gives these ops layouts in which no data moves between threads: a permute
relabels coordinates (register r of the result is register r of the operand), a cat appends the
second tile's registers to the first's, and extract/insert select or replace the registers that
hold the sub-tile (a select tree on the index bits when the index is known only at run time).
"""

from __future__ import annotations

from collections.abc import Callable

import mlir.ir as ir
from mlir.dialects import arith

from tilelang.dialect import dtype_of, op_table, ops
from tilelang.dialect.types import shape_of
from tilelang.layout import LinearLayout, padded_shape
from tilelang.layout.subtiles import (
    concat_layout,
    register_sources,
    subtile_layout,
    subtile_registers,
)
from tilelang.passes.ir_utils import defining_op
from tilelang.passes.simt.addressing import layout_of
from tilelang.passes.simt.context import Lowering, const, lowers
from tilelang.passes.simt.values import Distributed, scalar_type


@lowers(op_table.PERMUTE)
def lower_permute(lw: Lowering, op: ir.Operation) -> None:
    source, result = lw.tile(op.operands[0]), op.results[0]
    layout = layout_of(result.type)
    assert layout == source.layout.permute(ops.array_attr(op, "axes")), "layouts disagree"
    lw.set(result, Distributed(source.regs, layout, source.dtype, shape_of(result.type)))


@lowers(op_table.CAT)
def lower_cat(lw: Lowering, op: ir.Operation) -> None:
    first, second = lw.tile(op.operands[0]), lw.tile(op.operands[1])
    result = op.results[0]
    layout = layout_of(result.type)
    assert first.layout == second.layout, "cat operands in different layouts"
    assert layout == concat_layout(first.layout, ops.int_attr(op, "axis")), "layouts disagree"
    regs = first.regs + second.regs
    lw.set(result, Distributed(regs, layout, first.dtype, shape_of(result.type)))


# ----- sub-tiles ---------------------------------------------------------------------------------


def _static_index(values: list[ir.Value]) -> tuple[int, ...] | None:
    """The index when every entry is a tile.constant, else None."""
    out = []
    for v in values:
        owner = defining_op(v)
        if owner is None or owner.name != "tile.constant":
            return None
        out.append(int(ops.constant_value(owner.attributes["value"], dtype_of(v.type))))
    return tuple(out)


def _index_bit(lw: Lowering, value: ir.Value, bit: int) -> ir.Value:
    """i1: whether bit `bit` of the run-time index `value` is set."""
    index = lw.get(value)
    one = arith.andi(arith.shrui(index, const(index.type, bit)), const(index.type, 1))
    return arith.cmpi(arith.CmpIPredicate.ne, one, const(index.type, 0))


def _index_bits(layout: LinearLayout, sub: tuple[int, ...]) -> list[tuple[int, int, int]]:
    """(dim, bit, register mask) per sub-tile index bit: setting bit `bit` of index[dim] moves
    every register of the selection by XOR with the mask."""
    zero = (0,) * len(sub)
    base = subtile_registers(layout, sub, zero)[0]
    bits = []
    for k, (size, part) in enumerate(zip(layout.shape, sub, strict=True)):
        for b in range((size // part).bit_length() - 1):
            unit = tuple(1 << b if d == k else 0 for d in range(len(sub)))
            bits.append((k, b, subtile_registers(layout, sub, unit)[0] ^ base))
    return bits


def _select_tree(lw: Lowering, regs: tuple[ir.Value, ...], picks: tuple[int, ...],
                 bits: list[tuple[ir.Value, int]]) -> list[ir.Value]:
    """regs[p ^ XOR of the masks of the set bits] for each p in picks, as selects."""
    memo: dict[tuple[int, int], ir.Value] = {}

    def value(level: int, r: int) -> ir.Value:
        if level == 0:
            return regs[r]
        if (level, r) not in memo:
            is_set, mask = bits[level - 1]
            memo[level, r] = arith.select(is_set, value(level - 1, r ^ mask), value(level - 1, r))
        return memo[level, r]

    return [value(len(bits), p) for p in picks]


@lowers(op_table.EXTRACT)
def lower_extract(lw: Lowering, op: ir.Operation) -> None:
    source, result = lw.tile(op.operands[0]), op.results[0]
    indices = list(op.operands)[1:]
    layout, sub = layout_of(result.type), padded_shape(shape_of(result.type))
    assert layout == subtile_layout(source.layout, sub), "layouts disagree"
    static = _static_index(indices)
    if static is not None:
        regs = [source.regs[m] for m in subtile_registers(source.layout, sub, static)]
    else:
        picks = subtile_registers(source.layout, sub, (0,) * len(sub))
        bits = [(_index_bit(lw, indices[k], b), mask)
                for k, b, mask in _index_bits(source.layout, sub)]
        regs = _select_tree(lw, source.regs, picks, bits)
    lw.set(result, Distributed(tuple(regs), layout, source.dtype, shape_of(result.type)))


@lowers(op_table.INSERT)
def lower_insert(lw: Lowering, op: ir.Operation) -> None:
    dest, value = lw.tile(op.operands[0]), lw.tile(op.operands[1])
    indices, result = list(op.operands)[2:], op.results[0]
    sub = padded_shape(value.shape)
    assert value.layout == subtile_layout(dest.layout, sub), "layouts disagree"
    assert layout_of(result.type) == dest.layout, "layouts disagree"
    static = _static_index(indices)
    chosen = _static_chosen(static) if static is not None else _dynamic_chosen(lw, indices, dest)
    regs = []
    for r, (where, source) in enumerate(register_sources(dest.layout, sub)):
        is_chosen = chosen(where)
        if is_chosen is True:
            regs.append(value.regs[source])
        elif is_chosen is False:
            regs.append(dest.regs[r])
        else:
            regs.append(arith.select(is_chosen, value.regs[source], dest.regs[r]))
    lw.set(result, Distributed(tuple(regs), dest.layout, dest.dtype, dest.shape))


Chooser = Callable[[tuple[int, ...]], "bool | ir.Value"]


def _static_chosen(index: tuple[int, ...]) -> Chooser:
    return lambda where: where == index


def _dynamic_chosen(lw: Lowering, indices: list[ir.Value], dest: Distributed) -> Chooser:
    """i1 per sub-tile position: whether the run-time index names it (cached)."""
    cache: dict[tuple[int, ...], ir.Value | bool] = {}

    def chosen(where: tuple[int, ...]) -> ir.Value | bool:
        if where not in cache:
            test: ir.Value | bool = True
            for k, w in enumerate(where):
                index = lw.get(indices[k])
                same = arith.cmpi(arith.CmpIPredicate.eq, index, const(index.type, w))
                test = same if test is True else arith.andi(test, same)
            cache[where] = test
        return cache[where]

    return chosen


# ----- bitcast -----------------------------------------------------------------------------------


@lowers(op_table.BITCAST)
def lower_bitcast(lw: Lowering, op: ir.Operation) -> None:
    source, result = lw.get(op.operands[0]), op.results[0]
    dtype = dtype_of(result.type)
    target = scalar_type(dtype)

    def cast(v: ir.Value) -> ir.Value:
        return v if v.type == target else arith.bitcast(target, v)

    if isinstance(source, Distributed):
        regs = tuple(cast(v) for v in source.regs)
        lw.set(result, Distributed(regs, source.layout, dtype, source.shape))
    else:
        lw.set(result, cast(source))
