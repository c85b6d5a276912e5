"""Passes (simt): tile-plan-rings: which loops copy their tiles into a ring of shared-memory
stages, by what, and how many stages the ring has.

Three kinds of loop are lowered whole around such a ring (the analyses that recognize them are
shared with the layout passes, which must agree on them):
- a plain K loop of two loads and one product (passes/matmul_loops.py), multiplied by wgmma
  (sm_90) or ldmatrix + mma.sync;
- a loop whose products read staged operands with other work between them, as attention's
  (passes/staged_loops.py), on wgmma;
and each of them is filled either by `cp.async` (simt/staged_matmul.py, simt/staged_loop.py)
or, on sm_90 with `tma`, by TMA boxes (simt/tma_matmul.py, simt/tma_ring.py) when every
operand is a kernel parameter (or a permuted view of one) and whole boxes cover its tiles (an
A operand gathered by rows is copied by cp.async, and so is the rest of its ring).

The pass records the choice on the loop as `tile.ring = {copy = "tma" | "cp.async",
loop = "matmul" | "staged", engine = "wgmma" | "mma.sync", stages = N}`. The lowering reads it:
a loop without it is an ordinary loop. `copy` and `stages` may be edited (more stages take more
shared memory; `copy = "tma"` only where TMA can copy the tiles); `loop` and `engine` follow
from the layouts tile-assign-layouts chose and are checked, not chosen, by the lowering. In a
warp-specialized kernel the ring's stages are the kernel's `tile.warp_specialize` stages
(passes/specialize_warps.py).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import mlir.ir as ir

from tilelang.errors import TileCompilerExecutionError
from tilelang.layout import wgmma
from tilelang.passes.ir_utils import kernel_num_warps, name, tma_allowed, walk_ops
from tilelang.passes.matmul_loops import MatmulLoop, matmul_loop
from tilelang.passes.simt.tma import BOX_ROW_BYTES
from tilelang.passes.staged_loops import StagedLoop, staged_loop

NAME = "tile-plan-rings"
RING_ATTR = "tile.ring"  # on an scf.for: a dictionary (module doc)


@dataclass(frozen=True)
class Options:
    chip: str = "sm_90"
    tma: bool = False  # rings of sm_90 may be filled by TMA


@dataclass(frozen=True)
class Ring:
    """A loop's ring: its plan (with the ring's stages) and whether TMA fills it."""

    plan: MatmulLoop | StagedLoop
    tma: bool


def run(module: ir.Operation, options: Options) -> None:
    """Choose the loops lowered around a ring of shared-memory stages (tile.ring)."""
    for func in module.regions[0].blocks[0].operations:
        if name(func) != "func.func":
            continue
        num_warps = kernel_num_warps(func.operation)
        for op in walk_ops(func.operation):
            ring = choose(op, options.chip, num_warps, options.tma)
            if ring is not None:
                op.attributes[RING_ATTR] = _attribute(ring)


def choose(op: ir.Operation, chip: str, num_warps: int, tma: bool) -> Ring | None:
    """TMA where it can fill the ring, else cp.async; None for a loop without a ring."""
    if name(op) != "scf.for":
        return None
    plan: MatmulLoop | StagedLoop | None = matmul_loop(op, chip, num_warps)
    if plan is None:
        plan = staged_loop(op, chip, num_warps)
    if plan is None:
        return None
    boxed = tma_plan(plan) if tma else None
    return Ring(boxed, True) if boxed is not None else Ring(plan, False)


def tma_plan(plan: MatmulLoop | StagedLoop) -> MatmulLoop | StagedLoop | None:
    """The plan as TMA fills its ring (B's stages panel-major), or None where it cannot or a
    load says `allow_tma=False`."""
    if isinstance(plan, MatmulLoop):
        loads = [plan.load_a, plan.load_b]
        if plan.engine != "wgmma" or not _kernel_arrays(loads) or not tma_allowed(loads):
            return None
        boxed: MatmulLoop | StagedLoop = dataclasses.replace(plan, tma=True)
        return boxed if boxes_fit([plan.a, plan.b]) else None
    if any(o.gathered is not None for o in plan.operands):
        return None  # rows picked by index: no box covers them
    loads = [o.load for o in plan.operands]
    if not _kernel_arrays(loads) or not tma_allowed(loads):
        return None
    boxed = with_panels(plan)
    return boxed if boxes_fit([o.operand for o in boxed.operands]) else None


def ring_of(op: ir.Operation, chip: str, num_warps: int) -> Ring | None:
    """The ring tile-plan-rings recorded on `op` (None: an ordinary loop), as the lowering
    needs it. A recorded ring the loop cannot have (edited by hand) is an error."""
    if RING_ATTR not in op.attributes:
        return None
    fields = ir.DictAttr(op.attributes[RING_ATTR])
    kind, copy = _string(fields, "loop"), _string(fields, "copy")
    stages = ir.IntegerAttr(fields["stages"]).value
    plan = matmul_loop(op, chip, num_warps) if kind == "matmul" else staged_loop(
        op, chip, num_warps)
    if plan is None or kind not in ("matmul", "staged") or copy not in ("tma", "cp.async"):
        raise TileCompilerExecutionError(
            f"{RING_ATTR} = {fields} is on a loop that is not a {kind} loop on {chip}")
    if _string(fields, "engine") != plan.engine:
        raise TileCompilerExecutionError(
            f"{RING_ATTR} names the engine {_string(fields, 'engine')}; the layouts are "
            f"{plan.engine}'s")
    if copy == "tma":
        boxed = tma_plan(plan)
        if boxed is None:
            raise TileCompilerExecutionError(f"{RING_ATTR}: TMA cannot copy this loop's tiles")
        plan = boxed
    if stages < 2:
        raise TileCompilerExecutionError(f"{RING_ATTR}: a ring has at least 2 stages")
    return Ring(dataclasses.replace(plan, stages=stages), copy == "tma")


def _attribute(ring: Ring) -> ir.Attribute:
    plan = ring.plan
    return ir.DictAttr.get({
        "copy": ir.StringAttr.get("tma" if ring.tma else "cp.async"),
        "loop": ir.StringAttr.get("matmul" if isinstance(plan, MatmulLoop) else "staged"),
        "engine": ir.StringAttr.get(plan.engine),
        "stages": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), plan.stages),
    })


def _string(fields: ir.DictAttr, key: str) -> str:
    return ir.StringAttr(fields[key]).value


def boxes_fit(operands: list[wgmma.Operand]) -> bool:
    """Boxes cover the tiles: at most 256 rows, whole 128-byte panels of columns."""
    return all(op.rows <= 256 and (op.cols * op.itemsize) % BOX_ROW_BYTES == 0
               for op in operands)


def _kernel_arrays(loads: list[ir.Operation]) -> bool:
    """Whether every load reads an array passed as a kernel parameter, or picked at run time
    from such arrays (`tile.array_select`: an element of a list of arrays, as a grouped
    GEMM's), or a permuted view of either (`tile.array_permute`: a column-major `w.t()` read
    by rows): a tensor map is encoded on the host for each parameter (with its dimensions in
    the view's order), and the kernel picks the map as it picks the array
    (simt/tma.tensor_map). An array made in the kernel otherwise (a slice) has no map: cp.async
    copies it."""
    return all(_parameter_array(load.operands[0]) for load in loads)


def _parameter_array(array: ir.Value, views: bool = True) -> bool:
    owner = array.owner
    if isinstance(owner, ir.Block):
        return name(owner.owner) == "func.func"
    op = owner.operation
    if name(op) == "tile.array_permute":
        return views and _parameter_array(op.operands[0])
    # the arrays picked from share one map order: no views among them
    return name(op) == "tile.array_select" and \
        all(_parameter_array(a, views=False) for a in list(op.operands)[1:])


def with_panels(plan: StagedLoop) -> StagedLoop:
    """The plan with its N-major stages laid out as TMA boxes write them (panel-major)."""
    mmas = tuple(dataclasses.replace(m, b=dataclasses.replace(
        m.b, operand=dataclasses.replace(m.b.operand, panel_major=not m.b.operand.k_major)))
        for m in plan.mmas)
    return dataclasses.replace(plan, mmas=mmas)
