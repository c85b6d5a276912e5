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

A loop over chunks (cuTile's norms sum a row 1024 columns at a time, two or three times; a
persistent kernel walks its row tiles) issues one load per iteration and waits for it at once:
each thread has one load in flight, too few to cover memory latency at a norm's occupancy. Such
a loop qualifies when its body holds no product, no nested loop (a tile carried across one
holds its registers there too), and writes memory only by plain stores and scatters (an atomic
may order other blocks' writes before the loads that follow it), and stores only if it is a
grid-stride loop (`movable_loads`). A load moves when its indices depend on the induction
variable and it reads no array the body writes (the arrays of different parameters do not
overlap: the launch contract, as cuTile's; through one parameter, the next iteration's load
would be moved above this iteration's store), if the moved tiles hold at most
CHUNK_BYTES_PER_THREAD bytes per thread together (they stay live through the body), or
GRID_STRIDE_BYTES_PER_THREAD in a grid-stride loop (`budget`).
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
    is_grid_stride,
    is_pure_scalar,
    is_pure_tile_op,
    kernel_num_warps,
    name,
    scalar_slice,
    walk_ops,
)
from tilelang.passes.loop_rewrite import carry_more, finish
from tilelang.passes.matmul_loops import matmul_loop
from tilelang.passes.order_accesses import root_arrays
from tilelang.passes.staged_loops import staged_loop

NAME = "tile-pipeline-loads"
CHUNK_BYTES_PER_THREAD = 64  # 16 registers carried through a chunk loop's body
GRID_STRIDE_BYTES_PER_THREAD = 128  # 32 registers, in a loop whose step is the grid's size
PLAIN_STORES = ("tile.store", "tile.scatter")


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
    """A loop over chunks: no product, no nested loop, no writes but plain stores."""
    body = _body_ops(loop)
    return _stores(loop) is not None and not any(
        name(o) == "tile.mma" or any(name(i) in ("scf.for", "scf.while") for i in [o, *walk_ops(o)])
        for o in body)


def chunk_loads(loop: ir.Operation) -> list[ir.Operation]:
    """The loads of a chunk loop to prefetch: those `movable_loads` gives, if their tiles fit
    the per-thread budget together (else none)."""
    loads = movable_loads(loop)
    return loads if fits_budget(loop, loads) else []


def movable_loads(loop: ir.Operation) -> list[ir.Operation]:
    """The loads of a chunk loop indexed by its induction variable. In a loop that stores:
    only a grid-stride loop's (`budget`: elsewhere other blocks on the SM hide the latency,
    and the registers the moved tiles take cost blocks: cuTile's layer norm forward ran 7%
    slower with its storing pass prefetched, 10 blocks an SM instead of 12), none its author
    already loads ahead, and none reading an array the body stores to."""
    stores = _stores(loop) or []
    if not stores:
        return indexed_loads(loop)
    if not is_grid_stride(loop):
        return []
    written = {a for s in stores for a in root_arrays(s.operands[0])}
    return [o for o in indexed_loads(loop) if not written & set(root_arrays(o.operands[0]))
            and not _prefetch_already(o)]


def _prefetch_already(load: ir.Operation) -> bool:
    """A load the body only carries to the next iteration (a loop its author pipelined:
    `t_next = load(x, i + step)`, yielded as the next `t`; the samples' grid-stride loops).
    Loops that only read still take such loads a second iteration ahead, as they always did."""
    uses = [u.owner for u in load.results[0].uses]
    return bool(uses) and all(name(u) == "scf.yield" for u in uses)


def why_not_moved(loop: ir.Operation) -> str:
    """Why a chunk loop's loads stay in their iteration (for explain)."""
    if not indexed_loads(loop):
        return "no load's index follows the loop variable"
    if _stores(loop) and not is_grid_stride(loop):
        return ("the loop stores (other blocks on the SM hide its loads' latency; a grid-stride "
                "loop's are loaded ahead)")
    if not movable_loads(loop):
        return "each load whose index follows the loop variable reads an array the loop stores to"
    return f"the next iteration's tiles would hold more than {budget(loop)} bytes a thread"


def _stores(loop: ir.Operation) -> list[ir.Operation] | None:
    """The stores and scatters in `loop`'s body, nested ones too; None if anything else there
    writes memory or has effects (atomics, prints, asserts, ops unknown to us)."""
    stores = []
    for op in walk_ops(loop):
        if not has_side_effects(op):
            continue
        if op.regions and name(op).startswith(("tile.", "scf.")):
            continue  # judged by the ops nested in it
        if name(op) not in PLAIN_STORES:
            return None
        stores.append(op)
    return stores


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
    return sum(_tile_bytes(o.results[0].type) for o in loads) <= budget(loop) * threads


def budget(loop: ir.Operation) -> int:
    """Bytes a thread the moved tiles may hold. A grid-stride loop (its step the number of
    blocks: a persistent kernel, launched with about as many blocks as the SMs hold) has few
    warps an SM to hide memory latency and the registers to spare: the tile in flight is all
    that covers it; elsewhere other blocks on the SM do, and registers a thread cost blocks."""
    return GRID_STRIDE_BYTES_PER_THREAD if is_grid_stride(loop) else CHUNK_BYTES_PER_THREAD


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
