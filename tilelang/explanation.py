"""Compiler: `tilelang.explain(kernel, args)`: which path each matrix product and each loop that
holds one took, and why not a faster one; no silent cliffs.

A product runs on one of three engines: `wgmma` with its operands staged in shared memory (the
fast path on sm_90), `mma.sync` from registers (the tensor cores, but each warp loads its own
operands and nothing overlaps the loads), or the CUDA cores (no tensor-core instruction takes
its dtypes). A loop that holds products is *staged* (its tiles copied to shared memory several
iterations ahead: passes/matmul_loops.py for plain K loops, passes/staged_loops.py for loops
with other work), *prefetched* (the next iteration's tiles loaded into registers,
passes/pipeline_loads.py), or neither. The reasons are what those analyses declined on
(passes/remarks.py), asked again here on the `tile-opt` module the layout stage starts from;
the PTX's instruction counts confirm the outcome.

The PTX assembler's own verdict comes last (`assembler` reports, where ptxas is on the PATH):
spills to local memory, and ptxas's advisory that it serialized the kernel's
wgmma (C7514/C7515: every product then waits for the one before, a 3-4x loss that no other
figure shows).

`TILELANG_EXPLAIN=1` makes every GPU compilation warn (`TilePerformanceWarning`) about each
product or loop that missed the fast path.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import mlir.ir as ir

from tilelang import settings
from tilelang.backend.assemble import needs_whole_program
from tilelang.compiler import CompiledKernel
from tilelang.dialect import dtype_of, ops
from tilelang.dialect.locations import to_loc
from tilelang.dialect.types import shape_of
from tilelang.passes import layout_rules
from tilelang.passes.ir_utils import (
    defining_op,
    latency_hint,
    name,
    uniform_constant,
    walk_ops,
)
from tilelang.passes.matmul_loops import WGMMA_ARCHS, MatmulLoop, matmul_loop
from tilelang.passes.plan_rings import tma_plan
from tilelang.passes.remarks import collecting
from tilelang.passes.simt.wgmma import overlaps_promotion
from tilelang.passes.split_accumulators import BLOCKS_ATTR, SPLIT_ATTR
from tilelang.passes.staged_loops import staged_loop
from tilelang.passes.widen_k_steps import WIDENED_ATTR

if TYPE_CHECKING:
    from tilelang.interface.kernel import Kernel


class TilePerformanceWarning(UserWarning):
    """A kernel took a slower path than its target allows (TILELANG_EXPLAIN=1)."""


@dataclass(frozen=True)
class LoopReport:
    """A loop that holds matrix products, or loads without them (a loop over chunks of a row:
    `products` 0, reported for what it is, never as a fallback)."""

    line: int | None
    products: int
    path: str  # "staged K loop", "staged products", "prefetched into registers", "not pipelined"
    detail: str  # the engine and stages, or what the loop does instead
    fast: bool  # the fastest path the target has for it
    reasons: tuple[str, ...] = ()  # why not a faster one

    def __str__(self) -> str:
        text = f"loop at line {self.line}: {self.path} ({self.detail})"
        return text + "".join(f"\n    - {r}" for r in self.reasons)


@dataclass(frozen=True)
class ProductReport:
    """One `mma` (or `matmul`, `@`)."""

    line: int | None
    shape: str  # "128x64 @ 64x128"
    dtypes: str  # "bfloat16 x bfloat16 -> float32"
    engine: str  # "wgmma (shared memory)", "wgmma (B from shared memory)", "mma.sync", "CUDA cores"
    fast: bool
    reasons: tuple[str, ...] = ()

    def __str__(self) -> str:
        text = f"product at line {self.line}: {self.shape}, {self.dtypes}: {self.engine}"
        return text + "".join(f"\n    - {r}" for r in self.reasons)


@dataclass(frozen=True)
class AssemblerReport:
    """What the PTX assembler reported that costs speed: spills, serialized wgmma."""

    detail: str
    fast: bool = False

    def __str__(self) -> str:
        return f"assembler: {self.detail}"


# PTX instructions that tell which path ran (counted in the kernel's PTX)
_INSTRUCTIONS = {
    "wgmma": r"\bwgmma\.mma_async\b",
    "mma.sync": r"\bmma\.sync\b",
    "ldmatrix": r"\bldmatrix\b",
    "cp.async": r"\bcp\.async\.c[ag]\b",
    "TMA copies": r"\bcp\.async\.bulk\.tensor\b",
    "fma (float32)": r"\bfma\.rn\.f32\b",
}


@dataclass
class Explanation:
    """What `tilelang.explain` found; `str()` prints it, `fallbacks` lists the misses."""

    kernel: str
    arch: str
    num_warps: int
    loops: list[LoopReport] = field(default_factory=list)
    products: list[ProductReport] = field(default_factory=list)
    instructions: dict[str, int] = field(default_factory=dict)  # PTX instruction counts
    assembler: list[AssemblerReport] = field(default_factory=list)

    @property
    def reports(self) -> list[LoopReport | ProductReport | AssemblerReport]:
        """The loops, then the products, then the assembler's verdict."""
        return [*self.loops, *self.products, *self.assembler]

    @property
    def fallbacks(self) -> list[LoopReport | ProductReport | AssemblerReport]:
        return [r for r in self.reports if not r.fast]

    def __str__(self) -> str:
        lines = [f"{self.kernel} [{self.arch}, {self.num_warps} warps]"]
        if not self.loops and not self.products:
            lines.append("  no matrix products")
        for report in self.reports:
            first, *rest = str(report).split("\n")
            info = isinstance(report, LoopReport) and report.products == 0
            mark = "info" if info else "ok  " if report.fast else "SLOW"
            lines += [f"  {mark} {first}", *(f"  {r}" for r in rest)]
        counts = ", ".join(f"{n} {what}" for what, n in self.instructions.items() if n)
        lines.append(f"  PTX: {counts or 'no tensor-core or copy instructions'}")
        return "\n".join(lines)


def explain(kernel: Kernel | Callable[..., Any], args: Sequence[Any], *, arch: str | None = None,
            num_warps: int | None = None) -> Explanation:
    """Compile `kernel` for `args` (to PTX; no GPU needed) and say which path each matrix
    product and each loop holding one took, and why not a faster one.

    Example:
        >>> print(tilelang.explain(matmul, (a, b, c, 128, 128, 64)))
    """
    from tilelang.compiler import compile as compile_kernel

    compiled = compile_kernel(kernel, args, stop_after="ptx", arch=arch, num_warps=num_warps)
    return explain_compiled(compiled)


def explain_compiled(compiled: CompiledKernel) -> Explanation:
    """The explanation of a compilation that reached `ptx` (its tile-opt module kept)."""
    arch, warps = compiled.options.arch, compiled.options.num_warps or 4
    found = Explanation(compiled.name, arch, warps)
    if compiled.tile_module is not None:
        with compiled.tile_module.context:
            module = _as_analysed(compiled.tile_module, arch)
            for op in walk_ops(module.operation):
                if BLOCKS_ATTR in op.attributes:
                    continue  # a product's column blocks: its product's entry says so
                if name(op) == "scf.for" and _products_in(op):
                    found.loops.append(_loop_report(op, arch, warps))
                elif name(op) == "scf.for" and _loads_in(op):
                    found.loops.append(_chunk_report(op))
                elif name(op) == "tile.mma":
                    found.products.append(_product_report(op, arch, warps))
    ptx = compiled.ptx or ""
    found.instructions = {what: len(re.findall(pattern, ptx))
                          for what, pattern in _INSTRUCTIONS.items()}
    if ptx:
        found.assembler = _assembler_reports(compiled)
    return found


def _assembler_reports(compiled: CompiledKernel) -> list[AssemblerReport]:
    """Spills and serialized wgmma, as ptxas reports them; none where ptxas is not on the PATH
    (nvJitLink could assemble too, but may fall back to the driver, which a forked compile
    worker under TILELANG_EXPLAIN=1 must not touch)."""
    found = []
    if needs_whole_program(compiled.ptx or "") and settings.assembler() == "nvjitlink":
        found.append(AssemblerReport(
            "TILELANG_ASSEMBLER=nvjitlink: nvJitLink ignores this warp-specialized kernel's "
            "setmaxnreg (ptxas advisory C7504), so its consumer warps keep the launch's share "
            "of registers and their wgmma may be serialized (C7512); by default the ptxas "
            "command or the driver assembles it"))
    if shutil.which("ptxas") is None:
        return found
    resources = compiled.resources()  # a rejected PTX raises: a compiler error
    if resources.wgmma_serialized:
        found.append(AssemblerReport(
            "ptxas serialized the kernel's wgmma (C7512-C7515: too few registers, or registers "
            "of a product still running read or written): each waits for the one before"))
    hint, reached = compiled.options.occupancy, resources.occupancy
    if hint is not None and reached is not None and reached.blocks_per_sm < hint:
        found.append(AssemblerReport(
            f"the occupancy hint asks for {hint} blocks an SM; {reached.blocks_per_sm} fit "
            f"(limited by {reached.limited_by}: {resources.shared_bytes} bytes of shared "
            f"memory and {resources.registers} registers a thread; the stages a loop needs, "
            "or its accumulators' registers, come first)"))
    step = compiled.metadata.get("occupancy_step")
    if step is not None:  # the spills, if any, were accepted for the extra block
        found.append(AssemblerReport(
            f"registers capped at {step.registers} a thread (ptxas chose {step.before}) for "
            f"{step.blocks} blocks an SM ({resources.spill_stores} bytes spilled)", fast=True))
    elif resources.spill_stores or resources.spill_loads:
        floor = compiled.metadata.get("register_floor")
        raised = "" if floor is None else (
            f"; asked for one block an SM: ptxas had chosen {floor.registers} and spilled "
            f"{floor.spill_stores} bytes")
        found.append(AssemblerReport(
            f"{resources.spill_stores} bytes spilled to local memory, {resources.spill_loads} "
            f"loaded back ({resources.registers} registers a thread{raised})"))
    return found


def warn_fallbacks(compiled: CompiledKernel) -> None:
    """TILELANG_EXPLAIN=1: a TilePerformanceWarning per product or loop off the fast path."""
    explanation = explain_compiled(compiled)
    for report in explanation.fallbacks:
        warnings.warn(f"kernel {compiled.name} [{compiled.options.arch}]: {report}",
                      TilePerformanceWarning, stacklevel=2)


def _as_analysed(module: ir.Module, arch: str) -> ir.Module:
    """A copy of the tile-opt module as the layout stage's analyses see it: after the passes
    before them that change which loads they find (pipelines.LAYOUT)."""
    from tilelang.passes import run_pipeline

    copy = ir.Module.parse(module.operation.get_asm(enable_debug_info=True))
    run_pipeline(copy.operation, f"tile-unpermute-loads{{arch={arch}}},"
                 f"tile-split-accumulators,tile-widen-k-steps{{arch={arch}}}")
    return copy


def _products_in(loop: ir.Operation) -> list[ir.Operation]:
    return [op.operation for op in loop.regions[0].blocks[0].operations
            if op.operation.name == "tile.mma"]


def _loads_in(loop: ir.Operation) -> list[ir.Operation]:
    """The loop's loads and gathers (a gather norm reads its chunks with gathers)."""
    return [op.operation for op in loop.regions[0].blocks[0].operations
            if op.operation.name in ("tile.load", "tile.gather")]


def _chunk_report(loop: ir.Operation) -> LoopReport:
    """A loop that loads tiles but multiplies none (a norm's passes over a row's chunks):
    prefetched into registers when passes/pipeline_loads.py takes it, else its loads are issued
    in their iteration (other blocks on the SM hide their latency); never a fallback."""
    from tilelang.passes import pipeline_loads

    count = len(_loads_in(loop))
    loads = f"{count} load{'s' if count > 1 else ''} an iteration"
    if pipeline_loads.chunk_loop(loop):
        moved = pipeline_loads.movable_loads(loop)
        if moved and pipeline_loads.fits_budget(loop, moved):
            return LoopReport(_line(loop), 0, "prefetched into registers",
                              f"{loads}, {len(moved)} loaded one iteration ahead", True)
        why = pipeline_loads.why_not_moved(loop)
    else:
        why = ("the loop writes memory other than by stores (an atomic, a print) or holds "
               "another loop")
    return LoopReport(_line(loop), 0, "loads in their iteration",
                      f"{loads}, not prefetched: {why}", True)


def _line(op: ir.Operation) -> int | None:
    loc = to_loc(op.location)
    return loc.line if loc is not None else None


def _loop_report(loop: ir.Operation, arch: str, warps: int) -> LoopReport:
    count = len(_products_in(loop))
    with collecting() as why_whole:
        whole = matmul_loop(loop, arch, warps)
    if whole is not None:
        detail = (f"{whole.engine}, {whole.stages} stages of {whole.bm}x{whole.bn}x{whole.bk}"
                  + _hinted([whole.load_a, whole.load_b]))
        return LoopReport(_line(loop), count, "staged K loop", detail,
                          whole.engine == "wgmma" or arch not in WGMMA_ARCHS)
    with collecting() as why_staged:
        staged = staged_loop(loop, arch, warps)
    if staged is not None:  # why not a staged K loop, where it is one product's loop
        kept = tuple(f"not a staged K loop: {r}" for r in why_whole) if count == 1 else ()
        return LoopReport(_line(loop), count, "staged products",
                          f"wgmma, {staged.stages} stages" +
                          _hinted([m.b.load for m in staged.mmas]), True, kept)
    reasons = tuple([f"not a plain K loop: {r}" for r in why_whole] +
                    [f"products not staged: {r}" for r in why_staged])
    if _prefetchable(loop):
        return LoopReport(_line(loop), count, "prefetched into registers",
                          "the next iteration's tiles loaded during this one", False, reasons)
    return LoopReport(_line(loop), count, "not pipelined",
                      "each iteration waits for its loads", False, reasons)


def _hinted(loads: list[ir.Operation]) -> str:
    hint = latency_hint(loads)
    return "" if hint is None else f" (the loads' latency={hint} hint)"


def _prefetchable(loop: ir.Operation) -> bool:
    """What tile-pipeline-loads takes: a body without memory writes, with loads in it."""
    from tilelang.passes.pipeline_loads import qualifies

    body = [op.operation for op in loop.regions[0].blocks[0].operations]
    return qualifies(loop) and any(name(op) == "tile.load" for op in body)


def _product_report(op: ir.Operation, arch: str, warps: int) -> ProductReport:
    report = _path_report(op, arch, warps)
    notes = []
    if WIDENED_ATTR in op.attributes:
        steps, factor = ops.array_attr(op, WIDENED_ATTR)
        notes.append(f"its loop's K steps of {steps} are taken {factor} at a time (wgmma reads "
                     "its operands from shared memory in rows of 128 bytes along K)")
    if SPLIT_ATTR in op.attributes:
        rows, cols, count = ops.array_attr(op, SPLIT_ATTR)
        notes.append(
            f"its {rows}x{cols} accumulator is computed in {count} blocks of "
            f"{rows}x{cols // count} columns, one after the other (a thread of {warps} warps "
            f"would hold {rows * cols // (32 * warps)} accumulator values, more than the "
            "registers allow)")
    return dataclasses.replace(report, reasons=(*notes, *report.reasons))


def _as_copied(loop: MatmulLoop) -> MatmulLoop:
    """The loop as tile-plan-rings will stage it: by TMA where it can (a later stage)."""
    boxed = tma_plan(loop) if settings.tma_enabled() else None
    return boxed if isinstance(boxed, MatmulLoop) else loop


def _accumulation(loop: MatmulLoop, warps: int) -> tuple[str, ...]:
    """How a wgmma K loop of 8-bit inputs adds its products (simt/wgmma.py, WgmmaEngine)."""
    if loop.engine != "wgmma" or loop.itemsize != 1:
        return ()
    if settings.fp8_fast_accumulation():
        return ("its products accumulate in wgmma's own additions, about 14 bits "
                "(TILELANG_FP8_ACCUMULATION=fast)",)
    if overlaps_promotion(loop, warps):
        return ("each K tile's products are added to the float32 accumulator while the next "
                "tile's run (promoted, overlapped)",)
    return ("each K tile's products are waited for, then added to the float32 accumulator "
            "(promoted, not overlapped: that takes one 64-row block of at most 128 columns a "
            "warpgroup, e.g. 128x128 tiles on 8 warps, and TMA copies for a B given (K, N))",)


def _path_report(op: ir.Operation, arch: str, warps: int) -> ProductReport:
    a, b, acc = list(op.operands)[:3]
    shape = (f"{'x'.join(map(str, shape_of(a.type)))} @ "
             f"{'x'.join(map(str, shape_of(b.type)))}")
    dtypes = f"{dtype_of(a.type).name} x {dtype_of(b.type).name} -> {dtype_of(acc.type).name}"
    loop = op.parent
    in_loop = loop is not None and name(loop) == "scf.for"
    narrow = _rounded_before_accumulating(op) if in_loop else None
    if narrow is not None:
        wide = dtype_of(acc.type).name
        return ProductReport(_line(op), shape, dtypes, "rounded, then accumulated", False, (
            f"each iteration's {wide} product is rounded to {narrow} before it is added to the "
            f"{wide} accumulator (ct.matmul and @ return their inputs' dtype): "
            f"`acc = ct.mma(x, y, acc)` keeps every partial sum in {wide} and lets the loop "
            "run as a staged K loop",))
    if in_loop:
        with collecting():
            whole = matmul_loop(loop, arch, warps)
            staged = staged_loop(loop, arch, warps) if whole is None else None
        if whole is not None:
            transposed = ", B transposed there first (8-bit B given as (K, N))" \
                if whole.b_transposed_here else ""
            return ProductReport(_line(op), shape, dtypes,
                                 f"{whole.engine}, both operands from shared memory{transposed}",
                                 whole.engine == "wgmma" or arch not in WGMMA_ARCHS,
                                 _accumulation(_as_copied(whole), warps))
        if staged is not None:
            mma = staged.mma_of(op)
            where = "A and B" if mma is not None and mma.a is not None else "B"
            written = ""
            if mma is not None and mma.a_in_ring:
                written = " (A's rows gathered into each stage by cp.async)"
            elif mma is not None and mma.a is not None and mma.a.registers:
                written = " (A written there once, before the loop, from its registers)"
            kept = tuple(f"A is gathered into registers each iteration: {r}"
                         for r in (mma.a_reasons if mma is not None else ()))
            return ProductReport(_line(op), shape, dtypes,
                                 f"wgmma, {where} from shared memory{written}", True, kept)
    atom = layout_rules.mma_atom(dtype_of(a.type), dtype_of(b.type), dtype_of(acc.type))
    if atom is None:
        return ProductReport(_line(op), shape, dtypes, "CUDA cores (fma)", False,
                             (f"no tensor-core instruction multiplies {dtypes}",))
    if in_loop:
        reasons = [f"its loop (line {_line(loop)}) is not staged: see the loop's reasons"]
    elif loop is not None and name(loop) == "scf.while":
        reasons = [f"in a `while` loop (line {_line(loop)}) that is not a counting one (`k < n` "
                   "of a carried integer against values the loop does not change, `k += c` "
                   "with c a positive constant, k unread after the loop): only `for` loops, "
                   "and such `while` loops, are staged"]
    else:
        reasons = ["outside a loop: its operands come from registers"]
    fast = arch not in WGMMA_ARCHS  # mma.sync is sm_80's fast path; sm_90's is wgmma
    return ProductReport(_line(op), shape, dtypes, f"mma.sync ({atom.name}) from registers",
                         fast, () if fast else tuple(reasons))



def _rounded_before_accumulating(op: ir.Operation) -> str | None:
    """The narrower dtype a product into zero is rounded to before an add into one of its
    loop's carried values (`acc = acc + ct.matmul(x, y)` with 16-bit inputs), or None."""
    zero = uniform_constant(op.operands[2])
    uses = list(op.results[0].uses)
    if zero is None or zero[0] != 0 or len(uses) != 1 or name(uses[0].owner) != "tile.cast":
        return None
    cast = uses[0].owner
    narrow = dtype_of(cast.results[0].type)
    if narrow.itemsize >= dtype_of(op.results[0].type).itemsize:
        return None
    carried = set(list(op.parent.regions[0].blocks[0].arguments)[1:])
    frontier = [cast.results[0]]
    while frontier:  # through casts back to a wider type, to the add
        value = frontier.pop()
        for use in value.uses:
            user = use.owner
            if name(user) == "tile.cast":
                frontier.append(user.results[0])
            elif name(user) == "tile.add" and any(
                    _from_carried(v, carried) for v in user.operands if v != value):
                return narrow.name
    return None


def _from_carried(value: ir.Value, carried: set[ir.Value]) -> bool:
    """A loop-carried value, or one cast or scaled from it (attention's `acc * alpha`)."""
    if value in carried:
        return True
    op = defining_op(value)
    return op is not None and name(op) in ("tile.cast", "tile.mul") and \
        any(v in carried for v in op.operands)
