"""Interpreter: tile.mma with NumPy, at the precision dialect/semantics.py defines."""

from __future__ import annotations

import mlir.ir as ir

from tilelang.dialect import op_table, semantics
from tilelang.interpreter.program import Env, Step, _Compiler, _io, rule


@rule(op_table.MMA)
def _mma(c: _Compiler, op: ir.Operation) -> Step:
    (a, b, acc), r = _io(c, op)

    def step(env: Env) -> None:
        env[r] = semantics.mma(env[a], env[b], env[acc])

    return step
