"""Passes (layout): tile-pipeline-loads: load the next iteration's tiles of a matrix-product
loop while this iteration's are multiplied.

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
"""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir

from tilelang.passes.eliminate_dead_code import run as eliminate_dead_code
from tilelang.passes.ir_utils import (
    clone_ops,
    has_side_effects,
    kernel_num_warps,
    name,
    scalar_slice,
    walk_ops,
)
from tilelang.passes.loop_rewrite import carry_more, finish
from tilelang.passes.matmul_loops import matmul_loop
from tilelang.passes.staged_loops import staged_loop

NAME = "tile-pipeline-loads"


@dataclass(frozen=True)
class Options:
    arch: str = "sm_80"


def run(module: ir.Operation, options: Options) -> None:
    """Prefetch the next iteration's loads in loops that multiply tiles."""
    for op in walk_ops(module, post_order=True):
        if name(op) == "scf.for" and qualifies(op) and \
                matmul_loop(op, options.arch, kernel_num_warps(op)) is None and \
                staged_loop(op, options.arch, kernel_num_warps(op)) is None:
            loads = [o for o in _body_ops(op) if name(o) == "tile.load" and _indices_ok(op, o)]
            if loads:
                _pipeline(op, loads)
    eliminate_dead_code(module, None)  # the index computations of the moved loads


def _body_ops(loop: ir.Operation) -> list[ir.Operation]:
    return [o.operation for o in loop.regions[0].blocks[0].operations]


def qualifies(loop: ir.Operation) -> bool:
    body = _body_ops(loop)
    return any(name(o) == "tile.mma" for o in body) and not any(has_side_effects(o) for o in body)


def _indices_ok(loop: ir.Operation, load: ir.Operation) -> bool:
    found: list[ir.Operation] = []
    return all(scalar_slice(loop, v, found) for v in load.operands)


def _clone(loop: ir.Operation, load: ir.Operation, mapping: dict[ir.Value, ir.Value]) -> ir.Value:
    """`load` and the scalar ops its indices need, recomputed at the insertion point with
    `mapping`'s replacements (the induction variable's)."""
    found: list[ir.Operation] = []
    for v in load.operands:
        scalar_slice(loop, v, found)
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
