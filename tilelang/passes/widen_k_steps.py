"""Passes (layout): tile-widen-k-steps: a K loop whose steps are narrower than a 128-byte row
of its operands takes two (or four) of them per iteration, so that wgmma reads its operands
from shared memory in 128-byte swizzled rows.

wgmma's shared-memory operands are staged here in rows of 128 bytes along K (layout/wgmma.py),
so a K loop with BK = 32 float16 values (64 bytes; cuTile's search space has 128x128x32, and
Triton users write BK = 32 out of habit) or BK = 64 float8 values did not take the staged K
loop: its products ran with A from registers, 4.3 times slower than the same kernel with
BK = 64 (cuTile's matmul_kernel at 8192^3 on an H200: 7.0 against 1.65 ms). Taking f steps at
once,

    for k in range(cdiv(K, 32)):
        acc = mma(load(A, (i, k), (BM, 32)), load(B, (k, j), (32, BN)), acc)
 -> for k in range(cdiv(cdiv(K, 32), 2)):
        acc = mma(load(A, (i, k), (BM, 64)), load(B, (k, j), (64, BN)), acc)

issues the same wgmma instructions in the same order for 16-bit inputs (a product of K = 64
is four K = 16 steps, as two of K = 32 are), so the sums are the same to the bit; 8-bit steps
of 64 move from mma.sync to wgmma (its sums promoted to float32 every 128, simt/wgmma.py). A
tile index counts tiles, so index k of the wider tile is steps f * k .. f * k + f - 1 of the
narrow one.

What it takes: an `scf.for` from 0 by 1 whose body is two loads, each reaching one operand of
one `tile.mma` through reshapes, permutes and casts (each read once), the product accumulating
into the loop's only carried value (and pure scalar ops that read only values from before the
loop: block indices written in the loads); each load indexed by the loop's index along the
product's K axis and by such values along the others, in the array's order, padded with
zeros; inputs the staged K loop takes (matmul_loops.input_bytes). The loop must run over
every step of the array: its count is `cdiv(K, BK)` of a loaded array's extent K along that
axis (`ct.num_tiles`, `ct.cdiv(x.shape[d], BK)`,
`(K + BK - 1) // BK`), or a constant that f divides. Then the wider steps past the last one
read only the zeros past that array's end: they add nothing, unless the other operand holds
infinities or NaNs past its own K (an operand longer than the product's K, which the narrow
loop also reads up to the next multiple of BK).
"""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir

from tilelang import settings
from tilelang.dialect import dtype_of, op_table, ops
from tilelang.dialect.types import shape_of
from tilelang.layout import wgmma
from tilelang.passes.ir_utils import (
    constant_of,
    defining_op,
    has_copyable_rows,
    is_pure_scalar,
    is_within,
    kernel_num_warps,
    name,
    uniform_constant,
    unit_reshape_axis,
    walk_ops,
)
from tilelang.passes.matmul_loops import input_bytes

NAME = "tile-widen-k-steps"
WGMMA_ARCHS = ("sm_90", "sm_90a")
ROW_BYTES = 128  # wgmma's swizzled row along K (layout/wgmma.py)
CHAIN = (op_table.RESHAPE.name, op_table.PERMUTE.name, op_table.CAST.name)
WIDENED_ATTR = "tile.widened_k"  # on the product: (the loop's steps, taken this many at once)


@dataclass(frozen=True)
class Options:
    arch: str = "sm_80"


@dataclass(frozen=True)
class _Operand:
    load: ir.Operation
    chain: tuple[ir.Operation, ...]  # load -> ... -> the product, in order
    axis: int  # the load's tile axis that is the product's K


def run(module: ir.Operation, options: Options) -> None:
    """Give K loops whose steps are narrower than a 128-byte row wider steps (see the module's
    docstring)."""
    if options.arch not in WGMMA_ARCHS or not settings.wgmma_enabled():
        return
    for loop in [op for op in walk_ops(module) if name(op) == "scf.for"]:
        plan = _plan(loop)
        if plan is not None:
            _widen(loop, *plan)


def _plan(loop: ir.Operation) -> tuple[ir.Operation, list[_Operand], int] | None:
    body = loop.regions[0].blocks[0]
    inner = [op.operation for op in body.operations]
    products = [op for op in inner if name(op) == "tile.mma"]
    if len(products) != 1 or len(loop.results) != 1 or _constant(loop.operands[0]) != 0 or \
            _constant(loop.operands[2]) != 1:
        return None
    mma = products[0]
    if mma.operands[2] != body.arguments[1] or inner[-1].operands[0] != mma.results[0] or \
            len(list(body.arguments[1].uses)) != 1:
        return None
    invariant = _invariant_scalars(loop)
    operands = [_operand(mma, i, loop, invariant) for i in (0, 1)]
    if None in operands or \
            len(inner) != 4 + len(invariant) + sum(len(o.chain) for o in operands if o):
        return None
    found = [o for o in operands if o is not None]
    itemsize = dtype_of(found[0].load.results[0].type).itemsize
    steps = shape_of(mma.operands[0].type)[-1]
    if steps * itemsize >= ROW_BYTES or ROW_BYTES % (steps * itemsize):
        return None
    factor = ROW_BYTES // (steps * itemsize)
    # only where the wider loop is a staged K loop: inputs it takes, rows copyable in 16-byte
    # chunks, the product one wgmma covers (else wider steps only hold more registers on
    # mma.sync: an int8 product's 128-wide steps spilled 8 KB a thread, 128x128 tiles)
    rows, cols = shape_of(mma.results[0].type)
    if input_bytes(mma) is None or not all(has_copyable_rows(o.load) for o in found) or \
            not wgmma.fits(rows, cols, steps * factor, itemsize, kernel_num_warps(loop)):
        return None
    count = loop.operands[1]
    constant = _constant(count)
    if not ((constant is not None and constant % factor == 0) or
            any(_counts_tiles(count, o, steps) for o in found)):
        return None
    return mma, found, factor


def _invariant_scalars(loop: ir.Operation) -> set[ir.Operation]:
    """The body's pure scalar ops that read only values from before the loop or of one
    another: block indices written inside the loop (`ct.load(a, (ct.bid(0), k), ...)`), which
    tile-hoist-invariants leaves in a loop with a product. A load's other indices may come from
    them; the wider loads read the same values."""
    found: set[ir.Operation] = set()
    for op in [o.operation for o in loop.regions[0].blocks[0].operations]:
        if is_pure_scalar(op) and name(op) != op_table.GATHER.name and all(
                not _inside(v, loop) or defining_op(v) in found for v in op.operands):
            found.add(op)
    return found


def _operand(mma: ir.Operation, which: int, loop: ir.Operation,
             invariant: set[ir.Operation]) -> _Operand | None:
    """The load behind operand `which` (0: A, K its axis 1; 1: B, K its axis 0)."""
    value, axis = mma.operands[which], 1 - which
    chain: list[ir.Operation] = []
    while True:
        op = defining_op(value)
        if op is None or op.parent != loop or len(list(value.uses)) != 1:
            return None
        shape = shape_of(value.type)
        n = name(op)
        if n == op_table.LOAD.name:
            break
        if n not in CHAIN:
            return None
        source = shape_of(op.operands[0].type)
        if n == op_table.RESHAPE.name:
            before = unit_reshape_axis(source, shape, axis)
            if before is None:
                return None
            axis = before
        elif n == op_table.PERMUTE.name:
            axis = list(ops.array_attr(op, "axes"))[axis]
        chain.insert(0, op)
        value = op.operands[0]
    index = list(op.operands)[1:]
    order = tuple(ops.array_attr(op, "order"))
    if "steps" in op.attributes or order != tuple(range(len(shape))) or \
            len(index) != len(shape) or ops.str_attr(op, "padding_mode") != "zero":
        return None
    iv = loop.regions[0].blocks[0].arguments[0]
    if index[axis] != iv or any(v == iv or (_inside(v, loop) and defining_op(v) not in invariant)
                                for k, v in enumerate(index) if k != axis):
        return None
    return _Operand(op, tuple(chain), axis)


def _inside(value: ir.Value, loop: ir.Operation) -> bool:
    op = defining_op(value)
    return op is not None and is_within(op, loop)


def _constant(value: ir.Value) -> int | None:
    found = uniform_constant(value)
    return found[0] if found is not None and isinstance(found[0], int) else None


def _counts_tiles(count: ir.Value, operand: _Operand, steps: int) -> bool:
    """Whether `count` is cdiv(extent, steps) of the operand's array along its K axis:
    floordiv(x, s) + (x mod s != 0), or floordiv(x + s - 1, s)."""
    load, axis = operand.load, operand.axis

    def is_extent(v: ir.Value) -> bool:
        op = defining_op(v)
        return op is not None and name(op) == "tile.dim" and op.operands[0] == load.operands[0] \
            and ops.int_attr(op, "dim") == axis

    def parts(v: ir.Value, what: str) -> list[ir.Value] | None:
        op = defining_op(v)
        return list(op.operands) if op is not None and name(op) == f"tile.{what}" else None

    def is_steps(v: ir.Value) -> bool:
        return _constant(v) == steps

    quotient = parts(count, "floordiv")
    if quotient is not None and is_steps(quotient[1]):  # (x + s - 1) // s
        added = parts(quotient[0], "add")
        return added is not None and any(
            is_extent(a) and _constant(b) == steps - 1 for a, b in (added, added[::-1]))
    added = parts(count, "add")
    if added is None:
        return False
    for whole, rest in (added, added[::-1]):
        q, cast = parts(whole, "floordiv"), parts(rest, "cast")
        if q is None or cast is None or not (is_extent(q[0]) and is_steps(q[1])):
            continue
        compare, test = parts(cast[0], "cmp"), defining_op(cast[0])
        modulo = parts(compare[0], "mod") if compare is not None else None
        if compare is not None and test is not None and modulo is not None and \
                ops.str_attr(test, "predicate") == "ne" and is_extent(modulo[0]) and \
                is_steps(modulo[1]) and _constant(compare[1]) == 0:
            return True
    return False


# ----- the rewrite --------------------------------------------------------------------------


def _widen(loop: ir.Operation, mma: ir.Operation, operands: list[_Operand],
           factor: int) -> None:
    steps = shape_of(mma.operands[0].type)[-1]
    count = loop.operands[1]
    with ir.InsertionPoint(loop), loop.location:
        bump = ops.create(op_table.ADD.short, [count, constant_of(factor - 1, count.type)],
                          [count.type]).result
        wide = ops.create(op_table.FLOORDIV.short, [bump, constant_of(factor, count.type)],
                          [count.type]).result
    loop.operands[1] = wide
    values = []
    for operand in operands:
        axis, value = operand.axis, None  # axis: K in the current op's result
        for op in (operand.load, *operand.chain):
            n = name(op)
            if n == op_table.RESHAPE.name:
                after = unit_reshape_axis(shape_of(op.results[0].type),
                                          shape_of(op.operands[0].type), axis)
                assert after is not None, "checked by _operand"
                axis = after
            elif n == op_table.PERMUTE.name:
                axis = list(ops.array_attr(op, "axes")).index(axis)
            tile = ir.RankedTensorType(op.results[0].type)
            shape = list(tile.shape)
            shape[axis] *= factor
            args = list(op.operands)
            if value is not None:  # a chain op reads the widened value before it
                args[0] = value
            with ir.InsertionPoint(op), op.location:
                new = ir.Operation.create(
                    n, results=[ir.RankedTensorType.get(shape, tile.element_type)],
                    operands=args, attributes={k: op.attributes[k] for k in op.attributes})
            value = new.results[0]
        values.append(value)
    mma.operands[0] = values[0]
    mma.operands[1] = values[1]
    mma.attributes[WIDENED_ATTR] = ir.DenseI64ArrayAttr.get([steps, factor])
    for operand in operands:
        for op in reversed((operand.load, *operand.chain)):
            op.erase()


