"""Passes (simt): tile.reduce: in registers, then across lanes by shuffles, then across warps
through shared memory.

The op works in a layout whose bases each lie along the reduced axes, away from them, or are
zero (tile-assign-layouts makes sure). So a register, lane or warp bit either moves along the
reduced axes (the values it tells apart are combined), along kept axes (it survives into the
result's layout), or names a replica (skipped: combining replicas would count them twice).
"""

from __future__ import annotations

import math

import mlir.ir as ir
from mlir.dialects import arith, gpu, llvm

from tilelang.dialect import dtype_of, op_table, ops
from tilelang.dialect.types import shape_of
from tilelang.layout import LinearLayout
from tilelang.layout.reduction import bit_roles
from tilelang.passes.simt import restricted
from tilelang.passes.simt.addressing import layout_of
from tilelang.passes.simt.context import Lowering, const, lowers, when
from tilelang.passes.simt.shapes import coordinate
from tilelang.passes.simt.values import Distributed, i32, i64, memory_type
from tilelang.passes.simt.warp import Scratch, shuffle

Values = list[ir.Value]  # one value per input of the op


class Combiner:
    """Emits the op's combiner region inline on scalars (once per use)."""

    def __init__(self, lw: Lowering, op: ir.Operation):
        self.lw = lw
        self.body = op.regions[0].blocks[0]
        self.dtypes = [dtype_of(v.type) for v in op.operands]
        attrs = ir.ArrayAttr(op.attributes["identities"])
        self.identities = [  # an 8-bit float's register is its byte: restricted.constant
            restricted.constant(d, ops.constant_value(a, d))
            for a, d in zip(attrs, self.dtypes, strict=True)
        ]

    def __call__(self, earlier: Values, later: Values) -> Values:
        for arg, value in zip(self.body.arguments, [*earlier, *later], strict=True):
            self.lw.set(arg, value)
        (terminator,) = self.lw.lower_block(self.body)
        return [self.lw.get(v) for v in terminator.operands]


def masked_padding(lw: Lowering, tiles: list[Distributed], axes: tuple[int, ...],
                   identities: Values) -> list[list[ir.Value]]:
    """Registers of each tile, with padding elements along `axes` replaced by the identity."""
    regs = [list(t.regs) for t in tiles]
    layout, shape = tiles[0].layout, tiles[0].shape
    padded = [a for a in axes if shape[a] != layout.shape[a]]
    if not padded:
        return regs
    for r in range(layout.num_registers):
        valid = None
        for a in padded:
            inside = arith.cmpi(arith.CmpIPredicate.slt, coordinate(lw, layout, r, a),
                                const(i64(), shape[a]))
            valid = inside if valid is None else arith.andi(valid, inside)
        for k, identity in enumerate(identities):
            regs[k][r] = arith.select(valid, regs[k][r], identity)
    return regs


def _scatter_bits(value: int, positions: list[int]) -> int:
    return sum(((value >> i) & 1) << p for i, p in enumerate(positions))


def _roles(layout: LinearLayout, in_dim: str, axes: tuple[int, ...], role: str) -> list[int]:
    return [b for b, r in enumerate(bit_roles(layout, in_dim, axes)) if r == role]


@lowers(op_table.REDUCE)
def lower_reduce(lw: Lowering, op: ir.Operation) -> None:
    tiles = [lw.tile(v) for v in op.operands]
    layout = tiles[0].layout
    axes = ops.array_attr(op, "axes")
    combine = Combiner(lw, op)
    regs = masked_padding(lw, tiles, axes, combine.identities)
    kept, combined = (_roles(layout, "register", axes, r) for r in ("kept", "reduced"))
    values: list[Values] = []
    for j in range(1 << len(kept)):  # result register j
        base = _scatter_bits(j, kept)
        here = [[reg[base | _scatter_bits(m, combined)] for reg in regs]
                for m in range(1 << len(combined))]
        values.append(_pairwise(combine, here))
    for bit in _roles(layout, "lane", axes, "reduced"):
        values = [combine(v, [shuffle(x, 1 << bit, "xor") for x in v]) for v in values]
    out_layout = layout_of(op.results[0].type)
    if _roles(layout, "warp", axes, "reduced"):
        values = _across_warps(lw, layout, out_layout, axes, values, combine)
    for k, result in enumerate(op.results):
        lw.set(result, Distributed(tuple(v[k] for v in values), out_layout,
                                   dtype_of(result.type), shape_of(result.type)))


def _pairwise(combine: Combiner, items: list[Values]) -> Values:
    """Neighbours combined in rounds (a tree, log2(n) deep), in order: a thread's registers
    are independent, and a chain of n dependent combines would leave the warp waiting on each
    (a row of 32 in flash attention's softmax)."""
    while len(items) > 1:
        paired = [combine(items[i], items[i + 1]) for i in range(0, len(items) - 1, 2)]
        items = paired + ([items[-1]] if len(items) % 2 else [])
    return items[0]


def _across_warps(lw: Lowering, layout: LinearLayout, out_layout: LinearLayout,
                  axes: tuple[int, ...], values: list[Values], combine: Combiner) -> list[Values]:
    """Each warp stores its partial results; then every thread combines, warp by warp, the
    partials of the elements it holds."""
    warp_bits = _roles(layout, "warp", axes, "reduced")
    partials = 1 << len(warp_bits)
    elements = math.prod(out_layout.shape)
    scratch = Scratch()
    mems = [memory_type(d) for d in combine.dtypes]
    arrays = [scratch.reserve(elements * partials, m, max(1, d.itemsize))
              for m, d in zip(mems, combine.dtypes, strict=True)]
    lw.need_shared(scratch.size)
    warp = lw.thread_index("warp")
    mine = const(i64(), 0)
    for i, b in enumerate(warp_bits):
        bit = arith.andi(arith.shrui(warp, const(i32(), b)), const(i32(), 1))
        mine = arith.ori(mine, arith.shli(arith.extui(i64(), bit), const(i64(), i)))
    writer = _writer(lw, layout, axes)
    gpu.barrier()  # an earlier user of the buffer may still be reading it
    slots = [_element_index(lw, out_layout, j) for j in range(len(values))]
    for slot, vals in zip(slots, values, strict=True):
        index = arith.addi(arith.muli(slot, const(i64(), partials)), mine)

        def store(vals: Values = vals, index: ir.Value = index) -> None:
            for value, array, mem in zip(vals, arrays, mems, strict=True):
                llvm.store(_to_memory(value, mem), scratch.pointer(lw, array, index))

        when(writer, store)
    gpu.barrier()
    out = []
    for slot in slots:
        acc: Values | None = None
        for w in range(partials):
            index = arith.addi(arith.muli(slot, const(i64(), partials)), const(i64(), w))
            got = [_from_memory(llvm.load(mem, scratch.pointer(lw, array, index)), v.type)
                   for array, mem, v in zip(arrays, mems, values[0], strict=True)]
            acc = got if acc is None else combine(acc, got)
        assert acc is not None, "a slot has at least one partial"
        out.append(acc)
    return out


def _element_index(lw: Lowering, layout: LinearLayout, register: int) -> ir.Value:
    """Row-major index, in the (padded) tile of `layout`, of the element in `register`."""
    index = const(i64(), 0)
    for d, size in enumerate(layout.shape):
        index = arith.addi(arith.muli(index, const(i64(), size)),
                           coordinate(lw, layout, register, d))
    return index


def _writer(lw: Lowering, layout: LinearLayout, axes: tuple[int, ...]) -> ir.Value | None:
    """i1: this thread writes its warp's partials (one lane of each group of equal ones, one
    warp of each group of replicas)."""
    pred = None
    for in_dim, roles in (("lane", ("reduced", "copy")), ("warp", ("copy",))):
        mask = sum(1 << b for r in roles for b in _roles(layout, in_dim, axes, r))
        if mask:
            bits = arith.andi(lw.thread_index(in_dim), const(i32(), mask))
            ok = arith.cmpi(arith.CmpIPredicate.eq, bits, const(i32(), 0))
            pred = ok if pred is None else arith.andi(pred, ok)
    return pred


def _to_memory(value: ir.Value, mem: ir.Type) -> ir.Value:
    return arith.extui(mem, value) if value.type != mem else value


def _from_memory(value: ir.Value, register_type: ir.Type) -> ir.Value:
    if value.type == register_type:
        return value
    return arith.cmpi(arith.CmpIPredicate.ne, value, const(value.type, 0))
