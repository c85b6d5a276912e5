"""Interpreter: which array arguments a `tile`-stage function writes to (stores, scatters,
atomics), found once per compiled kernel: read-only arrays are accepted for the others."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import mlir.ir as ir

from tilelang.dialect.op_table import ARRAY_SELECT, Trait, has_trait, op_def
from tilelang.errors import Loc


@dataclass(frozen=True)
class Write:
    """The first op that writes through an argument: what it is and where it was written."""

    what: str
    loc: Loc | None


def written_arguments(func_op: ir.Operation) -> dict[int, Write]:
    """Argument number -> the first write through that argument (or a view of it). An array
    whose origin cannot be traced (a value of control flow) counts as any array argument."""
    entry = func_op.regions[0].blocks[0]
    arrays = [a.arg_number for a in entry.arguments if _is_array(a.type)]
    found: dict[int, Write] = {}
    for op in _operations(entry):
        record = op_def(op)  # ops that write write through their first operand, an array
        if record is None or not record.has(Trait.WRITES):
            continue
        what = record.what
        for number in _origins(op.operands[0], entry, arrays):
            if number not in found:
                found[number] = Write(what, _loc(op))
    return found


def _operations(block: ir.Block) -> Iterator[ir.Operation]:
    for op in block.operations:
        op = op.operation
        yield op
        for region in op.regions:
            for inner in region.blocks:
                yield from _operations(inner)


def _origins(value: ir.Value, entry: ir.Block, arrays: list[int]) -> list[int]:
    """The numbers of the function arguments `value` may be (a view of)."""
    if isinstance(value, ir.BlockArgument) and value.owner == entry:
        return [value.arg_number]
    if isinstance(value, ir.OpResult):
        op = value.owner.operation
        if op.name == ARRAY_SELECT.name:
            return [n for v in list(op.operands)[1:] for n in _origins(v, entry, arrays)]
        if has_trait(op, Trait.ARRAY_VIEW):  # a view of its first operand
            return _origins(op.operands[0], entry, arrays)
        if op.name == "scf.if":  # what either branch yields
            k = value.result_number
            return [n for region in op.regions for block in region.blocks
                    for n in _origins(_terminator(block).operands[k], entry, arrays)]
    return arrays  # carried by a loop: any of them, to be safe


def _terminator(block: ir.Block) -> ir.Operation:
    return list(block.operations)[-1].operation


def _is_array(t: ir.Type) -> bool:
    return str(t).startswith("!tile.array")


def _loc(op: ir.Operation) -> Loc | None:
    from tilelang.dialect.locations import to_loc

    return to_loc(op.location)
