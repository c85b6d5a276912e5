"""Passes (simt): a loop lowered two iterations a trip, for an engine that carries values which
take turns between two sets of registers (simt/wgmma.py's overlapped promotion: the stage
before's products are added while this stage's are computed in the other set).

Carried by one loop argument each, the two sets would swap at every back edge: two copies of
every register an iteration. Two iterations a trip keep each set in its own registers. When
the count is odd, the last iteration runs after the loop, from the finished state (`finish`:
nothing in flight, the caller's values) carried again (`resume`), and finishes in its branch:
ptxas does not follow registers a wgmma wrote across the loop's exit into a branch, and waits
for them there (in a path it takes for divergent, which serialized every wgmma).

    state = resume(done)
    for iv in range(lb, lb + 2 * (n // 2) * step, 2 * step):
        state = body(iv, state); state = body(iv + step, state)
    done = finish(state)
    if n % 2: done = finish(body(last, resume(done)))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import mlir.ir as ir
from mlir.dialects import arith, scf

from tilelang.passes.simt.context import const

Body = Callable[[ir.Value, list[ir.Value]], list[ir.Value]]
Convert = Callable[[list[ir.Value]], list[ir.Value]]


class Carrier(Protocol):
    """What a staged matrix-product engine (simt/staged_matmul.Engine) gives its loop."""

    unroll: int

    def carry(self, regs: tuple[ir.Value, ...]) -> list[ir.Value]: ...

    def finish(self, carried: list[ir.Value]) -> list[ir.Value]: ...


def lower_engine_loop(lb: ir.Value, ub: ir.Value, step: ir.Value, engine: Carrier,
                      regs: tuple[ir.Value, ...], counter: ir.Value, body: Body
                      ) -> tuple[list[ir.Value], ir.Value]:
    """A staged matrix-product loop: its state is what `engine` carries and a counter (the
    ring's slot or count), `body` one iteration; returns the accumulator's registers and the
    counter after the loop."""

    def finish(state: list[ir.Value]) -> list[ir.Value]:
        return [*engine.finish(state[:-1]), state[-1]]

    def resume(done: list[ir.Value]) -> list[ir.Value]:
        return [*engine.carry(tuple(done[:-1])), done[-1]]

    *out, last = lower_for(lb, ub, step, [*regs, counter], body, finish, resume, engine.unroll)
    return out, last


def lower_for(lb: ir.Value, ub: ir.Value, step: ir.Value, done: list[ir.Value], body: Body,
              finish: Convert, resume: Convert, unroll: int = 1) -> list[ir.Value]:
    """`finish` of the state after `body` ran for each iv of range(lb, ub, step) (step > 0)
    from `resume(done)`, `unroll` (1 or 2) iterations a trip of the scf.for."""
    assert unroll in (1, 2), "one or two iterations a trip"
    if unroll == 1:
        for_op = scf.ForOp(lb, ub, step, resume(done))
        with ir.InsertionPoint(for_op.body):
            scf.YieldOp(body(for_op.induction_variable, list(for_op.inner_iter_args)))
        return finish(list(for_op.results))
    t = lb.type
    assert isinstance(t, ir.IntegerType), "loop bounds are integers"
    zero, one = const(t, 0), const(t, 1)
    span = arith.addi(arith.subi(ub, lb), arith.subi(step, one))
    count = arith.maxsi(arith.divsi(span, step), zero)  # a negative span rounds up to <= 0
    double = arith.shli(step, one)
    paired_ub = arith.addi(lb, arith.muli(arith.shrsi(count, one), double))
    for_op = scf.ForOp(lb, paired_ub, double, resume(done))
    with ir.InsertionPoint(for_op.body):
        iv = for_op.induction_variable
        state = body(iv, list(for_op.inner_iter_args))
        scf.YieldOp(body(arith.addi(iv, step), state))
    done = finish(list(for_op.results))
    odd = arith.cmpi(arith.CmpIPredicate.ne, arith.andi(count, one), zero)
    last = scf.IfOp(odd, [v.type for v in done], has_else=True)
    with ir.InsertionPoint(last.then_block):
        scf.YieldOp(finish(body(paired_ub, resume(done))))
    with ir.InsertionPoint(last.else_block):
        scf.YieldOp(done)
    return list(last.results)
