"""Passes (layout): tile-pipeline-loads: load the next iteration's tiles of a loop while this
iteration's are used: matrix-product loops, and loops over chunks that only read.

In `for k: a = load(x, (i, k)); b = load(y, (k, j)); acc = mma(a, b, acc)` every iteration
waits for its loads before the tensor cores can start. The pass loads iteration lb's tiles
before the loop, carries them in, and at the top of each iteration issues the loads of the next
one (`k + step`), so their latency overlaps the conversion and the mma of the current tiles.
The last iteration's prefetch reads past the loop's range: loads are bounds-checked per element
(padded), so it reads nothing out of bounds, and its value is never used.

A loop qualifies when its body holds a tile.mma and writes no memory, and it does not run on
wgmma for the target `arch` (passes/matmul_loops.py: that lowering stages its own loads); a
load qualifies when it sits directly in the body and its indices are pure scalar computations
of the induction variable and values defined before the loop (cloned for the prologue and the
prefetch).

A loop over chunks (cuTile's norms sum a row 1024 columns at a time, two or three times) issues
one load per iteration and waits for it at once: each thread has one load in flight, too few to
cover memory latency at a norm's occupancy. Such a loop qualifies when its body holds no
product, no nested loop (a tile carried across one holds its registers there too) and writes
no memory (a store could reach what the next iteration reads, through another array sharing its
memory), and its prefetched tiles hold at most CHUNK_BYTES_PER_THREAD bytes per thread (they stay
live through the body); only loads whose indices depend on the induction variable move.
"""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir

from tilelang.dialect import dtype_of
from tilelang.dialect.op_table import GATHER, MMA
from tilelang.dialect.semantics import np_dtype
from tilelang.dialect.types import shape_of
from tilelang.passes.eliminate_dead_code import run as eliminate_dead_code
from tilelang.passes.ir_utils import (
    clone_ops,
    defining_op,
    has_side_effects,
    is_pure_scalar,
    is_pure_tile_op,
    kernel_num_warps,
    name,
    scalar_slice,
    walk_ops,
)
from tilelang.passes.loop_rewrite import carry_more, finish
from tilelang.passes.matmul_loops import matmul_loop
from tilelang.passes.staged_loops import staged_loop

NAME = "tile-pipeline-loads"
CHUNK_BYTES_PER_THREAD = 64  # 16 registers carried through a chunk loop's body


@dataclass(frozen=True)
class Options:
    arch: str = "sm_80"


def run(module: ir.Operation, options: Options) -> None:
    """Prefetch the next iteration's loads in loops that multiply tiles."""
    for op in walk_ops(module, post_order=True):
        if name(op) != "scf.for":
            continue
        loads: list[ir.Operation] = []
        if qualifies(op):
            if matmul_loop(op, options.arch, kernel_num_warps(op)) is None and \
                    staged_loop(op, options.arch, kernel_num_warps(op)) is None:
                loads = [o for o in _body_ops(op) if name(o) == "tile.load" and _indices_ok(op, o)]
        elif chunk_loop(op):
            loads = chunk_loads(op)
        if loads:
            _pipeline(op, loads)
    eliminate_dead_code(module, None)  # the index computations of the moved loads


def _body_ops(loop: ir.Operation) -> list[ir.Operation]:
    return [o.operation for o in loop.regions[0].blocks[0].operations]


def qualifies(loop: ir.Operation) -> bool:
    body = _body_ops(loop)
    return any(name(o) == "tile.mma" for o in body) and not any(has_side_effects(o) for o in body)


def chunk_loop(loop: ir.Operation) -> bool:
    """A loop over chunks that only reads: no product, no nested loop, no writes."""
    body = _body_ops(loop)
    return not any(name(o) == "tile.mma" or has_side_effects(o) or
                   any(name(i) in ("scf.for", "scf.while") for i in walk_ops(o)) for o in body)


def chunk_loads(loop: ir.Operation) -> list[ir.Operation]:
    """The loads of a chunk loop to prefetch: those indexed by the induction variable, if
    their tiles fit the per-thread budget together (else none)."""
    loads = indexed_loads(loop)
    return loads if fits_budget(loop, loads) else []


def indexed_loads(loop: ir.Operation) -> list[ir.Operation]:
    """Loads, and gathers that check their bounds (a speculative one reads nothing out of
    bounds either), indexed by the induction variable."""
    iv = loop.regions[0].blocks[0].arguments[0]
    return [o for o in _body_ops(loop) if _is_read(o) and _indices_ok(loop, o)
            and _reads_iv(loop, o, iv)]


def _is_read(op: ir.Operation) -> bool:
    if name(op) == GATHER.name:
        return ir.BoolAttr(op.attributes["check_bounds"]).value \
            if "check_bounds" in op.attributes else True
    return name(op) == "tile.load"


def fits_budget(loop: ir.Operation, loads: list[ir.Operation]) -> bool:
    threads = 32 * kernel_num_warps(loop)
    return sum(_tile_bytes(o.results[0].type) for o in loads) <= CHUNK_BYTES_PER_THREAD * threads


def _reads_iv(loop: ir.Operation, load: ir.Operation, iv: ir.Value) -> bool:
    found: list[ir.Operation] = []
    for v in load.operands:
        _index_slice(loop, v, found)
    return any(v == iv for o in [*found, load] for v in o.operands)


def _tile_bytes(t: ir.Type) -> int:
    count = 1
    for extent in shape_of(t):
        count *= extent
    return count * np_dtype(dtype_of(t)).itemsize


def _indices_ok(loop: ir.Operation, load: ir.Operation) -> bool:
    found: list[ir.Operation] = []
    return all(_index_slice(loop, v, found) for v in load.operands)


def _index_slice(loop: ir.Operation, value: ir.Value, found: list[ir.Operation]) -> bool:
    """ir_utils.scalar_slice, also through pure tile ops without regions (a gather's index
    tile, `j * T + arange(T)`): what the prologue and the prefetch recompute."""
    op = defining_op(value)
    if op is None or op.parent != loop or op in found or is_pure_scalar(op):
        return scalar_slice(loop, value, found)
    if not (is_pure_tile_op(op) and not op.regions and name(op) != MMA.name):
        return False
    if not all(_index_slice(loop, v, found) for v in op.operands):
        return False
    found.append(op)
    return True


def _clone(loop: ir.Operation, load: ir.Operation, mapping: dict[ir.Value, ir.Value]) -> ir.Value:
    """`load` and the scalar ops its indices need, recomputed at the insertion point with
    `mapping`'s replacements (the induction variable's)."""
    found: list[ir.Operation] = []
    for v in load.operands:
        _index_slice(loop, v, found)
    clone_ops([*found, load], mapping)
    return mapping[load.results[0]]


def _pipeline(loop: ir.Operation, loads: list[ir.Operation]) -> None:
    lower = loop.operands[0]
    iv_old = loop.regions[0].blocks[0].arguments[0]
    with ir.InsertionPoint(loop), loop.location:
        first = [_clone(loop, load, {iv_old: lower}) for load in loads]
        w = carry_more(loop, first)
    with ir.InsertionPoint(w.moved[0]), loop.location:
        ahead = [_clone(w.new.operation, load, {w.iv: w.following}) for load in loads]
    for load, value in zip(loads, w.extra, strict=True):
        load.results[0].replace_all_uses_with(value)
        load.erase()
    finish(w, ahead)
