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
from mlir.dialects import scf

from tilelang.dialect import ops
from tilelang.passes.eliminate_dead_code import run as eliminate_dead_code
from tilelang.passes.ir_utils import has_side_effects, name, scalar_slice, walk_ops
from tilelang.passes.matmul_loops import matmul_loop
from tilelang.passes.staged_loops import staged_loop

NAME = "tile-pipeline-loads"


@dataclass(frozen=True)
class Options:
    arch: str = "sm_80"


def run(module: ir.Operation, options: Options) -> None:
    """Prefetch the next iteration's loads in loops that multiply tiles."""
    for op in walk_ops(module, post_order=True):
        if name(op) == "scf.for" and _qualifies(op) and \
                matmul_loop(op, options.arch, _num_warps(op)) is None and \
                staged_loop(op, options.arch, _num_warps(op)) is None:
            loads = [o for o in _body_ops(op) if name(o) == "tile.load" and _indices_ok(op, o)]
            if loads:
                _pipeline(op, loads)
    eliminate_dead_code(module, None)  # the index computations of the moved loads


def _num_warps(op: ir.Operation) -> int:
    while name(op) != "func.func":
        op = op.parent
    if "tile.num_warps" not in op.attributes:
        return 4  # a bare function in an IR test
    return ir.IntegerAttr(op.attributes["tile.num_warps"]).value


def _body_ops(loop: ir.Operation) -> list[ir.Operation]:
    return [o.operation for o in loop.regions[0].blocks[0].operations]


def _qualifies(loop: ir.Operation) -> bool:
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
    for op in [*found, load]:
        operands = [mapping.get(v, v) for v in op.operands]
        with op.location:
            clone = ir.Operation.create(name(op), results=[r.type for r in op.results],
                                        operands=operands,
                                        attributes={k: op.attributes[k] for k in op.attributes})
        for old, new in zip(op.results, clone.results, strict=True):
            mapping[old] = new
    return mapping[load.results[0]]


def _pipeline(loop: ir.Operation, loads: list[ir.Operation]) -> None:
    lower, upper, step = list(loop.operands)[:3]
    inits = list(loop.operands)[3:]
    old_args = list(loop.regions[0].blocks[0].arguments)
    with ir.InsertionPoint(loop), loop.location:
        first = [_clone(loop, load, {old_args[0]: lower}) for load in loads]
        new = scf.ForOp(lower, upper, step, [*inits, *first])
    body = new.body
    iv, carried = body.arguments[0], list(body.arguments)[1:]
    with ir.InsertionPoint(body), loop.location:
        following = ops.create("add", [iv, step], [iv.type]).result
    anchor = following.owner.operation
    moved = _body_ops(loop)
    for op in moved:
        op.move_after(anchor)
        anchor = op
    old_args[0].replace_all_uses_with(iv)
    for old, arg in zip(old_args[1:], carried, strict=False):
        old.replace_all_uses_with(arg)
    with ir.InsertionPoint(moved[0]), loop.location:
        ahead = [_clone(new.operation, load, {iv: following}) for load in loads]
    for load, value in zip(loads, carried[len(inits):], strict=True):
        load.results[0].replace_all_uses_with(value)
        load.erase()
    terminator = moved[-1]
    with ir.InsertionPoint(terminator), loop.location:
        scf.YieldOp([*terminator.operands, *ahead])
    terminator.erase()
    for old, result in zip(loop.results, new.results, strict=False):
        old.replace_all_uses_with(result)
    loop.erase()
