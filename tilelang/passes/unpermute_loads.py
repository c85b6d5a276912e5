"""Passes (layout): tile-unpermute-loads: a transposed load that feeds a matrix product in a
loop becomes a plain load and a transpose, the form the staged path takes.

Attention's keys are often read transposed by the load itself, as cuTile's FMHA sample does:

    k = ct.load(K, (b, h, 0, j), (1, 1, D, BN), order=(0, 1, 3, 2)).reshape((D, BN))
    s = ct.mma(q, k, s)

The same tile is `ct.transpose` of the untransposed one, which passes/staged_loops.py copies
to shared memory as it lies in memory (rows of D contiguous elements) and hands to wgmma as a
K-major operand: the transpose costs nothing. This pass rewrites the first spelling into the
second,

    k = load(K, (b, h, j, 0), (1, 1, BN, D)) -> reshape (BN, D) -> permute (1, 0)
        -> reshape (1, 1, D, BN)

so that both spellings take one path. It applies on targets with wgmma (elsewhere the loop
runs from registers, where the permuted load is as good), to loads in a loop's body whose
`order` swaps the last two axes (the others in place, of extent 1) and whose tile reaches a
product's B operand through reshapes.
"""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir

from tilelang import settings
from tilelang.dialect import ops
from tilelang.dialect.types import shape_of
from tilelang.passes.ir_utils import name, replace, walk_ops

NAME = "tile-unpermute-loads"
WGMMA_ARCHS = ("sm_90", "sm_90a")


@dataclass(frozen=True)
class Options:
    arch: str = "sm_80"


def run(module: ir.Operation, options: Options) -> None:
    """Turn transposed loads (order swapping the last two axes) that feed a product's B operand
    in a loop into a plain load and a transpose."""
    if options.arch not in WGMMA_ARCHS or not settings.wgmma_enabled():
        return
    for op in walk_ops(module):
        if name(op) == "tile.load" and _qualifies(op):
            _unpermute(op)


def _qualifies(load: ir.Operation) -> bool:
    loop = load.parent
    if loop is None or name(loop) != "scf.for" or "steps" in load.attributes:
        return False
    order = tuple(ops.array_attr(load, "order"))
    n = len(order)
    shape = shape_of(load.results[0].type)
    if n < 2 or order != (*range(n - 2), n - 1, n - 2) or any(d != 1 for d in shape[:-2]):
        return False
    return _feeds_b_operand(load.results[0])


def _feeds_b_operand(value: ir.Value) -> bool:
    """`value` reaches a tile.mma's B operand through reshapes, each read once."""
    while True:
        uses = list(value.uses)
        if len(uses) != 1:
            return False
        owner = uses[0].owner
        if name(owner) == "tile.mma":
            return uses[0].operand_number == 1
        if name(owner) != "tile.reshape":
            return False
        value = owner.results[0]


def _unpermute(load: ir.Operation) -> None:
    result = load.results[0]
    tile_type = ir.RankedTensorType(result.type)
    shape = list(tile_type.shape)
    rows, cols = shape[-1], shape[-2]  # the untransposed tile: (.., cols, rows) -> (rows, cols)
    array, *index = list(load.operands)
    index[-2], index[-1] = index[-1], index[-2]
    element = tile_type.element_type
    attributes = {key: load.attributes[key] for key in load.attributes}
    attributes["order"] = ops.to_attr(list(range(len(shape))))
    with ir.InsertionPoint(load), load.location:
        natural = ir.Operation.create(
            "tile.load", results=[ir.RankedTensorType.get([*shape[:-2], rows, cols], element)],
            operands=[array, *index], attributes=attributes)
        value = natural.results[0]
        if len(shape) > 2:
            value = ops.create("reshape", [value],
                               [ir.RankedTensorType.get([rows, cols], element)]).results[0]
        value = ops.create("permute", [value], [ir.RankedTensorType.get([cols, rows], element)],
                           axes=[1, 0]).results[0]
        if len(shape) > 2:
            value = ops.create("reshape", [value], [result.type]).results[0]
    replace(load, value)
