"""Passes (simt): tile.scan: a running combination in registers, then across lanes
(Hillis-Steele with shuffles), then across warps through shared memory.

The op works in a scan-ready layout (tilelang/layout/reduction.py, is_scan_ready): along the
axis a thread holds a contiguous run in its registers, runs follow each other over the lowest
lane bits, and those spans over the lowest warp bits. A reverse scan walks each level backwards.
"""

from __future__ import annotations

import itertools
import math

import mlir.ir as ir
from mlir.dialects import arith, gpu, llvm

from tilelang.dialect import dtype_of, op_table, ops
from tilelang.dialect.types import shape_of
from tilelang.layout import LinearLayout
from tilelang.passes.simt.context import Lowering, const, lowers, when
from tilelang.passes.simt.reduce import Combiner, Values, _from_memory, _to_memory, masked_padding
from tilelang.passes.simt.shapes import coordinate
from tilelang.passes.simt.values import Distributed, i32, i64, memory_type
from tilelang.passes.simt.warp import Scratch, shuffle


def _along(layout: LinearLayout, in_dim: str, axis: int) -> list[int]:
    return [b for b, basis in enumerate(layout.bases[in_dim]) if basis[axis]]


def _copies(layout: LinearLayout, in_dim: str) -> int:
    return sum(1 << b for b, basis in enumerate(layout.bases[in_dim]) if not any(basis))


@lowers(op_table.SCAN)
def lower_scan(lw: Lowering, op: ir.Operation) -> None:
    tiles = [lw.tile(v) for v in op.operands]
    layout = tiles[0].layout
    axis, reverse = ops.int_attr(op, "axis"), bool(ops.int_attr(op, "reverse"))
    combine = Combiner(lw, op)
    regs = masked_padding(lw, tiles, (axis,), combine.identities)
    runs = _runs(layout, axis, reverse)
    for run in runs:  # in registers
        for earlier, later in itertools.pairwise(run):
            combined = combine([reg[earlier] for reg in regs], [reg[later] for reg in regs])
            for reg, value in zip(regs, combined, strict=True):
                reg[later] = value
    lanes = len(_along(layout, "lane", axis))
    if lanes:
        _across_lanes(lw, regs, runs, 1 << lanes, reverse, combine)
    if _along(layout, "warp", axis):
        _across_warps(lw, layout, axis, regs, runs, reverse, combine)
    for k, result in enumerate(op.results):
        lw.set(result, Distributed(tuple(regs[k]), layout, dtype_of(result.type),
                                   shape_of(result.type)))


def _runs(layout: LinearLayout, axis: int, reverse: bool) -> list[list[int]]:
    """Per group of registers that differ only along the axis: its registers in scan order."""
    along = _along(layout, "register", axis)
    others = [b for b in range(len(layout.bases["register"])) if b not in along]
    runs = []
    for g in range(1 << len(others)):
        base = sum(((g >> i) & 1) << b for i, b in enumerate(others))
        run = [base | sum(((p >> i) & 1) << b for i, b in enumerate(along))
               for p in range(1 << len(along))]
        runs.append(run[::-1] if reverse else run)
    return runs


def _position(index: ir.Value, span: int, reverse: bool) -> ir.Value:
    """Position (i32) of this lane/warp in scan order within its span of `span`."""
    pos = arith.andi(index, const(i32(), span - 1))
    return arith.subi(const(i32(), span - 1), pos) if reverse else pos


def _apply(regs: list[list[ir.Value]], run: list[int], prefix: Values, combine: Combiner) -> None:
    for r in run:
        combined = combine(prefix, [reg[r] for reg in regs])
        for reg, value in zip(regs, combined, strict=True):
            reg[r] = value


# Shuffles always span the whole warp: gpu.shuffle's `width` names the lanes that take part
# (lowered to a member mask of the first `width` lanes), not segments of that many lanes. A lane
# only uses a value shuffled from inside its own span (the position tests below).


def _across_lanes(lw: Lowering, regs: list[list[ir.Value]], runs: list[list[int]], span: int,
                  reverse: bool, combine: Combiner) -> None:
    pos = _position(lw.thread_index("lane"), span, reverse)
    mode = "down" if reverse else "up"
    for run in runs:
        total = [reg[run[-1]] for reg in regs]
        step = 1
        while step < span:  # inclusive scan of the thread totals
            moved = [shuffle(v, step, mode) for v in total]
            later = arith.cmpi(arith.CmpIPredicate.uge, pos, const(i32(), step))
            total = [arith.select(later, c, t)
                     for c, t in zip(combine(moved, total), total, strict=True)]
            step *= 2
        before = [shuffle(v, 1, mode) for v in total]  # the exclusive prefix
        first = arith.cmpi(arith.CmpIPredicate.eq, pos, const(i32(), 0))
        prefix = [arith.select(first, i, b)
                  for i, b in zip(combine.identities, before, strict=True)]
        _apply(regs, run, prefix, combine)


def _across_warps(lw: Lowering, layout: LinearLayout, axis: int, regs: list[list[ir.Value]],
                  runs: list[list[int]], reverse: bool, combine: Combiner) -> None:
    """The last lane of each warp stores its runs' totals; each thread then combines the totals
    of the warps before its own into a prefix."""
    warps = 1 << len(_along(layout, "warp", axis))
    lanes = 1 << len(_along(layout, "lane", axis))
    groups = math.prod(s for d, s in enumerate(layout.shape) if d != axis)
    scratch = Scratch()
    mems = [memory_type(d) for d in combine.dtypes]
    arrays = [scratch.reserve(groups * warps, m, max(1, d.itemsize))
              for m, d in zip(mems, combine.dtypes, strict=True)]
    lw.need_shared(scratch.size)
    warp_pos = _position(lw.thread_index("warp"), warps, reverse)
    lane_pos = _position(lw.thread_index("lane"), lanes, reverse)
    writer = arith.cmpi(arith.CmpIPredicate.eq, lane_pos, const(i32(), lanes - 1))
    for in_dim in ("lane", "warp"):
        if _copies(layout, in_dim):
            bits = arith.andi(lw.thread_index(in_dim), const(i32(), _copies(layout, in_dim)))
            writer = arith.andi(writer, arith.cmpi(arith.CmpIPredicate.eq, bits, const(i32(), 0)))
    slots = [_group_index(lw, layout, axis, run[0]) for run in runs]
    gpu.barrier()  # an earlier user of the buffer may still be reading it
    for slot, run in zip(slots, runs, strict=True):
        index = arith.addi(arith.muli(slot, const(i64(), warps)), arith.extui(i64(), warp_pos))

        def store(run: list[int] = run, index: ir.Value = index) -> None:
            for reg, array, mem in zip(regs, arrays, mems, strict=True):
                llvm.store(_to_memory(reg[run[-1]], mem), scratch.pointer(lw, array, index))

        when(writer, store)
    gpu.barrier()
    for slot, run in zip(slots, runs, strict=True):
        prefix = list(combine.identities)
        for w in range(warps - 1):  # warps earlier in scan order than this one
            index = arith.addi(arith.muli(slot, const(i64(), warps)), const(i64(), w))
            got = [_from_memory(llvm.load(mem, scratch.pointer(lw, array, index)), i.type)
                   for array, mem, i in zip(arrays, mems, combine.identities, strict=True)]
            earlier = arith.cmpi(arith.CmpIPredicate.ult, const(i32(), w), warp_pos)
            prefix = [arith.select(earlier, c, p)
                      for c, p in zip(combine(prefix, got), prefix, strict=True)]
        _apply(regs, run, prefix, combine)


def _group_index(lw: Lowering, layout: LinearLayout, axis: int, register: int) -> ir.Value:
    """Row-major index, over the axes other than `axis`, of the element in `register`."""
    index = const(i64(), 0)
    for d, size in enumerate(layout.shape):
        if d != axis:
            index = arith.addi(arith.muli(index, const(i64(), size)),
                               coordinate(lw, layout, register, d))
    return index
