"""Interpreter: `tile.print` writes to sys.stdout, a failing `tile.assert` raises."""

from __future__ import annotations

import sys

import mlir.ir as ir

from tilelang.dialect import dtype_of, op_table, ops, printing
from tilelang.errors import TileInterpreterError
from tilelang.interpreter.program import BID_SLOT, Env, Step, _Compiler, rule


@rule(op_table.PRINT)
def _print(c: _Compiler, op: ir.Operation) -> Step:
    fmt = ops.str_attr(op, "format")
    slots = [c.slot(v) for v in op.operands]
    dtypes = [dtype_of(v.type) for v in op.operands]

    def step(env: Env) -> None:
        sys.stdout.write(printing.render(fmt, [env[s] for s in slots], dtypes))
        sys.stdout.flush()  # interleave in order with the program's own output

    return step


@rule(op_table.ASSERT)
def _assert(c: _Compiler, op: ir.Operation) -> Step:
    (cond,) = [c.slot(v) for v in op.operands]
    message = ops.str_attr(op, "message")

    def step(env: Env) -> None:
        if not bool(env[cond]):
            where = f"assertion failed in block {env[BID_SLOT]}"
            raise TileInterpreterError(f"{where}: {message}" if message else where)

    return step
