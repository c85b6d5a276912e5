"""Passes (simt): two consumer warpgroups taking turns at the tensor cores (FA3's "ping-pong"
scheduling), for a warp-specialized staged loop (simt/warp_specialize.py) with two products,
such as flash attention's: s = q @ k.T, the softmax, acc += p @ v.

Each warpgroup's turn covers the products with nothing between them: the last product of one
iteration and the first of the next (p @ v of block j, then q @ k.T of block j + 1). While one
warpgroup's pair runs on the tensor cores, the other computes its softmax. Warpgroup g waits
for its turn at named barrier TURN_BARRIERS[g] (its 128 threads and the other's 128 arrivals)
and passes the turn on by arriving at the other's:

    before the loop: the second warpgroup arrives at the first's barrier; both wait
    each iteration:  first product; pass on ... wait; last product
    after the loop:  pass on; the first warpgroup waits once more (the second's last arrival)

Arrivals and waits pair up one to one (an extra arrival before a wait would complete the
barrier without its warpgroup), and a loop of no iterations passes the turn twice.

Where the wait lands in the machine code decides whether this pays: it must follow the
softmax. Written as a bare `bar.sync` before the product, ptxas moves it to the top of its
basic block, above the softmax, and the two warpgroups' softmaxes run one after the other
(ping-pong lost a third of attention's speed, sessions 6-18). So the wait sits after the last
product's `wgmma.fence`, in a loop of its own whose back edge is never taken (`Turns.wait`).
That loop is a branch in the key loop's body, and with a branch ptxas 13.0 gave the registers
of an A operand held across the key loop to the probabilities (the nineteenth session's wrong
answers at one query row): turns are taken only in loops whose products hold no A operand in
registers across the loop (`takes_turns`; since the twenty-first session such an operand is
put in shared memory once where it can be, passes/staged_loops.py).
"""

from __future__ import annotations

import mlir.ir as ir
from mlir.dialects import arith, llvm, nvvm, scf

from tilelang import settings
from tilelang.layout import wgmma
from tilelang.passes.simt.context import Lowering, const
from tilelang.passes.simt.values import i32
from tilelang.passes.staged_loops import StagedLoop, from_before

TURN_BARRIERS = (2, 3)  # 0: the block's barrier; 1: the consumer warps' (warp_specialize)


class Turns:
    def __init__(self, lw: Lowering):
        group = arith.shrui(lw.thread_index("warp"), const(i32(), 2))
        self.is_second = arith.cmpi(arith.CmpIPredicate.eq, group, const(i32(), 1))
        self.threads = const(i32(), 2 * 32 * wgmma.WARPGROUP)
        self.count = 2 * 32 * wgmma.WARPGROUP

    def _per_group(self, emit) -> None:
        """emit(mine, other) with constant barrier ids, in a branch per warpgroup (ptxas then
        knows which barrier each instruction uses)."""
        branch = scf.IfOp(self.is_second, [], has_else=True)
        first, second = TURN_BARRIERS
        for block, (mine, other) in ((branch.then_block, (second, first)),
                                     (branch.else_block, (first, second))):
            with ir.InsertionPoint(block):
                emit(mine, other)
                scf.YieldOp([])

    def wait(self) -> None:
        """Wait for this warpgroup's turn, in a loop whose back edge is never taken (%warpid
        is below 64; ptxas cannot know it), which ptxas does not hoist above the softmax."""
        self._per_group(lambda mine, other: _asm(
            "{ .reg .pred p; .reg .u32 w; TURN_WAIT: "
            f"bar.sync {mine}, {self.count}; mov.u32 w, %warpid; setp.gt.u32 p, w, 4096; "
            "@p bra TURN_WAIT; }"))

    def pass_on(self) -> None:
        self._per_group(lambda mine, other: _asm(f"bar.arrive {other}, {self.count};"))

    def start(self) -> None:
        with ir.InsertionPoint(scf.IfOp(self.is_second, [], has_else=False).then_block):
            nvvm.BarrierArriveOp(self.threads, barrierId=const(i32(), TURN_BARRIERS[0]))
            scf.YieldOp([])
        self.wait()

    def finish(self) -> None:
        self.pass_on()
        is_first = arith.xori(self.is_second, arith.constant(ir.IntegerType.get_signless(1), 1))
        with ir.InsertionPoint(scf.IfOp(is_first, [], has_else=False).then_block):
            self.wait()
            scf.YieldOp([])


def takes_turns(lw: Lowering, plan: StagedLoop) -> bool:
    """Two consumer warpgroups fed by a producer warp, two products an iteration, none reading
    A from registers held across the loop."""
    held = any(m.a is None and from_before(m.mma.operands[0], plan.loop) for m in plan.mmas)
    return lw.specialized is not None and lw.num_warps == 2 * wgmma.WARPGROUP and \
        len(plan.mmas) == 2 and not held and settings.ping_pong_enabled()


def _asm(text: str) -> None:
    """A barrier instruction with its id written out (inline PTX, which LLVM does not merge
    across the branches)."""
    llvm.inline_asm(None, [], text, "", has_side_effects=True)
