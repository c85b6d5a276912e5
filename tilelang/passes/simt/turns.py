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
from mlir.dialects import arith, nvvm, scf

from tilelang import settings
from tilelang.layout import wgmma
from tilelang.passes.simt.context import Lowering, const
from tilelang.passes.simt.values import i32

TURN_BARRIERS = (2, 3)  # 0: the block's barrier; 1: the consumer warps' (warp_specialize)


class Turns:
    def __init__(self, lw: Lowering):
        group = arith.shrui(lw.thread_index("warp"), const(i32(), 2))
        first, second = (const(i32(), b) for b in TURN_BARRIERS)
        self.is_second = arith.cmpi(arith.CmpIPredicate.eq, group, const(i32(), 1))
        self.mine = arith.select(self.is_second, second, first)
        self.other = arith.select(self.is_second, first, second)
        self.threads = const(i32(), 2 * 32 * wgmma.WARPGROUP)

    def wait(self) -> None:
        nvvm.BarrierOp(None, barrierId=self.mine, numberOfThreads=self.threads)

    def pass_on(self) -> None:
        nvvm.BarrierArriveOp(self.threads, barrierId=self.other)

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
