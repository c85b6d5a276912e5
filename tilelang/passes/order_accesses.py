"""Passes (simt): tile-order-accesses: which memory accesses need a block barrier before them.

A block's accesses to one array happen in program order (as cuTile orders them), but a store
and a later access of the same element are usually made by different threads. So for every
array that is stored to and accessed more than once, each access gets a barrier except the
first one in program order, when that one is not inside a loop.

The pass marks those accesses with the unit attribute `tile.barrier_before`;
tile-distribute-to-threads emits a `gpu.barrier` before each marked access and before no other
(simt/context.Lowering.order_access). Removing the attribute from an access drops its barrier;
adding it to one adds a barrier.
"""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir

from tilelang.passes.ir_utils import name

NAME = "tile-order-accesses"
BARRIER_ATTR = "tile.barrier_before"  # unit attribute on a memory access
ACCESSES = ("tile.load", "tile.store", "tile.gather", "tile.scatter", "tile.atomic_rmw",
            "tile.atomic_cas")  # ops whose operand 0 is the array they access


@dataclass(frozen=True)
class Options:
    pass


def run(module: ir.Operation, options: Options) -> None:
    """Mark the memory accesses that need a block barrier before them (tile.barrier_before)."""
    for op in module.regions[0].blocks[0].operations:
        if name(op) == "func.func":
            for access in ordered_accesses(op.operation):
                access.attributes[BARRIER_ATTR] = ir.UnitAttr.get()


def ordered_accesses(func: ir.Operation) -> list[ir.Operation]:
    """The loads and stores of `func` that need a barrier before them, in program order."""
    accesses: dict[ir.Value, list[ir.Operation]] = {}
    stored: set[ir.Value] = set()
    order: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name in ACCESSES:
            order.append(op)
            for array in root_arrays(op.operands[0]):
                accesses.setdefault(array, []).append(op)
                if op.name not in ("tile.load", "tile.gather"):
                    stored.add(array)
        return ir.WalkResult.ADVANCE

    func.walk(visit)
    needed: set[ir.Operation] = set()
    for array, ops in accesses.items():
        if array not in stored or len(ops) < 2:
            continue
        first = ops[0]
        needed.update(ops[1:])
        if _inside_loop(first):
            needed.add(first)
    return [op for op in order if op in needed]


def root_arrays(value: ir.Value) -> list[ir.Value]:
    """The kernel arguments a (possibly sliced or selected) array value may view: accesses
    through slices of one array are ordered like accesses to the array itself, and accesses
    through a `tile.array_select` like accesses to each array it may pick."""
    while isinstance(value.owner, ir.OpView | ir.Operation) and \
            value.owner.operation.name in ("tile.slice", "tile.raw_view"):
        value = value.owner.operation.operands[0]
    if isinstance(value.owner, ir.OpView | ir.Operation) and \
            value.owner.operation.name == "tile.array_select":
        arrays = list(value.owner.operation.operands)[1:]
        return list(dict.fromkeys(r for a in arrays for r in root_arrays(a)))
    if _chosen_at_run_time(value):  # carried through scf: it may be any array argument
        return _array_arguments(value)
    return [value]


def _chosen_at_run_time(value: ir.Value) -> bool:
    """An array that is a result or block argument of an scf op (an array variable that
    differs between the paths through run-time control flow)."""
    owner = value.owner
    if isinstance(owner, ir.OpView | ir.Operation):
        return owner.operation.name.startswith("scf.")
    return owner.owner.operation.name != "func.func"


def _array_arguments(value: ir.Value) -> list[ir.Value]:
    owner = value.owner
    op = owner.operation if isinstance(owner, ir.OpView | ir.Operation) else owner.owner
    while op.operation.name != "func.func":
        op = op.parent
    return [a for a in op.regions[0].blocks[0].arguments
            if str(a.type).startswith("!tile.array")]


def _inside_loop(op: ir.Operation) -> bool:
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        if parent.name in ("scf.for", "scf.while"):
            return True
        parent = parent.parent
    return False
