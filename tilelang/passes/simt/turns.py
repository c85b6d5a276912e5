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
"""

from __future__ import annotations

import mlir.ir as ir
from mlir.dialects import arith, llvm, nvvm, scf

from tilelang import settings
from tilelang.layout import wgmma
from tilelang.passes.simt.context import Lowering, const
from tilelang.passes.simt.values import i32

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
        self._per_group(lambda mine, other: _asm(f"bar.sync {mine}, {self.count};"))

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


def takes_turns(lw: Lowering, products: int) -> bool:
    """Two consumer warpgroups fed by a producer warp, two products an iteration."""
    return lw.specialized is not None and lw.num_warps == 2 * wgmma.WARPGROUP and \
        products == 2 and settings.ping_pong_enabled()


def _asm(text: str) -> None:
    """A barrier instruction with its id written out (inline PTX, which LLVM does not merge
    across the branches)."""
    llvm.inline_asm(None, [], text, "", has_side_effects=True)
