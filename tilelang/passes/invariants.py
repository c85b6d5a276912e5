"""Passes: the invariant each stage must satisfy, checked between stages."""

from __future__ import annotations

import mlir.ir as ir

from tilelang.dialect import layout_text
from tilelang.dialect.types import is_tile_type
from tilelang.errors import TileCompilerExecutionError
from tilelang.passes.ir_utils import name, walk_ops

# gpu.yield ends the combiner regions of tile.reduce / tile.scan (IRDL ops cannot be terminators).
TILE_DIALECTS = ("tile.", "scf.", "func.", "gpu.yield")
LLVM_DIALECTS = ("llvm.", "nvvm.", "gpu.module", "builtin.")


def check_stage(module: ir.Module, stage: str, verify: bool = True) -> None:
    """Raise if `module` breaks the invariant of `stage`; verify it first (unless the caller
    knows it is verified: a pipeline verifies after each pass)."""
    if verify:
        module.operation.verify()
    if stage in ("simt", "llvm"):  # large modules: one walk that keeps only the op names
        names = op_names(module.operation)
        leftovers = sorted(n for n in names if n.startswith("tile."))
        if leftovers:
            _fail(stage, f"tile ops remain: {', '.join(leftovers)}")
        unlowered = sorted(n for n in names if not n.startswith(LLVM_DIALECTS))
        if stage == "llvm" and unlowered:
            _fail(stage, f"ops were not lowered to LLVM: {', '.join(unlowered)}")
        return
    ops = walk_ops(module.operation)
    if stage in ("tile", "tile-opt", "layout"):
        _only_dialects(ops, TILE_DIALECTS, stage)
    if stage == "layout":
        _all_tiles_have_layouts(ops)


def op_names(root: ir.Operation) -> set[str]:
    """The names of the ops nested in `root` (and root's own)."""
    found: set[str] = set()

    def visit(op: ir.Operation) -> ir.WalkResult:
        found.add(op.name)
        return ir.WalkResult.ADVANCE

    root.walk(visit)
    return found


def _only_dialects(ops: list[ir.Operation], prefixes: tuple[str, ...], stage: str) -> None:
    bad = sorted({name(op) for op in ops if not name(op).startswith(prefixes)})
    if bad:
        _fail(stage, f"unexpected ops {', '.join(bad)}")


def _all_tiles_have_layouts(ops: list[ir.Operation]) -> None:
    for op in ops:
        for value in op.results:
            if is_tile_type(value.type) and layout_text(value.type) is None:
                _fail("layout", f"a result of {name(op)} has no layout: {value.type}")


def _fail(stage: str, message: str) -> None:
    raise TileCompilerExecutionError(f"internal compiler error: after stage {stage}, {message}")
