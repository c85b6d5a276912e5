"""Passes (simt): values carried through scf ops, flattened into registers: a tile into its
registers, an array chosen at run time into its pointer, extents and strides."""

from __future__ import annotations

from collections.abc import Iterator

import mlir.ir as ir

from tilelang.dialect import dtype_of
from tilelang.dialect.types import is_tile_type, shape_of
from tilelang.passes.simt.abi import array_args, is_array, parameter_types
from tilelang.passes.simt.addressing import layout_of
from tilelang.passes.simt.context import Lowering
from tilelang.passes.simt.values import ArrayArgs, Distributed, Lowered, scalar_type


def flatten(lowered: Lowered) -> list[ir.Value]:
    if isinstance(lowered, ArrayArgs):  # an array chosen at run time
        return [lowered.ptr, *lowered.shape, *lowered.strides]
    return list(lowered.regs) if isinstance(lowered, Distributed) else [lowered]


def flat_types(old: ir.Value) -> list[ir.Type]:
    t = old.type
    if is_array(t):
        return parameter_types(t)
    if is_tile_type(t):
        return [scalar_type(dtype_of(t))] * layout_of(t).num_registers
    return [scalar_type(dtype_of(t))]


def unflatten(old: ir.Value, values: Iterator[ir.Value]) -> Lowered:
    t = old.type
    if is_array(t):
        return array_args(t, [next(values) for _ in parameter_types(t)])
    if not is_tile_type(t):
        return next(values)
    layout = layout_of(t)
    regs = tuple(next(values) for _ in range(layout.num_registers))
    return Distributed(regs, layout, dtype_of(t), shape_of(t))


def bind(lw: Lowering, olds: list[ir.Value], news: list[ir.Value]) -> None:
    it = iter(news)
    for old in olds:
        lw.set(old, unflatten(old, it))


def flat_operands(lw: Lowering, values: list[ir.Value]) -> list[ir.Value]:
    return [v for old in values for v in flatten(lw.get(old))]
