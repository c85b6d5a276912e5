"""Compiler: drive a kernel through the named stages (source -> tile -> tile-opt -> ... -> ptx)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, MutableMapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import mlir.ir as ir
from mlir.passmanager import PassManager

from tilelang import settings
from tilelang.backend.assemble import ASSEMBLERS, Resources, assemble, cubin, resources
from tilelang.backend.occupancy import occupancy
from tilelang.backend.occupancy_step import assemble_stepped
from tilelang.backend.ptx import extract_ptx
from tilelang.backend.targets import check_arch
from tilelang.dialect import make_context
from tilelang.dialect.locations import to_loc
from tilelang.errors import (
    Loc,
    TileCompilerExecutionError,
    TileError,
    TileInternalError,
    TileValueError,
)
from tilelang.frontend.kernel import build_module
from tilelang.frontend.source import kernel_source
from tilelang.interface.kernel import as_kernel
from tilelang.interface.parameters import kernel_parameters
from tilelang.interface.specs import ParamSpec
from tilelang.passes import pipelines, run_pipeline
from tilelang.passes.distribute_to_threads import SHARED_BYTES_ATTR
from tilelang.passes.invariants import check_stage
from tilelang.passes.registry import parse_step, split_pipeline
from tilelang.passes.simt.tma import TENSOR_MAPS_ATTR
from tilelang.timeout import Deadline
from tilelang.tracebacks import hide_internal_frames

if TYPE_CHECKING:
    from tilelang.interface.kernel import Kernel
    from tilelang.interpreter.program import Program

STAGES = ("source", "tile", "tile-opt", "layout", "simt", "llvm", "ptx", "cubin")
MLIR_STAGES = STAGES[1:-2]
DEFAULT_NUM_WARPS = 4


@dataclass
class CompileOptions:
    """What selects a compiled artifact besides the signature."""

    num_warps: int | None = None  # None: chosen from the kernel's products (choose_num_warps)
    arch: str = "sm_90"
    extra_passes: dict[str, str] = field(default_factory=dict)  # stage -> pipeline appended
    occupancy: int | None = None  # blocks per SM the register allocation must allow
    tma: bool = True  # TMA copies where they apply (also TILELANG_TMA); export turns it off
    # the `cubin` stage: the architecture to assemble for (None: `arch`; PTX for sm_80 runs
    # on an H100 assembled for sm_90) and how (backend/assemble.py's ASSEMBLERS)
    cubin_arch: str | None = None
    assembler: str = "auto"


class StageTexts(MutableMapping[str, Any]):
    """`CompiledKernel.asm`: the text of each stage reached (`str`), and the `cubin` (`bytes`,
    or None where no assembler is available). An MLIR stage is kept as a copy of its module and
    printed when first read: a launch reads only the PTX, and printing every stage of a large
    kernel took longer than running some of them. The cubin is assembled when first read."""

    def __init__(self) -> None:
        self._texts: dict[str, Any] = {}  # str, ir.Operation, bytes, or a function making one

    def __getitem__(self, stage: str) -> Any:
        text = self._texts[stage]
        if isinstance(text, str | bytes) or text is None:
            return text
        if hasattr(text, "get_asm"):  # a copy of an MLIR stage's module
            text = self._texts[stage] = text.get_asm(enable_debug_info=False)
        else:  # the cubin, assembled now
            text = self._texts[stage] = text()
        return text

    def __setitem__(self, stage: str, text: Any) -> None:
        self._texts[stage] = text

    def __delitem__(self, stage: str) -> None:
        del self._texts[stage]

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts)

    def __len__(self) -> int:
        return len(self._texts)

    def __repr__(self) -> str:
        return f"StageTexts({list(self._texts)})"


@dataclass
class CompiledKernel:
    """The result of a compilation: the text of every stage reached, and what runs it."""

    name: str
    signature: tuple[ParamSpec, ...]
    options: CompileOptions
    asm: StageTexts = field(default_factory=StageTexts)
    module: ir.Module | None = None  # the last MLIR stage reached (its context is kept alive)
    context: ir.Context | None = None
    param_names: tuple[str, ...] = ()
    ptx: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    _program: Program | None = None

    @property
    def cubin(self) -> bytes | None:
        """The `cubin` stage (assembled when first read); None where the compilation stopped
        before it or no assembler is available here."""
        return self.asm.get("cubin")

    @property
    def stages(self) -> tuple[str, ...]:
        return tuple(s for s in STAGES if s in self.asm)

    def resources(self) -> Resources:
        """Registers, spills, stack and shared memory of the kernel, as the PTX assembler
        reports them (ptxas -v when it is installed, else nvJitLink), plus the dynamic shared
        memory each launch gives a block, and the theoretical occupancy on the target
        (`.occupancy`: blocks and warps per SM, and what limits them); assembled once."""
        if "resources" not in self.metadata:
            if self.ptx is None:
                raise TileValueError("resources need the ptx stage (compile without stop_after)")
            if "assembled_ptx" not in self.metadata:  # as the cubin stage assembles it
                _assemble_stepped(self, self.ptx, self.options.cubin_arch or self.options.arch,
                                  self.options)
            log = self.metadata.get("assembled_log")
            if log is None:
                self.metadata["cubin"], log = assemble(self.ptx, self.options.arch)
            found = resources(log).get(self.name)
            if found is None:
                raise TileCompilerExecutionError(
                    f"the assembler reported no resources for {self.name}:\n{log[-2000:]}"
                )
            dynamic = self.metadata.get("shared_bytes", 0)  # sized at launch, not in the cubin
            shared = found.shared_bytes + dynamic
            threads = self.block_threads
            self.metadata["resources"] = dataclasses.replace(
                found, shared_bytes=shared,
                occupancy=occupancy(self.options.arch, threads, found.registers, shared))
        return self.metadata["resources"]

    @property
    def block_threads(self) -> int:
        """Threads per block at launch (a producer warpgroup adds 128: simt/warp_specialize)."""
        return self.metadata.get("block_threads") or \
            32 * (self.options.num_warps or DEFAULT_NUM_WARPS)

    def report(self) -> str:
        r = self.resources()
        threads = self.block_threads
        return (f"{self.name} [{self.options.arch}, {threads} threads]: {r.registers} registers, "
                f"{r.spill_stores} B spill stores, {r.spill_loads} B spill loads, "
                f"{r.stack_bytes} B stack, {r.shared_bytes} B shared memory; {r.occupancy}")

    def interpreter_program(self) -> Program:
        """The interpreter's compiled form of the `tile-opt` function (built once)."""
        if self._program is None:
            from tilelang.interpreter import compile_function

            assert self.tile_module is not None
            with _COMPILING:  # it reads the MLIR module: one thread at a time
                if self._program is None:
                    self._program = compile_function(_kernel_func(self.tile_module))
        return self._program

    tile_module: ir.Module | None = None


def compile(
    kernel: Kernel | Callable[..., Any], args: Sequence[Any], *, stop_after: str | None = None,
    arch: str | None = None, num_warps: int | None = None,
    extra_passes: dict[str, str] | None = None,
) -> CompiledKernel:
    """Compile `kernel` for the given arguments (NumPy arrays stand in for device arrays).

    Example:
        >>> ck = tilelang.compile(add, (x, y, z, 1024), stop_after="tile-opt")
        >>> print(ck.asm["tile-opt"])
    """
    try:
        k = as_kernel(kernel)
        signature = k.specialize(args)
        target = arch or settings.arch_override() or "sm_90"
        hints = k.options.for_arch(target)  # ByTarget hints: their values for this target
        options = CompileOptions(num_warps or hints.num_warps, target, dict(extra_passes or {}),
                                 hints.occupancy)
        return compile_signature(k.fn, signature, options, stop_after)
    except TileError as e:
        if not hide_internal_frames(e):
            raise e from None
        raise  # a bare raise adds no frame: the traceback ends at the user's call


# One compilation at a time per process: the front end and the MLIR passes are not written for
# threads (launches from several threads compile their cold specializations one after another).
_COMPILING = threading.RLock()


def compile_signature(
    fn: Callable[..., Any], signature: tuple[ParamSpec, ...], options: CompileOptions,
    stop_after: str | None = None,
) -> CompiledKernel:
    if stop_after is not None and stop_after not in STAGES:
        raise TileValueError(f"unknown stage {stop_after!r}; stages are {', '.join(STAGES)}")
    with _COMPILING:
        outer, _DEADLINE[0] = _DEADLINE[0], Deadline(getattr(fn, "__name__", "?"))
        try:
            return _compile_signature(fn, signature, options, stop_after)
        except TileError as e:
            if e.loc is None:  # an error about the whole kernel: it names the kernel
                e.loc = _kernel_loc(fn)
            raise
        finally:
            _DEADLINE[0] = outer


# The clock of the compilation running (under _COMPILING): checked between stages and passes.
_DEADLINE: list[Deadline | None] = [None]


def _kernel_loc(fn: Callable[..., Any]) -> Loc | None:
    """The kernel's `def name` line, for errors that concern no line of its body."""
    try:
        source = kernel_source(fn)
    except TileError:
        return None
    tree = source.tree
    return Loc(source.filename, tree.lineno, tree.col_offset, tree.lineno,
               tree.col_offset + len(f"def {tree.name}"), tree.name)


def _compile_signature(
    fn: Callable[..., Any], signature: tuple[ParamSpec, ...], options: CompileOptions,
    stop_after: str | None = None,
) -> CompiledKernel:
    started = time.perf_counter()  # the "tile" stage's time includes reading the source
    source = kernel_source(fn)
    names = tuple(p.name for p in kernel_parameters(fn))
    result = CompiledKernel(source.name, signature, options, param_names=names)
    result.metadata.update(timings={}, lap=started)
    dumper = _Dumper(source.name, _specialization_tag(signature, options))
    result.asm["source"] = source.text
    dumper.write("source", source.text, ".py")
    if stop_after == "source":
        return result
    ctx = make_context()
    result.context = ctx
    with ctx, ir.Location.unknown():
        module = build_module(fn, signature, options.num_warps or DEFAULT_NUM_WARPS)
        if options.occupancy is not None:
            _kernel_func(module).attributes["tile.occupancy"] = ir.IntegerAttr.get(
                ir.IntegerType.get_signless(32), options.occupancy)
        snapshot = _record(result, dumper, "tile", module)
        if stop_after == "tile":
            return result
        _run_stage(module, pipelines.TILE_OPT, options.extra_passes.get("tile-opt"), "tile-opt",
                   snapshot)
        if options.num_warps is None:  # chosen now that the tile shapes are known
            options = dataclasses.replace(options, num_warps=choose_num_warps(module))
            _kernel_func(module).attributes["tile.num_warps"] = ir.IntegerAttr.get(
                ir.IntegerType.get_signless(32), options.num_warps)
            result.options = options
        snapshot = _record(result, dumper, "tile-opt", module)
        result.tile_module = module
        if stop_after == "tile-opt":
            return result
        _gpu_stages(result, dumper, _clone(module), snapshot, options, stop_after)
    return result


def _gpu_stages(result: CompiledKernel, dumper: _Dumper, module: ir.Module,
                snapshot: ir.Operation, options: CompileOptions, stop_after: str | None) -> None:
    chip, features = check_arch(options.arch)
    tma = int(options.tma and settings.tma_enabled())
    simt = pipelines.SIMT.format(chip=chip, features=features, opt=settings.llvm_opt_level(),
                                 tma=tma,
                                 specialize=int(settings.warp_specialize_enabled()))
    layout = pipelines.LAYOUT.format(arch=options.arch, tma=tma,
                                     products=int(settings.pipeline_products_enabled()),
                                     delay=int(settings.delay_products_enabled()))
    for stage, pipeline in (("layout", layout), ("simt", simt),
                            ("llvm", pipelines.LLVM)):
        _run_stage(module, pipeline, options.extra_passes.get(stage), stage, snapshot)
        snapshot = _record(result, dumper, stage, module)
        if stage == "simt":
            result.metadata["shared_bytes"] = kernel_shared_bytes(module)
            result.metadata["tensor_maps"] = kernel_tensor_maps(module)
            result.metadata["block_threads"] = kernel_block_threads(module)
        if stop_after == stage:
            return
    _run_stage(module, pipelines.PTX, None, "ptx", snapshot)
    result.ptx = extract_ptx(module)
    result.asm["ptx"] = result.ptx
    dumper.write("ptx", result.ptx, ".ptx")
    _lap(result, "ptx")
    if stop_after != "ptx":
        _cubin_stage(result, dumper, result.ptx, options)


def _cubin_stage(result: CompiledKernel, dumper: _Dumper, ptx: str,
                 options: CompileOptions) -> None:
    """The last stage, assembled when first read (`asm["cubin"]`): `tilelang.compile` users
    who only read the PTX never wait for the assembler; the runtime reads it at once."""
    if options.assembler not in ASSEMBLERS:
        raise TileValueError(f"unknown assembler {options.assembler!r}; the assemblers are "
                             f"{', '.join(ASSEMBLERS)}")

    def assembled() -> bytes | None:
        arch = options.cubin_arch or options.arch
        _assemble_stepped(result, ptx, arch, options)  # (its assembly is remembered)
        code = cubin(result.metadata.get("assembled_ptx", ptx), arch, options.assembler)
        if code is not None:
            dumper.write_bytes("cubin", code, ".cubin")
        return code

    result.asm["cubin"] = assembled
    if dumper.dir is not None:  # the dump folder has every stage
        result.asm["cubin"]


def _assemble_stepped(result: CompiledKernel, ptx: str, arch: str,
                      options: CompileOptions) -> None:
    """Decide, by the ptxas command's figures, whether the kernel is assembled asking for
    one block an SM (its register floor) or with its registers capped at the next occupancy
    step (backend/occupancy_step.py): the PTX to assemble, ptxas's log and cubin for it and
    what was taken go in the metadata (`assembled_ptx`, `assembled_log`, `cubin`,
    `occupancy_step`, `register_floor`). Nothing where it does not apply (nvJitLink or the
    driver chosen, no ptxas command); no step with an occupancy hint."""
    step = options.occupancy is None and settings.occupancy_step_enabled()
    floor = settings.register_floor_enabled()
    if options.assembler not in ("auto", "ptxas") or \
            settings.assembler() not in ("auto", "ptxas") or not (step or floor):
        return
    done = assemble_stepped(ptx, arch, result.name, result.block_threads,
                            result.metadata.get("shared_bytes", 0), step=step, floor=floor)
    if done is not None:
        result.metadata.update(assembled_ptx=done.ptx, assembled_log=done.log,
                               occupancy_step=done.step, register_floor=done.floor,
                               cubin=done.cubin)


def kernel_shared_bytes(module: ir.Module) -> int:
    """The dynamic shared memory the kernel needs (tile-distribute-to-threads records it on
    the kernels, the ops of the gpu.module)."""
    kernels = [op.operation for gpu_module in module.body.operations
               if gpu_module.operation.name == "gpu.module"
               for op in gpu_module.regions[0].blocks[0].operations]
    found = [ir.IntegerAttr(op.attributes[SHARED_BYTES_ATTR]).value
             for op in kernels if SHARED_BYTES_ATTR in op.attributes]
    return max(found, default=0)


def kernel_block_threads(module: ir.Module) -> int | None:
    """The threads of a block of the kernel (its num_warps' and, when a producer warpgroup
    fills its TMA rings, that one's: simt/warp_specialize.py)."""
    for gpu_module in module.body.operations:
        if gpu_module.operation.name == "gpu.module":
            for op in gpu_module.regions[0].blocks[0].operations:
                if "nvvm.reqntid" in op.attributes:
                    return ir.DenseI32ArrayAttr(op.attributes["nvvm.reqntid"])[0]
    return None


def kernel_tensor_maps(module: ir.Module) -> list[dict]:
    """The TMA tensor maps the kernel takes after its own parameters (simt/tma.py)."""
    for gpu_module in module.body.operations:
        if gpu_module.operation.name == "gpu.module":
            for op in gpu_module.regions[0].blocks[0].operations:
                if TENSOR_MAPS_ATTR in op.attributes:
                    return json.loads(ir.StringAttr(op.attributes[TENSOR_MAPS_ATTR]).value)
    return []


def _clone(module: ir.Module) -> ir.Module:
    """A copy for the GPU stages: the interpreter keeps running the tile-opt module."""
    return ir.Module.parse(module.operation.get_asm(enable_debug_info=True))


def _record(result: CompiledKernel, dumper: _Dumper, stage: str,
            module: ir.Module) -> ir.Operation:
    """Check the stage's invariant and keep a copy of the module (its text, printed on demand,
    and the next stage's reproducer should that stage fail); returns the copy."""
    try:
        check_stage(module, stage, verify=stage == "tile")  # pipelines verify after each pass
    except ir.MLIRError as e:
        before = module.operation.get_asm(enable_debug_info=True)
        raise _pipeline_error(e, before, "", stage) from None
    deadline = _DEADLINE[0]
    if deadline is not None:
        deadline.check(f"at the end of stage {stage}")
    snapshot = module.operation.clone()  # far cheaper than printing a large module
    result.asm[stage] = snapshot
    result.module = module
    if dumper.dir is not None:
        dumper.write(stage, module.operation.get_asm(enable_debug_info=True), ".mlir")
    _lap(result, stage)
    return snapshot


def _lap(result: CompiledKernel, stage: str) -> None:
    """metadata["timings"][stage]: seconds since the previous stage ended (bench_compile.py)."""
    now = time.perf_counter()
    result.metadata["timings"][stage] = now - result.metadata["lap"]
    result.metadata["lap"] = now


def _run_stage(module: ir.Module, pipeline: str, extra: str | None, stage: str,
               before: ir.Operation) -> None:
    """Run the stage's pipeline on `module`; `before` is a copy of it (for a reproducer)."""
    full = f"{pipeline},{extra}" if extra else pipeline
    if extra:  # the user's: checked before anything runs (ours are known to parse)
        _check_pipeline(extra, stage)
    hook = _step_hook(module, stage)
    try:
        run_pipeline(module, full, hook)
    except TileError:
        raise
    except ir.MLIRError as e:
        raise _pipeline_error(e, before.get_asm(enable_debug_info=True), full, stage) from None
    except Exception as e:  # a bug in one of our passes: say so, and leave a reproducer
        # (a ValueError too: raised while the passes run, it is theirs, not the pipeline's)
        if settings.frontend_debug():
            raise
        repro = Path(tempfile.mkdtemp(prefix="tilelang-repro-")) / f"{stage}.mlir"
        repro.write_text(before.get_asm(enable_debug_info=True))
        raise TileInternalError(
            f"internal compiler error in stage {stage}: {type(e).__name__}: {e}",
            hint=f"reproduce with: tilelang-opt -p '{full}' {repro} "
                 "(TILELANG_FRONTEND_DEBUG=1 shows the Python traceback)",
        ) from e


def _check_pipeline(pipeline: str, stage: str) -> None:
    """A TileValueError for a malformed pipeline: an unknown pass or option (ours), or one
    MLIR's parser refuses (upstream)."""
    try:
        for step in split_pipeline(pipeline):
            info, _ = parse_step(step)
            if info is None:
                PassManager.parse(f"builtin.module({step})")
    except ValueError as e:
        raise TileValueError(f"bad pipeline for stage {stage}: {e}") from None


def _step_hook(module: ir.Module, stage: str) -> Callable[[str], None] | None:
    """What runs after each pass of a stage: the IR print of TILELANG_PRINT_IR_AFTER, and the
    check of the compilation's deadline (tilelang.compiler_timeout)."""
    printer, deadline = _print_hook(module), _DEADLINE[0]
    if deadline is None or deadline.limit is None:
        return printer

    def hook(step: str) -> None:
        if printer is not None:
            printer(step)
        deadline.check(f"in stage {stage}, after pass {step.split('{')[0]}")

    return hook


def _print_hook(module: ir.Module) -> Callable[[str], None] | None:
    wanted = settings.print_ir_after()
    if not wanted:
        return None
    names = set(wanted.split(","))

    def hook(step: str) -> None:
        if "all" in names or step.split("{")[0] in names:
            print(f"// -----// IR after {step} //----- //\n{module}", file=sys.stderr)

    return hook


def _pipeline_error(e: ir.MLIRError, before: str, pipeline: str, stage: str) -> TileError:
    """An MLIR failure: point at the user's line and leave a reproducer on disk."""
    repro = Path(tempfile.mkdtemp(prefix="tilelang-repro-")) / f"{stage}.mlir"
    repro.write_text(before)
    diagnostics = getattr(e, "error_diagnostics", [])
    loc = next((to_loc(d.location) for d in diagnostics if to_loc(d.location)), None)
    message = diagnostics[0].message if diagnostics else str(e)
    return TileCompilerExecutionError(
        f"internal compiler error in stage {stage}: {message}",
        loc,
        hint=f"reproduce with: tilelang-opt -p '{pipeline}' {repro}",
    )


def _kernel_func(module: ir.Module) -> ir.Operation:
    for op in module.body.operations:
        if op.operation.name == "func.func":
            return op.operation
    raise TileCompilerExecutionError("no kernel function in the module")


def choose_num_warps(module: ir.Module) -> int:
    """The warps of a kernel that does not say (`@kernel` without `num_warps`): 8 when a
    matrix product's accumulator has 128 rows or more and 128 x 128 elements or more (the
    fastest tiles on the H100, 128 x 256 and 128 x 128, run on two warpgroups: wgmma needs 64
    rows per warpgroup, and a thread holds at most 128 accumulator values), or when a tile the
    threads hold has more than LARGE_TILE elements (at 4 warps a thread would hold more than
    64 of each such tile, and a kernel holds several: cuTile's FFT, 2 x 4096 complex values a
    block, spilled 1.7 KB a thread and ran 2.6 times slower on 4 warps than on 8); else 4.
    A product's operands do not count: they are staged through shared memory (a split-K
    kernel's 128 x 128 B tile ran 2.4 times slower on 8 warps). Nor do tiles no larger than
    the accumulator of a product of 64 rows and at most 256 columns: one warpgroup holds it
    in 128 values a thread, and wgmma cannot split 64 rows over two (a 64 x 128 @ 128 x 256
    float8 product on 8 warps fell to mma.sync from registers and spilled 1 KB a thread).
    A persistent kernel without products (a grid-stride loop: one block an SM walks the
    tiles) gets 8 too: its block's warps are all the SM has to hide memory latency with
    (cuTile's persistent RMS norm, H200, same run: 331 -> 320 us at its 2x4096 tiles,
    505 -> 483 at 8x1024, 85 -> 82 at 8x1024 of 1024 columns; the losses: 660 -> 715 at
    4x1024 tiles of 4096 columns, 126 -> 128 at 16x512 of 1024)."""
    from tilelang.dialect.types import is_tile_type, shape_of
    from tilelang.passes.ir_utils import is_grid_stride, walk_ops

    largest, products, persistent, one_warpgroup = 0, False, False, 0
    for op in walk_ops(_kernel_func(module)):
        if op.name == "tile.mma":
            products = True
            shape = shape_of(op.results[0].type)
            rows, cols = shape[-2], shape[-1]
            if rows >= 128 and rows * cols >= 128 * 128:
                return 8
            if rows == WGMMA_ROWS and cols <= WGMMA_MAX_COLS:
                one_warpgroup = max(one_warpgroup, rows * cols)
        persistent = persistent or (op.name == "scf.for" and is_grid_stride(op))
        for result in op.results:
            if is_tile_type(result.type) and not _feeds_only_products(result):
                largest = max(largest, math.prod(shape_of(result.type)))
    if persistent and not products:
        return 8
    if largest <= max(LARGE_TILE, one_warpgroup):
        return DEFAULT_NUM_WARPS
    return 8


# tile elements past which a kernel without num_warps gets 8 warps (choose_num_warps)
LARGE_TILE = 8192
# a product of 64 rows (wgmma's per warpgroup) and at most 256 columns keeps one warpgroup
WGMMA_ROWS, WGMMA_MAX_COLS = 64, 256


def _feeds_only_products(value: ir.Value) -> bool:
    """Every use of `value` is a product's A or B operand, directly or through reshapes,
    permutes and casts."""
    from tilelang.passes.ir_utils import VIEW_OPS

    uses = list(value.uses)
    for use in uses:
        user = use.owner
        if user.name == "tile.mma" and use.operand_number < 2:
            continue
        if user.name in VIEW_OPS and all(_feeds_only_products(r) for r in user.results):
            continue
        return False
    return bool(uses)


def _specialization_tag(signature: tuple[ParamSpec, ...], options: CompileOptions) -> str:
    """A short, stable name for one specialization (its dump folder)."""
    digest = hashlib.sha256(repr((signature, options.arch, options.num_warps,
                                  sorted(options.extra_passes.items()),
                                  options.occupancy)).encode())
    return digest.hexdigest()[:10]


class _Dumper:
    """Writes stages to TILELANG_DUMP_DIR/<kernel>/<specialization>/<nn>-<stage>.<ext>."""

    def __init__(self, kernel_name: str, tag: str):
        root = settings.dump_dir()
        self.dir = root / kernel_name / tag if root else None
        if self.dir is not None:
            self.dir.mkdir(parents=True, exist_ok=True)

    def write(self, stage: str, text: str, ext: str) -> None:
        if self.dir is not None:
            (self.dir / f"{STAGES.index(stage):02d}-{stage}{ext}").write_text(text)

    def write_bytes(self, stage: str, data: bytes, ext: str) -> None:
        if self.dir is not None:
            (self.dir / f"{STAGES.index(stage):02d}-{stage}{ext}").write_bytes(data)
