"""Interpreter: `tile.reduce` and `tile.scan`, running the combiner region on whole arrays.

The combiner is element-wise, so one run of its block combines many pairs at once: a reduction
takes log2(n) runs (adjacent pairs, so the order of the operands is kept for any associative
combiner), a scan log2(n) runs of the Hillis-Steele scheme.
"""

from __future__ import annotations

from collections.abc import Callable

import mlir.ir as ir
import numpy as np

from tilelang.dialect import dtype_of, op_table, ops
from tilelang.dialect.semantics import np_dtype
from tilelang.interpreter.program import Env, Step, _Compiler, rule

Arrays = list[np.ndarray]


def _identities(op: ir.Operation) -> Arrays:
    attrs = ir.ArrayAttr(op.attributes["identities"])
    dtypes = [dtype_of(v.type) for v in op.operands]
    return [np.asarray(ops.constant_value(a, d), dtype=np_dtype(d))
            for a, d in zip(attrs, dtypes, strict=True)]


def _combiner(c: _Compiler, op: ir.Operation) -> Callable[[Env, Arrays, Arrays], Arrays]:
    body = c.block(op.regions[0].blocks[0])

    def combine(env: Env, xs: Arrays, ys: Arrays) -> Arrays:
        for slot, value in zip(body.args, [*xs, *ys], strict=True):
            env[slot] = value
        body.run(env)
        return [np.asarray(env[y]) for y in body.yields]

    return combine


@rule(op_table.REDUCE)
def _reduce(c: _Compiler, op: ir.Operation) -> Step:
    inputs = [c.slot(v) for v in op.operands]
    results = [c.slot(v) for v in op.results]
    axes = ops.array_attr(op, "axes")
    identities = _identities(op)
    combine = _combiner(c, op)

    def step(env: Env) -> None:
        values = [np.asarray(env[s]) for s in inputs]
        kept_shape = tuple(1 if i in axes else d for i, d in enumerate(values[0].shape))
        moved = [np.moveaxis(v, axes, range(-len(axes), 0)) for v in values]
        flat = [m.reshape((*m.shape[: m.ndim - len(axes)], -1)) for m in moved]
        n = flat[0].shape[-1]
        width = 1 << (n - 1).bit_length()
        flat = [_pad(f, width, i) for f, i in zip(flat, identities, strict=True)]
        while width > 1:
            flat = combine(env, [f[..., 0::2] for f in flat], [f[..., 1::2] for f in flat])
            width //= 2
        for slot, f in zip(results, flat, strict=True):
            env[slot] = f[..., 0].reshape(kept_shape)

    return step


def _pad(values: np.ndarray, width: int, identity: np.ndarray) -> np.ndarray:
    missing = width - values.shape[-1]
    if not missing:
        return values
    fill = np.broadcast_to(identity, (*values.shape[:-1], missing)).astype(values.dtype)
    return np.concatenate([values, fill], axis=-1)


@rule(op_table.SCAN)
def _scan(c: _Compiler, op: ir.Operation) -> Step:
    inputs = [c.slot(v) for v in op.operands]
    results = [c.slot(v) for v in op.results]
    axis = ops.int_attr(op, "axis")
    reverse = bool(ops.int_attr(op, "reverse"))
    combine = _combiner(c, op)

    def step(env: Env) -> None:
        values = [np.moveaxis(np.asarray(env[s]), axis, -1) for s in inputs]
        if reverse:
            values = [v[..., ::-1] for v in values]
        n, shift = values[0].shape[-1], 1
        while shift < n:  # element i combines with element i - shift (the earlier one first)
            later = combine(env, [v[..., :-shift] for v in values],
                            [v[..., shift:] for v in values])
            values = [np.concatenate([v[..., :shift], w], axis=-1)
                      for v, w in zip(values, later, strict=True)]
            shift *= 2
        for slot, v in zip(results, values, strict=True):
            env[slot] = np.ascontiguousarray(np.moveaxis(v[..., ::-1] if reverse else v, -1, axis))

    return step
