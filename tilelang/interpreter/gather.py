"""Interpreter: tile.gather, tile.scatter and the atomics, on NumPy arrays.

With `check_bounds` false the program promised in-bounds indices: an out-of-bounds one that
would be accessed is reported (on the GPU it is undefined behaviour). A 0-d array has no index
tiles: every element of the op's tile accesses its one element.
"""

from __future__ import annotations

import mlir.ir as ir
import numpy as np

from tilelang.dialect import indexed, op_table, ops
from tilelang.errors import TileInterpreterError
from tilelang.interpreter.program import Env, Step, _Compiler, rule


def _slots(c: _Compiler, op: ir.Operation, extra: int) -> tuple[int, list[int], list[int]]:
    """(array, index slots, the `extra` trailing operand slots)."""
    a, *rest = [c.slot(v) for v in op.operands]
    return a, rest[: len(rest) - extra], rest[len(rest) - extra:]


def _access(env: Env, a: int, idx: list[int], like: int) -> tuple[np.ndarray, indexed.Indices]:
    """The array and index tiles of an op; a 0-d array (no index tiles) becomes a one-element
    1-d view of the same memory, accessed at index 0 over the shape of the operand `like`."""
    array, indices = env[a], [np.asarray(env[i]) for i in idx]
    if indices:
        return array, indices
    return array.reshape(1), [np.zeros(np.shape(env[like]), np.int64)]


def _allowed(op_name: str, check_bounds: bool, array: np.ndarray, indices: indexed.Indices,
             mask: np.ndarray | None = None) -> np.ndarray:
    """Where the op accesses the array: in bounds (and mask)."""
    inside = indexed.in_bounds(array, indices)
    ok = inside if mask is None else inside & np.asarray(mask, bool)
    if not check_bounds:
        wanted = np.ones(inside.shape, bool) if mask is None else np.asarray(mask, bool)
        bad = wanted & ~inside
        if bad.any():
            first = tuple(int(np.asarray(i)[tuple(np.argwhere(bad)[0])]) for i in indices)
            raise TileInterpreterError(
                f"{op_name} with check_bounds=False accesses index {first} of an array of "
                f"shape {array.shape}",
                hint="keep check_bounds=True (the default) when indices may be out of bounds",
            )
    return ok


@rule(op_table.GATHER)
def _gather(c: _Compiler, op: ir.Operation) -> Step:
    a, idx, (m, p) = _slots(c, op, 2)
    r = c.slot(op.results[0])
    check = bool(ops.int_attr(op, "check_bounds"))

    def step(env: Env) -> None:
        array, indices = _access(env, a, idx, m)
        ok = _allowed("gather", check, array, indices, env[m])
        env[r] = indexed.gather(array, indices, ok, np.asarray(env[p]))

    return step


@rule(op_table.SCATTER)
def _scatter(c: _Compiler, op: ir.Operation) -> Step:
    a, idx, (v, m) = _slots(c, op, 2)
    check = bool(ops.int_attr(op, "check_bounds"))

    def step(env: Env) -> None:
        array, indices = _access(env, a, idx, m)
        ok = _allowed("scatter", check, array, indices, env[m])
        indexed.scatter(array, indices, np.asarray(env[v]), ok)

    return step


@rule(op_table.ATOMIC_RMW)
def _atomic_rmw(c: _Compiler, op: ir.Operation) -> Step:
    a, idx, (u,) = _slots(c, op, 1)
    r = c.slot(op.results[0])
    kind, check = ops.str_attr(op, "kind"), bool(ops.int_attr(op, "check_bounds"))

    def step(env: Env) -> None:
        array, indices = _access(env, a, idx, u)
        ok = _allowed(f"atomic_{kind}", check, array, indices)
        env[r] = indexed.atomic_rmw(kind, array, indices, np.asarray(env[u]), ok)

    return step


@rule(op_table.ATOMIC_CAS)
def _atomic_cas(c: _Compiler, op: ir.Operation) -> Step:
    a, idx, (e, d) = _slots(c, op, 2)
    r = c.slot(op.results[0])
    check = bool(ops.int_attr(op, "check_bounds"))

    def step(env: Env) -> None:
        array, indices = _access(env, a, idx, e)
        ok = _allowed("atomic_cas", check, array, indices)
        env[r] = indexed.atomic_cas(array, indices, np.asarray(env[e]), np.asarray(env[d]), ok)

    return step
