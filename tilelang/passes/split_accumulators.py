"""Passes (layout): tile-split-accumulators: a matrix product whose accumulator is too large
for the threads' registers runs as several narrower products, one after the other, each with
its own K loop and epilogue.

cuTile's tuned configurations for its matmul kernels are B200's (its tuning file has no Hopper
entry): 256 x 256 output tiles. On a B200 the accumulator lives in tensor memory; on sm_90 it
lives in registers, and 256 x 256 float32 values are the whole register file of an SM (a thread
of 8 warps would hold 256 of them, past the 255 it may have): the kernel spilled 15 KB a thread
on mma.sync and ran 27 times slower than at 128 x 128. The same work as column blocks,

    for h in range(2):                       # acc[:, h*128:(h+1)*128], one after the other
        acc = zeros((256, 128))
        for k in ...:
            acc = mma(load(A, (i, k), (256, 64)), load(B, (k, 2*j + h), (64, 128)), acc)
        store(C, (i, 2*j + h), epilogue(acc))

holds 128 values a thread and takes the staged K loop (wgmma from a TMA ring), at the cost of
reading A's panel once per block (from L2). A tile index is in units of the tile, so halving a
tile along an axis turns index j into 2 * j + h: every element lands where it did.

What it takes: an `scf.for` whose body holds a `tile.mma` accumulating into the loop's only
carried value, which it yields, with nothing else in the body reading or writing memory but
loads and no control flow; the value the loop starts from, the product's B operand and the ops
after the loop that use its result must each be made, column by column, of plain loads
(`order` as the array's), splats, broadcasts, unit-dimension reshapes, permutes and
element-wise ops; the loop's result ends in stores (as the array's order) in the loop's block,
with no other memory writes between the loop and them, into arrays the product's loads do not
read (block h + 1 reads after block h stored; arrays of different parameters are taken not to
overlap, as everywhere the compiler reads ahead across a store). Split: the columns (N), into
the fewest power-of-two blocks that leave at most MAX_REGISTERS accumulator registers a thread.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import mlir.ir as ir
from mlir.dialects import scf

from tilelang.dialect import dtype_of, op_table, ops
from tilelang.dialect.types import is_tile_type, shape_of
from tilelang.passes.ir_utils import (
    constant_of,
    defining_op,
    has_side_effects,
    is_within,
    kernel_num_warps,
    name,
    unit_reshape_axis,
    walk_ops,
)

NAME = "tile-split-accumulators"
MAX_REGISTERS = 128  # accumulator registers a thread may hold (128 x 256 on 8 warps)
MIN_COLUMNS = 16  # the narrowest block: two n8 instructions
SPLIT_ATTR = "tile.accumulator_split"  # on each block's product: (rows, columns, blocks)
BLOCKS_ATTR = "tile.column_blocks"  # on the loop over the blocks: their count


@dataclass(frozen=True)
class Options:
    pass


def run(module: ir.Operation, options: Options) -> None:
    """Split each matrix product whose accumulator would take more than MAX_REGISTERS
    registers a thread into column blocks computed one after the other."""
    while True:  # one at a time: a rewrite erases the loop, and the products in it
        plan = next((p for p in map(_plan, _products(module)) if p is not None), None)
        if plan is None:
            return
        _rewrite(plan)


def _products(module: ir.Operation) -> list[ir.Operation]:
    return [op for op in walk_ops(module) if name(op) == "tile.mma"]


def split_count(shape: tuple[int, ...], itemsize: int, num_warps: int) -> int:
    """The column blocks an accumulator of `shape` is computed in (1: as it is)."""
    registers = math.prod(shape) * itemsize / 4 / (32 * num_warps)
    count = 1
    while registers / count > MAX_REGISTERS and shape[-1] % (2 * count) == 0 and \
            shape[-1] // (2 * count) >= MIN_COLUMNS:
        count *= 2
    return count if registers / count <= MAX_REGISTERS else 1


@dataclass
class _Plan:
    loop: ir.Operation
    mma: ir.Operation
    count: int
    axis: dict[ir.Value, int] = field(default_factory=dict)  # sliced values -> their axis
    ops: set[ir.Operation] = field(default_factory=set)  # ops whose clones are sliced
    indices: dict[ir.Value, ir.Value] = field(default_factory=dict)  # index -> count * it + h


def _plan(mma: ir.Operation) -> _Plan | None:
    loop = mma.parent
    if loop is None or name(loop) != "scf.for" or len(loop.results) != 1:
        return None
    loop = loop.operation
    acc = mma.operands[2]
    shape = shape_of(acc.type)
    if len(shape) != 2:
        return None
    count = split_count(shape, dtype_of(acc.type).itemsize, kernel_num_warps(mma))
    if count == 1:
        return None
    body = loop.regions[0].blocks[0]
    inner = [op.operation for op in body.operations]
    carried = body.arguments[1]
    if acc != carried or len(list(carried.uses)) != 1 or \
            inner[-1].operands[0] != mma.results[0]:
        return None
    if any(op.regions or (has_side_effects(op) and name(op) != "tile.load")
           for op in inner[:-1]):
        return None
    plan = _Plan(loop, mma, count)
    plan.axis[carried] = 1
    plan.axis[mma.results[0]] = 1
    plan.ops.add(mma)
    if not (_slice(plan, mma.operands[1], 1) and _slice(plan, loop.operands[3], 1)):
        return None
    plan.axis[loop.results[0]] = 1
    if not _follow(plan, loop.results[0]):
        return None
    # block h + 1 reads its operands after block h stored its results: not where the kernel
    # stores into an array it reads (in place; arrays of different parameters are taken not to
    # overlap, as a persistent kernel's producer warpgroup, reading ahead, takes them)
    read = {_root(op.operands[0]) for op in [*inner, *plan.ops] if name(op) == "tile.load"}
    if any(_root(op.operands[0]) in read for op in plan.ops if name(op) == "tile.store"):
        return None
    # a sliced op of the body is read only by sliced ops (its clone has the narrower type)
    readers = plan.ops | {inner[-1]}
    for op in inner:
        if op in plan.ops and any(u.owner.operation not in readers
                                  for r in op.results for u in r.uses):
            return None
    return plan if _movable(plan) else None


def _root(array: ir.Value) -> ir.Value:
    """The array argument a view (slice, list element, raw view) is of."""
    op = defining_op(array)
    while op is not None and op_table.has_trait(op, op_table.Trait.ARRAY_VIEW):
        array = op.operands[0]
        op = defining_op(array)
    return array


def _slice(plan: _Plan, value: ir.Value, axis: int) -> bool:
    """Whether `value` can be computed a column block at a time along `axis` (recorded)."""
    if value in plan.axis:
        return plan.axis[value] == axis
    op = defining_op(value)
    if op is None or len(op.results) != 1 or op.regions:
        return False
    shape = shape_of(value.type)
    if shape[axis] % plan.count:
        return False
    n = name(op)
    if n == op_table.LOAD.name:
        order = tuple(ops.array_attr(op, "order"))
        ok = "steps" not in op.attributes and order == tuple(range(len(shape))) and \
            len(op.operands) == 1 + len(shape)
    elif n == op_table.SPLAT.name:
        ok = True
    elif n == op_table.BROADCAST.name:
        source = op.operands[0]
        ok = shape_of(source.type)[axis] == 1 or _slice(plan, source, axis)
    elif n == op_table.RESHAPE.name:
        source_axis = unit_reshape_axis(shape_of(op.operands[0].type), shape, axis)
        ok = source_axis is not None and _slice(plan, op.operands[0], source_axis)
    elif n == op_table.PERMUTE.name:
        ok = _slice(plan, op.operands[0], list(ops.array_attr(op, "axes"))[axis])
    elif op_table.has_trait(op, op_table.Trait.ELEMENTWISE):
        ok = all(_slice(plan, v, axis) for v in op.operands if is_tile_type(v.type))
    else:
        ok = False
    if ok:
        plan.axis[value] = axis
        plan.ops.add(op)
    return ok


def _follow(plan: _Plan, value: ir.Value) -> bool:
    """Whether every use of the loop's result, and of what is computed from it, is an
    element-wise op (its other tiles sliced too), a unit-dimension reshape, a permute or a
    store, in the loop's block."""
    block = plan.loop.block
    work = [value]
    while work:
        v = work.pop()
        for use in v.uses:
            op = use.owner.operation
            if op.block != block:
                return False
            if op in plan.ops:
                continue
            n, axis = name(op), plan.axis[v]
            if n == op_table.STORE.name:
                order = tuple(ops.array_attr(op, "order"))
                rank = len(shape_of(v.type))
                if use.operand_number != len(op.operands) - 1 or "steps" in op.attributes or \
                        order != tuple(range(rank)) or len(op.operands) != 2 + rank:
                    return False
            elif n in (op_table.RESHAPE.name, op_table.PERMUTE.name):
                result = op.results[0]
                if n == op_table.RESHAPE.name:
                    moved = unit_reshape_axis(shape_of(result.type), shape_of(v.type), axis)
                else:
                    moved = list(ops.array_attr(op, "axes")).index(axis)
                if moved is None:
                    return False
                plan.axis[result] = moved
                work.append(result)
            elif op_table.has_trait(op, op_table.Trait.ELEMENTWISE) and len(op.results) == 1:
                if not all(_slice(plan, o, axis) for o in op.operands
                           if is_tile_type(o.type) and o != v and o not in plan.axis):
                    return False
                plan.axis[op.results[0]] = axis
                work.append(op.results[0])
            else:
                return False
            plan.ops.add(op)
    return True


def _movable(plan: _Plan) -> bool:
    """The sliced ops outside the loop are in its block, and from the first of them to the last
    of the loop's users nothing else writes memory (they all move to the last one)."""
    block = plan.loop.block
    inner = _body_ops(plan.loop)
    outside = [op for op in plan.ops if op not in inner]
    if any(op.block != block for op in outside):
        return False
    order = {op.operation: i for i, op in enumerate(block.operations)}
    first = min(order[op] for op in [*outside, plan.loop])
    last = max(order[op] for op in [*outside, plan.loop])
    for op in list(block.operations)[first:last + 1]:
        op = op.operation
        if op != plan.loop and op not in plan.ops and has_side_effects(op):
            return False
    return True


def _body_ops(loop: ir.Operation) -> set[ir.Operation]:
    return {op.operation for op in loop.regions[0].blocks[0].operations}


# ----- the rewrite --------------------------------------------------------------------------


def _rewrite(plan: _Plan) -> None:
    block = plan.loop.block
    listed = [op.operation for op in block.operations]
    inner = _body_ops(plan.loop)
    outside = sorted((op for op in plan.ops if op not in inner),
                     key=listed.index)  # the loop's users among them
    last = max(listed.index(op) for op in [*outside, plan.loop])
    with ir.InsertionPoint(listed[last + 1]), plan.loop.location:
        i32 = ir.IntegerType.get_signless(32)
        bounds = [constant_of(v, i32) for v in (0, plan.count, 1)]
        blocks = scf.ForOp(*bounds)
        blocks.operation.attributes[BLOCKS_ATTR] = ir.IntegerAttr.get(i32, plan.count)
        with ir.InsertionPoint(blocks.body):
            mapping: dict[ir.Value, ir.Value] = {}
            column = blocks.induction_variable
            # the blocks' tile indices first, so that the K loop's body stays loads and its
            # product (a plain K loop for passes/matmul_loops.py and tile-widen-k-steps)
            for op in sorted(plan.ops, key=lambda o: 0 if o in inner else listed.index(o)):
                index = _sliced_index(plan, op)
                if index is not None and index not in plan.indices and \
                        not _inside(index, plan.loop):
                    plan.indices[index] = _scaled(index, plan.count, column)
            before = [op for op in outside if listed.index(op) < listed.index(plan.loop)]
            for op in before:
                _clone(plan, op, mapping, column)
            _clone_loop(plan, mapping, column)
            for op in outside:
                if op not in before:
                    _clone(plan, op, mapping, column)
            scf.YieldOp([])
    for op in sorted([*outside, plan.loop], key=listed.index, reverse=True):
        if all(not list(r.uses) for r in op.results):  # (a load read elsewhere stays)
            op.erase()


def _clone_loop(plan: _Plan, mapping: dict[ir.Value, ir.Value], column: ir.Value) -> None:
    loop = plan.loop
    lower, upper, step, init = (mapping.get(v, v) for v in loop.operands)
    new = scf.ForOp(lower, upper, step, [init])
    old = loop.regions[0].blocks[0]
    mapping[old.arguments[0]] = new.induction_variable
    mapping[old.arguments[1]] = new.inner_iter_args[0]
    with ir.InsertionPoint(new.body):
        for op in list(old.operations)[:-1]:
            _clone(plan, op.operation, mapping, column)
        scf.YieldOp([mapping[old.operations[len(old.operations) - 1].operands[0]]])
    mapping[loop.results[0]] = new.results[0]


def _clone(plan: _Plan, op: ir.Operation, mapping: dict[ir.Value, ir.Value],
           column: ir.Value) -> None:
    """`op` at the insertion point with mapped operands; sliced when planned: its tile one
    column block narrower, its tile index along the split axis `index * count + column`."""
    operands = [mapping.get(v, v) for v in op.operands]
    results = [r.type for r in op.results]
    attributes = {k: op.attributes[k] for k in op.attributes}
    if op in plan.ops:
        results = [_narrower(r, plan.axis[r], plan.count) if r in plan.axis else r.type
                   for r in op.results]
        index = _sliced_index(plan, op)
        if index is not None:
            tile = op.results[0] if name(op) == op_table.LOAD.name else op.operands[-1]
            at = 1 + plan.axis[tile]
            known = plan.indices.get(index)
            operands[at] = known if known is not None else \
                _scaled(operands[at], plan.count, column)
        if op == plan.mma:
            attributes[SPLIT_ATTR] = ir.DenseI64ArrayAttr.get(
                [*shape_of(op.results[0].type), plan.count])
    with op.location:
        clone = ir.Operation.create(name(op), results=results, operands=operands,
                                    attributes=attributes)
    for old, new in zip(op.results, clone.results, strict=True):
        mapping[old] = new


def _sliced_index(plan: _Plan, op: ir.Operation) -> ir.Value | None:
    """The tile index of a load or store along the axis the blocks split."""
    n = name(op)
    if n not in (op_table.LOAD.name, op_table.STORE.name):
        return None
    tile = op.results[0] if n == op_table.LOAD.name else op.operands[-1]
    return op.operands[1 + plan.axis[tile]]


def _scaled(index: ir.Value, count: int, column: ir.Value) -> ir.Value:
    scaled = ops.create(op_table.MUL.short, [index, constant_of(count, index.type)],
                        [index.type]).result
    return ops.create(op_table.ADD.short, [scaled, _cast(column, index.type)],
                      [index.type]).result


def _inside(value: ir.Value, loop: ir.Operation) -> bool:
    """Whether `value` is computed in `loop` (or is its index)."""
    op = defining_op(value)
    if op is None:
        owner = value.owner
        return isinstance(owner, ir.Block) and owner.owner is not None and \
            is_within(owner.owner.operation, loop)
    return is_within(op, loop)


def _narrower(value: ir.Value, axis: int, count: int) -> ir.Type:
    tile = ir.RankedTensorType(value.type)
    shape = list(tile.shape)
    shape[axis] //= count
    return ir.RankedTensorType.get(shape, tile.element_type)


def _cast(value: ir.Value, t: ir.Type) -> ir.Value:
    if value.type == t:
        return value
    return ops.create(op_table.CAST.short, [value], [t]).result
