"""Interpreter: `tile.assume_div_by` checks the promise it stands for; the grid dependency
control of programmatic dependent launch does nothing (the interpreter runs one launch after
another, so a dependent launch never starts early)."""

from __future__ import annotations

import mlir.ir as ir

from tilelang.dialect import op_table, ops
from tilelang.errors import TileInterpreterError
from tilelang.interpreter.program import BID_SLOT, Env, Step, _Compiler, _io, rule


@rule(op_table.ASSUME_DIV_BY)
def _assume_div_by(c: _Compiler, op: ir.Operation) -> Step:
    (x,), r = _io(c, op)
    divisor = ops.int_attr(op, "divisor")

    def step(env: Env) -> None:
        value = env[x]
        if int(value) % divisor:
            raise TileInterpreterError(
                f"assume_divisible_by: {int(value)} is not a multiple of {divisor} (block "
                f"{env[BID_SLOT]}); on the GPU a false promise is undefined behaviour")
        env[r] = value

    return step


@rule(op_table.GRID_DEPENDENCY_WAIT, op_table.GRID_DEPENDENCY_LAUNCH)
def _grid_dependency_control(c: _Compiler, op: ir.Operation) -> Step:
    def step(env: Env) -> None:
        pass

    return step
