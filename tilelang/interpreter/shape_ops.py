"""Interpreter: permute, cat, extract, insert and bitcast of tiles, with NumPy."""

from __future__ import annotations

import mlir.ir as ir
import numpy as np

from tilelang.dialect import op_table, ops
from tilelang.errors import TileInterpreterError
from tilelang.interpreter.program import Env, Step, _Compiler, _io, _result_dtype, _shape, rule


@rule(op_table.PERMUTE)
def _permute(c: _Compiler, op: ir.Operation) -> Step:
    (a,), r = _io(c, op)
    axes = ops.array_attr(op, "axes")

    def step(env: Env) -> None:
        env[r] = np.transpose(env[a], axes)

    return step


@rule(op_table.CAT)
def _cat(c: _Compiler, op: ir.Operation) -> Step:
    (a, b), r = _io(c, op)
    axis = ops.int_attr(op, "axis")

    def step(env: Env) -> None:
        env[r] = np.concatenate([env[a], env[b]], axis=axis)

    return step


def _region(index: list[int], sub: tuple[int, ...], shape: tuple[int, ...]) -> tuple[slice, ...]:
    """The elements of sub-tile `index` (in units of sub-tiles of shape `sub`)."""
    for k, (i, s, n) in enumerate(zip(index, sub, shape, strict=True)):
        if not 0 <= i < n // s:
            raise TileInterpreterError(
                f"sub-tile index {i} along dimension {k} is out of bounds: a tile of shape "
                f"{shape} holds {n // s} sub-tiles of size {s} there")
    return tuple(slice(i * s, (i + 1) * s) for i, s in zip(index, sub, strict=True))


@rule(op_table.EXTRACT)
def _extract(c: _Compiler, op: ir.Operation) -> Step:
    (a, *idx), r = _io(c, op)
    sub, shape = _shape(op), _shape_of(op.operands[0])

    def step(env: Env) -> None:
        env[r] = env[a][_region([int(env[i]) for i in idx], sub, shape)]

    return step


@rule(op_table.INSERT)
def _insert(c: _Compiler, op: ir.Operation) -> Step:
    (a, v, *idx), r = _io(c, op)
    sub, shape = _shape_of(op.operands[1]), _shape(op)

    def step(env: Env) -> None:
        region = _region([int(env[i]) for i in idx], sub, shape)
        result = np.array(env[a])  # a copy: tiles are values
        result[region] = env[v]
        env[r] = result

    return step


@rule(op_table.BITCAST)
def _bitcast(c: _Compiler, op: ir.Operation) -> Step:
    (a,), r = _io(c, op)
    dtype = _result_dtype(op)

    def step(env: Env) -> None:
        env[r] = np.array(env[a]).view(dtype)  # a contiguous copy

    return step


def _shape_of(value: ir.Value) -> tuple[int, ...]:
    return tuple(ir.RankedTensorType(value.type).shape)
