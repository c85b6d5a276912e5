"""Passes: small helpers for walking and rewriting IR through the Python bindings."""

from __future__ import annotations

from typing import Any

import mlir.ir as ir

from tilelang.dialect import dtype_of, ops, parse_array_type
from tilelang.dialect.op_table import CONSTANT, EFFECTS, GATHER, MMA, Trait, has_trait
from tilelang.dialect.types import shape_of


def walk_ops(root: ir.Operation, post_order: bool = False) -> list[ir.Operation]:
    """Every op nested in `root` (excluding root), pre-order by default."""
    found: list[ir.Operation] = []
    order = ir.WalkOrder.POST_ORDER if post_order else ir.WalkOrder.PRE_ORDER

    def visit(op: ir.Operation) -> ir.WalkResult:
        found.append(op)
        return ir.WalkResult.ADVANCE

    root.walk(visit, walk_order=order)
    return [op for op in found if op != root]


def name(op: ir.Operation | ir.OpView) -> str:
    return op.operation.name


def defining_op(value: ir.Value) -> ir.Operation | None:
    owner = value.owner
    return owner.operation if isinstance(owner, ir.OpView | ir.Operation) else None


def is_grid_stride(loop: ir.Operation) -> bool:
    """An scf.for whose step is the number of blocks: a persistent kernel's walk over its tiles
    (launched with about as many blocks as the SMs hold)."""
    step = defining_op(loop.operands[2])
    return step is not None and name(step) == "tile.num_blocks"


# ops that pass a tile on unchanged but for its shape, order, dtype or layout (a product's
# operand read through them is still the load's tile: choose_num_warps, load merging)
VIEW_OPS = ("tile.reshape", "tile.permute", "tile.cast", "tile.convert_layout")


def is_pure_tile_op(op: ir.Operation) -> bool:
    return has_trait(op, Trait.PURE)


def has_effects(op: ir.Operation) -> bool:
    """A tile op that reads or writes memory or makes output: kept in place (loads are not
    moved or merged across stores; output is never removed, merged or reordered)."""
    return has_trait(op, EFFECTS)


def has_side_effects(op: ir.Operation) -> bool:
    """Whether `op` or anything nested in it writes memory or is unknown to us."""
    for inner in [op, *walk_ops(op)]:
        n = name(inner)
        if has_trait(inner, Trait.WRITES | Trait.OUTPUT):
            return True
        if not (n.startswith(("tile.", "scf.", "arith.", "math.")) or n == "gpu.yield"):
            return True
    return False


def is_pure_scalar(op: ir.Operation) -> bool:
    """A tile op computing scalars from scalars alone (or a scalar gather): no regions, no
    tiles, no writes."""
    # a scalar gather (an index read from a table) counts: the loops that copy these ahead
    # hold no writes
    return (is_pure_tile_op(op) or name(op) == GATHER.name) and name(op) != MMA.name and \
        not op.regions and len(op.results) > 0 and \
        not any(isinstance(r.type, ir.ShapedType) for r in op.results)


def scalar_slice(loop: ir.Operation, value: ir.Value, found: list[ir.Operation]) -> bool:
    """Collect into `found` the ops of `loop`'s body that compute `value` (each after its
    operands); False if one is not a pure scalar tile op (or the value is a carried one)."""
    body = loop.regions[0].blocks[0]
    op = defining_op(value)
    if op is None:
        return value.owner != body or value == body.arguments[0]  # outside, or the IV
    if op.parent != loop:
        return True  # defined before the loop
    if op in found:
        return True
    if not is_pure_scalar(op):
        return False
    if not all(scalar_slice(loop, v, found) for v in op.operands):
        return False
    found.append(op)
    return True


def clone_ops(ops_: list[ir.Operation], mapping: dict[ir.Value, ir.Value]) -> None:
    """Recreate `ops_` (in order) at the insertion point, their operands replaced by
    `mapping`; each clone's results are added to `mapping` in place of the originals'. An op
    with regions (a reduction's combiner) is copied whole: its regions must read only their
    own values."""
    for op in ops_:
        operands = [mapping.get(v, v) for v in op.operands]
        if op.regions:
            clone = op.clone()
            for i, v in enumerate(operands):
                clone.operands[i] = v
        else:
            with op.location:
                clone = ir.Operation.create(name(op), results=[r.type for r in op.results],
                                            operands=operands,
                                            attributes={k: op.attributes[k]
                                                        for k in op.attributes})
        for old, new in zip(op.results, clone.results, strict=True):
            mapping[old] = new


def kernel_num_warps(op: ir.Operation) -> int:
    """The `tile.num_warps` of the function around `op` (4 for a bare function in IR tests)."""
    return _kernel_option(op, "tile.num_warps", 4)


def kernel_occupancy(op: ir.Operation) -> int:
    """The `tile.occupancy` hint (blocks per SM) of the function around `op`, lowered until
    its register cap (65536 over the blocks' threads, at most 255) leaves room for the
    matrix-product accumulators live together (those of one loop body); 1 without one.

    ptxas enforces the cap, and a wgmma whose accumulator needs more registers than it allows
    cannot be assembled at all ("Insufficient registers", e.g. a 128x256 float32 accumulator
    over 8 warps with occupancy 2), and attention's two products under a cap of 128 spilled
    so much that cuTile's fmha at 128x128 with its B200 hint (occupancy 2) ran 12 times slower
    on an H200 than with occupancy 1. A hint is a hint: cuTile's tuning spaces pair such tiles
    with occupancies above 1, so the hint gives way rather than the kernel failing."""
    func = op
    while name(func) != "func.func":
        func = func.parent
    hint = _kernel_option(func, "tile.occupancy", 1)
    if hint == 1:
        return 1
    threads = 32 * _kernel_option(func, "tile.num_warps", 4)
    needed = live_accumulator_registers(func, threads) + ACCUMULATOR_MARGIN
    while hint > 1 and launch_share(threads, hint) < needed:
        hint -= 1
    return hint


REGISTERS_PER_SM = 65536
SUB_PARTITIONS = 4  # an SM's schedulers, each with a quarter of its register file


def launch_share(threads: int, occupancy: int) -> int:
    """The registers a thread may use when `occupancy` blocks of `threads` share an SM (the cap
    ptxas compiles every warp under): each of the SM's 4 sub-partitions has a quarter of the
    register file for the warps placed on it (so 9 warps a block cost what 12 do), allocated
    in multiples of 8 a thread, at most 255."""
    warps = -(-occupancy * -(-threads // 32) // SUB_PARTITIONS)
    return min(255, REGISTERS_PER_SM // SUB_PARTITIONS // warps // 32 // 8 * 8)
# registers beside an accumulator that no instruction can do without (descriptors, addresses)
ACCUMULATOR_MARGIN = 24


def accumulator_registers(func: ir.Operation, threads: int) -> int:
    """32-bit registers per thread of the largest tile.mma result, spread over every thread."""
    return max(_accumulators(func, threads).values(), default=0)


def live_accumulator_registers(func: ir.Operation, threads: int) -> int:
    """32-bit registers per thread of the tile.mma results of one block (a loop's body, say),
    for the block where they come to most: the products of a body are live together
    (attention's scores beside its output's accumulator)."""
    per_block: dict[ir.Block, int] = {}
    for op, registers in _accumulators(func, threads).items():
        per_block[op.block] = per_block.get(op.block, 0) + registers
    return max(per_block.values(), default=0)


def _accumulators(func: ir.Operation, threads: int) -> dict[ir.Operation, int]:
    """Each tile.mma's result in 32-bit registers per thread, spread over every thread."""
    found = {}
    for op in walk_ops(func):
        if name(op) == MMA.name:
            result = op.results[0].type
            elements = 1
            for extent in shape_of(result):
                elements *= extent
            words = max(1, dtype_of(result).itemsize // 4)
            found[op] = -(-elements // threads) * words
    return found


def _kernel_option(op: ir.Operation, attribute: str, default: int) -> int:
    while name(op) != "func.func":
        op = op.parent
    if attribute not in op.attributes:
        return default
    return ir.IntegerAttr(op.attributes[attribute]).value


def is_within(op: ir.Operation | None, ancestor: ir.Operation) -> bool:
    """Whether `op` is `ancestor` or nested in it."""
    while op is not None:
        if op == ancestor:
            return True
        op = op.parent
    return False


def unused(op: ir.Operation) -> bool:
    return all(not list(r.uses) for r in op.results)


def replace(op: ir.Operation, value: ir.Value) -> None:
    op.results[0].replace_all_uses_with(value)
    op.erase()


def uniform_constant(value: ir.Value) -> tuple[Any, Any] | None:
    """(python value, dtype) when `value` is a tile.constant or a splat of one."""
    op = defining_op(value)
    if op is None:
        return None
    if name(op) == "tile.splat":
        return uniform_constant(op.operands[0])
    if name(op) == "tile.constant":
        dtype = dtype_of(op.results[0].type)
        return ops.constant_value(op.attributes["value"], dtype), dtype
    return None


def relabelling_chain(value: ir.Value, loop: ir.Operation
                      ) -> tuple[ir.Operation | None, tuple[ir.Operation, ...], bool]:
    """(the op `value` comes from through reshapes that add or drop unit dimensions and at most
    one (1, 0) transpose, each in `loop`'s body and read once; those ops, first to last;
    whether one transposes). The staged-operand analyses (matmul_loops, staged_loops) take
    such relabellings of a load as the load itself: they move no data."""
    chain: list[ir.Operation] = []
    transposed = False
    op = defining_op(value)
    while op is not None and op.parent == loop and \
            name(op) in ("tile.reshape", "tile.permute") and len(list(op.results[0].uses)) == 1:
        if name(op) == "tile.permute":
            if transposed or tuple(ops.array_attr(op, "axes")) != (1, 0):
                break
            transposed = True
        else:
            src, dst = shape_of(op.operands[0].type), shape_of(op.results[0].type)
            if [d for d in src if d != 1] != [d for d in dst if d != 1]:
                break
        chain.insert(0, op)
        op = defining_op(op.operands[0])
    return op, tuple(chain), transposed



def latency_hint(loads: list[ir.Operation]) -> int | None:
    """The largest `latency=` hint among `loads` (tile.latency: 1 light traffic .. 10 heavy),
    or None when none has one. A ring loop takes it as its stage count: the iterations of
    copies in flight (within what shared memory holds and the engine needs)."""
    hints = [ir.IntegerAttr(op.attributes[ops.LATENCY_ATTR]).value for op in loads
             if ops.LATENCY_ATTR in op.attributes]
    return max(hints) if hints else None


def tma_allowed(accesses: list[ir.Operation]) -> bool:
    """Whether TMA may copy these loads' or stores' tiles: none says `allow_tma=False`."""
    return not any(ops.NO_TMA_ATTR in op.attributes for op in accesses)


def unit_reshape_axis(source: tuple[int, ...], result: tuple[int, ...], axis: int) -> int | None:
    """The axis of `source` that is `axis` of `result`, for a reshape that only adds or drops
    unit dimensions (None for another reshape, or a unit `axis`)."""
    kept = [a for a, d in enumerate(source) if d != 1]
    made = [a for a, d in enumerate(result) if d != 1]
    if [source[a] for a in kept] != [result[a] for a in made] or axis not in made:
        return None
    return kept[made.index(axis)]


def constant_of(value: int, t: ir.Type) -> ir.Value:
    """A tile.constant of type `t` (a scalar or a splat tile) holding `value`, at the
    insertion point."""
    return ops.create(CONSTANT.short, [], [t], value=ops.constant_attr(value, dtype_of(t))).result


def has_copyable_rows(load: ir.Operation) -> bool:
    """Whether the array a tile.load (or store) reads has contiguous rows 16 bytes apart: its
    last dimension unit-stride, the one before not (rows one element apart, as a K = 1
    operand's, are not 16 bytes apart), its base and other strides multiples of 16 bytes. What
    cp.async and TMA copy in 16-byte chunks."""
    _, unit, align = parse_array_type(load.operands[0].type)
    return len(unit) >= 2 and bool(unit[-1]) and not unit[-2] and align >= 16


def rows_not_copyable(load: ir.Operation) -> str:
    """Why `has_copyable_rows` refuses a tile.load's array ("<operand>'s array is ..."): a
    column-major array (PyTorch's `w.t()`, a linear layer's weights) gets the two spellings
    that read the same memory by rows."""
    _, unit, _ = parse_array_type(load.operands[0].type)
    if len(unit) >= 2 and unit[-2] and not unit[-1]:
        return ("array is column-major (its first dimension is the contiguous one, as a "
                "transposed view such as `w.t()` is): pass the row-major `w` and load its tile "
                "with `order=(1, 0)`, or load `w`'s tile and `ct.transpose` it, and the copies "
                "read rows")
    return ("array is not known to have contiguous, 16-byte aligned rows (its last stride 1, "
            "its base and other strides multiples of 16 bytes)")
