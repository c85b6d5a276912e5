"""Passes (layout): tile-delay-products: in a loop whose products run on wgmma from staged
operands (passes/staged_loops.py), the last product, which folds this iteration into a carried
accumulator, is issued one iteration late, right after the next iteration's first product, so
that the tensor cores run it while the rest of that iteration (attention's softmax) runs on the
CUDA cores (FA3's intra-warpgroup overlap):

    for j in [lb, ub) carrying acc, m, l:      head(lb)                    (a one-trip loop)
        s = mma(q, kT(j), 0)                    for j in [lb + step, ub) carrying acc, p', a':
        p, a, m, l = softmax(s, m, l)     ->        c = acc * a'
        acc = mma(p, v(j), acc * a)                 s = mma(q, kT(j), 0)
                                                    acc = mma(p', v(j - step), c)
                                                    p, a, m, l = softmax(s, m, l)
                                                tail: acc = mma(p', v(last), acc * a')  (one trip)

The moved part (the *tail*) is the last product, the op that makes its accumulator from the
carried one (`acc * a`), and its staged B load with its relabellings; what it reads from the
iteration (`p`, `a`) is carried to the next one instead (p in its 16-bit input dtype: fewer
registers than carrying the score block, as tile-pipeline-products does). Stage j of the ring
then holds k(j) and v(j - 1), each released once both products reading it retired
(simt/staged_loop.py). The first iteration's head and the last iteration's tail are loops of
at most one trip, lowered like the loop (their loads staged); with no iteration at all none of
the three runs.
"""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir
from mlir.dialects import scf

from tilelang.dialect import ops
from tilelang.dialect.types import is_tile_type
from tilelang.passes.eliminate_dead_code import run as eliminate_dead_code
from tilelang.passes.ir_utils import (
    clone_ops,
    defining_op,
    kernel_num_warps,
    name,
    scalar_slice,
    walk_ops,
)
from tilelang.passes.staged_loops import staged_loop

NAME = "tile-delay-products"


@dataclass(frozen=True)
class Options:
    arch: str = "sm_80"
    enabled: bool = True  # the default pipeline passes TILELANG_DELAY_PRODUCTS here


@dataclass(frozen=True)
class _Tail:
    product: ir.Operation
    index: int  # of the accumulator among the carried values
    acc: ir.Value  # the carried accumulator (a block argument of the loop)
    scale: list[ir.Operation]  # make the product's accumulator from the carried one
    loads: list[ir.Operation]  # the B load's index arithmetic, the load, its relabellings
    inputs: list[ir.Value]  # values of the iteration the tail reads (carried one late)
    first_product: ir.Operation  # the head's first product (the tail goes right after it)


def run(module: ir.Operation, options: Options) -> None:
    """Issue the accumulating last product of a wgmma loop one iteration late."""
    if not options.enabled:
        return
    changed = False
    for op in walk_ops(module, post_order=True):
        if name(op) != "scf.for":
            continue
        tail = _tail(op, options.arch)
        if tail is not None:
            _delay(op, tail)
            changed = True
    if changed:
        eliminate_dead_code(module, None)


def _tail(loop: ir.Operation, arch: str) -> _Tail | None:
    plan = staged_loop(loop, arch, kernel_num_warps(loop))
    if plan is None or len(plan.mmas) < 2 or plan.mmas[-1].a_in_ring:
        return None  # (a gathered A is copied into the product's stage: it stays with it)
    body = loop.regions[0].blocks[0]
    inner = [o.operation for o in body.operations]
    if any(o.regions and not _closed(o) for o in inner):
        return None  # (the clones copy regions as they are)
    product = plan.mmas[-1].mma
    terminator = inner[-1]
    uses = list(product.results[0].uses)
    if len(uses) != 1 or uses[0].owner != terminator:
        return None
    index = uses[0].operand_number
    acc = body.arguments[1 + index]
    scale = defining_op(product.operands[2])
    if product.operands[2] == acc:
        scale = None
    elif scale is None or scale.parent != loop or acc not in list(scale.operands) or \
            len(list(scale.results[0].uses)) != 1:
        return None
    if len(list(acc.uses)) != 1 or list(terminator.operands).count(product.results[0]) != 1:
        return None  # the accumulator feeds the tail only
    found: list[ir.Operation] = []
    staged = plan.mmas[-1].b
    if not all(scalar_slice(loop, v, found) for v in staged.load.operands):
        return None
    spread = []  # broadcasts into the scale's shape: moved too, their source carried instead
    others = [v for v in scale.operands if v != acc] if scale else []
    for i, v in enumerate(others):
        op = defining_op(v)
        if op is not None and op.parent == loop and name(op) == "tile.broadcast" and \
                len(list(op.results[0].uses)) == 1:
            spread.append(op)
            others[i] = op.operands[0]
    inputs = [v for v in dict.fromkeys([product.operands[0], *others]) if _in_body(v, loop)]
    if any(v in body.arguments for v in inputs) or not all(is_tile_type(v.type) for v in inputs):
        return None
    first = plan.mmas[0].mma
    return _Tail(product, index, acc, [*spread, *([scale] if scale else [])],
                 [*found, *staged.ops], inputs, first)


def _closed(op: ir.Operation) -> bool:
    """The op's regions read only values defined in them."""
    inside = {r for inner in walk_ops(op) for r in inner.results}
    inside |= {a for region in op.regions for block in region.blocks for a in block.arguments}
    return all(v in inside for inner in walk_ops(op) if inner != op for v in inner.operands)


def _in_body(value: ir.Value, loop: ir.Operation) -> bool:
    op = defining_op(value)
    body = loop.regions[0].blocks[0]
    return (op is not None and op.parent == loop) or value in list(body.arguments)


def _delay(loop: ir.Operation, tail: _Tail) -> None:
    body = loop.regions[0].blocks[0]
    lower, upper, step = list(loop.operands)[:3]
    inits = list(loop.operands)[3:]
    inner = [o.operation for o in body.operations]
    terminator = inner[-1]
    moved = {*tail.loads, tail.product, *tail.scale}
    head = [o for o in inner[:-1] if o not in moved]
    split = head.index(tail.first_product) + 1
    args = list(body.arguments)
    yields = list(terminator.operands)
    with ir.InsertionPoint(loop), loop.location:
        # head(lb), in a loop of at most one trip
        first_upper = _min(_add(lower, step), upper)
        zeros = [_zeros(v.type) for v in tail.inputs]
        pro = scf.ForOp(lower, first_upper, step, [*inits, *zeros])
        with ir.InsertionPoint(pro.body):
            mapping = _bind(args, pro)
            clone_ops(head, mapping)
            scf.YieldOp([_map(mapping, v) for v in yields[:tail.index]] + [pro.body.arguments[
                1 + tail.index]] + [_map(mapping, v) for v in yields[tail.index + 1:]] +
                [_map(mapping, v) for v in tail.inputs])
        count = len(inits)
        # the loop from the second iteration: tail(j - step) right after head(j)'s product
        main = scf.ForOp(_add(lower, step), upper, step, [*list(pro.results), lower])
        with ir.InsertionPoint(main.body):
            mapping = _bind(args, main)
            iv = main.induction_variable
            carried = list(main.body.arguments)[1:]
            # the carried accumulator is scaled first: waiting for the product in flight
            # before this iteration's are issued keeps ptxas from serializing wgmma (C7514:
            # a product's accumulator read between its issue and a wait it can count)
            clone_ops(head[:split - 1], mapping)
            previous = ops.create("sub", [iv, step], [iv.type]).result
            local = _tail_mapping(tail, carried[tail.index], carried[count:-1], previous,
                                  args[0], mapping)
            clone_ops(tail.scale, local)
            clone_ops(head[split - 1:split], mapping)
            clone_ops([*tail.loads, tail.product], local)
            delayed = local[tail.product.results[0]]
            clone_ops(head[split:], mapping)
            scf.YieldOp([delayed if i == tail.index else _map(mapping, v)
                         for i, v in enumerate(yields)] +
                        [_map(mapping, v) for v in tail.inputs] + [iv])
        results = list(main.results)
        # tail(last), in a loop of at most one trip (none when the range was empty)
        last = results[-1]
        epi = scf.ForOp(last, _min(_add(last, step), upper), step, [results[tail.index]])
        with ir.InsertionPoint(epi.body):
            value = _clone_tail(tail, epi.body.arguments[1], results[count:-1],
                                epi.induction_variable, args[0], {})
            scf.YieldOp([value])
    for i, old in enumerate(loop.results):
        old.replace_all_uses_with(epi.results[0] if i == tail.index else results[i])
    loop.erase()


def _tail_mapping(tail: _Tail, acc: ir.Value, inputs: list[ir.Value], iv: ir.Value,
                  old_iv: ir.Value, mapping: dict[ir.Value, ir.Value]) -> dict:
    """What the tail's clones read for iteration `iv`: `acc` and the carried `inputs`."""
    local = dict(mapping)
    local[old_iv] = iv
    for old, new in zip(tail.inputs, inputs, strict=True):
        local[old] = new
    local[tail.acc] = acc
    return local


def _clone_tail(tail: _Tail, acc: ir.Value, inputs: list[ir.Value], iv: ir.Value,
                old_iv: ir.Value, mapping: dict[ir.Value, ir.Value]) -> ir.Value:
    """The tail for iteration `iv`, accumulating into `acc` with the carried `inputs`."""
    local = _tail_mapping(tail, acc, inputs, iv, old_iv, mapping)
    clone_ops([*tail.loads, *tail.scale, tail.product], local)
    return local[tail.product.results[0]]


def _bind(args: list[ir.Value], loop: scf.ForOp) -> dict[ir.Value, ir.Value]:
    new = list(loop.body.arguments)
    return {old: new[i] for i, old in enumerate(args)}


def _map(mapping: dict[ir.Value, ir.Value], value: ir.Value) -> ir.Value:
    return mapping.get(value, value)


def _add(a: ir.Value, b: ir.Value) -> ir.Value:
    return ops.create("add", [a, b], [a.type]).result


def _min(a: ir.Value, b: ir.Value) -> ir.Value:
    return ops.create("minimum", [a, b], [a.type]).result


def _zeros(t: ir.Type) -> ir.Value:
    element = ir.ShapedType(t).element_type
    zero = ir.FloatAttr.get(element, 0.0) if isinstance(element, ir.FloatType) else \
        ir.IntegerAttr.get(element, 0)
    value = ops.create("constant", [], [element], value=zero).result
    return ops.create("splat", [value], [t]).result
