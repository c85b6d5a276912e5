"""Passes (simt): tile-order-accesses: which memory accesses need a block barrier before them.

A block's accesses to one array happen in program order (as cuTile orders them), but a store
and a later access of the same element are usually made by different threads. So an access
needs a block barrier before it when, since the last such barrier, on some path through the
kernel's control flow (around loops too), the block made an access to the same array that
conflicts with it: either of the two writes (a store, a scatter, an atomic). Two reads never
conflict, and one barrier orders every earlier access of every thread before every later one,
so an access the barrier of another array's access already follows needs none of its own (a
lock's critical section, `load(dw); load(db); store(dw); store(db)` after the lock's
acquire, gets one barrier, before the first store, where program-order rules put one before
each of the four).

A barrier ends the accesses pending only where the kernel surely executes it: not in a kernel
with a matrix product (a staged or warp-specialized loop lowers its loads through shared
memory rings, and the marks of those loads are not barriers), where this pass then only spares
reads that follow reads.

The pass marks those accesses with the unit attribute `tile.barrier_before`;
tile-distribute-to-threads emits a `gpu.barrier` before each marked access and before no other
(simt/context.Lowering.order_access). Removing the attribute from an access drops its barrier;
adding it to one adds a barrier.
"""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir

from tilelang.passes.ir_utils import name, walk_ops

NAME = "tile-order-accesses"
BARRIER_ATTR = "tile.barrier_before"  # unit attribute on a memory access
ACCESSES = ("tile.load", "tile.store", "tile.gather", "tile.scatter", "tile.atomic_rmw",
            "tile.atomic_cas")  # ops whose operand 0 is the array they access
READS = ("tile.load", "tile.gather")
LOOPS = ("scf.for", "scf.while")

# The accesses made since the last barrier: (kernel argument, whether the access wrote it).
Pending = frozenset[tuple[ir.Value, bool]]


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
    clears = not any(name(o) == "tile.mma" for o in walk_ops(func))
    flow = _Flow(clears)
    flow.block(func.regions[0].blocks[0], frozenset())
    return [op for op in walk_ops(func) if op in flow.needed]


class _Flow:
    """The pending accesses forward through the kernel's structured control flow."""

    def __init__(self, clears: bool):
        self.clears = clears  # whether a barrier ends the accesses pending (module doc)
        self.needed: set[ir.Operation] = set()

    def block(self, block: ir.Block, pending: Pending) -> Pending:
        for op in block.operations:
            pending = self.op(op.operation, pending)
        return pending

    def op(self, op: ir.Operation, pending: Pending) -> Pending:
        if name(op) in ACCESSES:
            return self.access(op, pending)
        if name(op) in LOOPS:
            return self.loop(op, pending)
        # scf.if and any other op with regions: each region may run (or not), in turn
        for region in op.regions:
            for block in region.blocks:
                pending = pending | self.block(block, pending)
        return pending

    def access(self, op: ir.Operation, pending: Pending) -> Pending:
        writes = name(op) not in READS
        arrays = root_arrays(op.operands[0])
        conflicting = (True, False) if writes else (True,)  # a write conflicts with anything
        if any((a, w) in pending for a in arrays for w in conflicting):
            self.needed.add(op)
            if self.clears:
                pending = frozenset()
        return pending | {(a, writes) for a in arrays}

    def loop(self, op: ir.Operation, pending: Pending) -> Pending:
        """A loop's body may run again after itself: iterate to the fixed point of what is
        pending at its top (the set only grows, and a larger one marks no fewer accesses).
        An scf.for leaves after its body or before the first iteration (that fixed point); an
        scf.while after its condition's region, the first of its two: what is pending there,
        joined with the fixed point (a superset, so sound; it keeps the barriers the analysis
        placed after such loops before their exit was told apart)."""
        while True:
            after, exits = pending, pending
            for i, region in enumerate(op.regions):  # scf.while: the condition's, the body's
                for block in region.blocks:
                    after = self.block(block, after)
                if i == 0:
                    exits = after
            grown = pending | after
            if grown == pending:
                return pending | exits if name(op) == "scf.while" else pending
            pending = grown


def root_arrays(value: ir.Value) -> list[ir.Value]:
    """The kernel arguments a (possibly sliced or selected) array value may view: accesses
    through slices of one array are ordered like accesses to the array itself, and accesses
    through a `tile.array_select` like accesses to each array it may pick."""
    while isinstance(value.owner, ir.OpView | ir.Operation) and \
            value.owner.operation.name in ("tile.slice", "tile.raw_view", "tile.array_permute"):
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
