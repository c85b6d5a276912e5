"""Passes (simt): `tile.assume_div_by` (its value: the front end used the fact already), and the
grid dependency control of programmatic dependent launch as PTX `griddepcontrol` on sm_90 and
newer (nothing before: those GPUs never start a dependent launch early)."""

from __future__ import annotations

import mlir.ir as ir
from mlir.dialects import llvm

from tilelang.dialect import op_table
from tilelang.passes.simt.context import Lowering, lowers

FIRST_ARCH = 90  # griddepcontrol: sm_90 and PTX ISA 7.8


@lowers(op_table.ASSUME_DIV_BY)
def lower_assume_div_by(lw: Lowering, op: ir.Operation) -> None:
    lw.set(op.results[0], lw.get(op.operands[0]))


@lowers(op_table.GRID_DEPENDENCY_WAIT, op_table.GRID_DEPENDENCY_LAUNCH)
def lower_grid_dependency_control(lw: Lowering, op: ir.Operation) -> None:
    if arch_number(lw.chip) < FIRST_ARCH:
        return
    action = "wait" if op.name.endswith("wait") else "launch_dependents"
    # inline PTX with a memory clobber: no access moves across it (LLVM's intrinsics have no
    # memory effects, so a load after the wait could be hoisted above it)
    llvm.inline_asm(None, [], f"griddepcontrol.{action};", "~{memory}", has_side_effects=True)


def arch_number(chip: str) -> int:
    """90 for "sm_90" and "sm_90a"."""
    digits = "".join(ch for ch in chip.removeprefix("sm_") if ch.isdigit())
    return int(digits) if digits else 0
