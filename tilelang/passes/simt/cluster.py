"""Passes (simt): clusters of two blocks sharing a K loop's operand tiles by TMA multicast
(sm_90), for kernels tile-pair-blocks marked (passes/pair_blocks.py).

Two blocks whose output tiles lie in the same column of tiles read the same B tiles (in the
same row, the same A tiles). Launched as a cluster of two (runtime/launcher.py: along x, when
the grid's x extent is even), each block copies half of each shared tile, by rows, into the
shared memory of both (`cp.async.bulk.tensor ... .multicast::cluster`), so the pair reads it
from L2 once instead of twice.

Which tiles the two blocks share is the kernel's own arithmetic, so it is checked at run time,
once at the kernel's entry: each block lowers the scalar ops its ring loop's bounds and tile
indices need twice, once with its own block index and once with its peer's (x XOR 1), and an
operand is shared when every value outside the loop that its indices read, and the loop's
bounds, come out equal. Both blocks compute the same answer, so they agree without talking.
Launched without a cluster (odd grid, or a launch that does not ask for one), the cluster has
one block and nothing is shared: one PTX serves both launches.

The ring's protocol (simt/tma_ring.py) changes only where shared memory crosses blocks:
- `full[s]` still expects the whole stage's bytes: the peer's half lands through its multicast
  and counts down the barrier at the same offset in this block.
- `empty[s]` counts both blocks' consumer warpgroups: a producer overwrites stage s in both
  blocks, so each consumer warpgroup releases the stage here and at the peer (`mapa`, an
  mbarrier arrive at cluster scope). Its count is chosen at run time, as the sharing is.
- A cluster barrier after the barriers' init (the peer's multicast may land before this block
  reaches its loop) and another after the last ring loop, before the barriers are invalidated
  (the peer's consumers may still arrive on them). Every thread of both blocks takes part in
  both; threads that exited count as arrived.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import mlir.ir as ir
from mlir.dialects import arith, gpu, llvm, nvvm

from tilelang.passes.ir_utils import defining_op, name
from tilelang.passes.simt.context import RULES, Lowering, const
from tilelang.passes.simt.tma import shared_pointer
from tilelang.passes.simt.values import i32

if TYPE_CHECKING:
    from tilelang.passes.simt.stage_copies import CopyPart
    from tilelang.passes.simt.warp_specialize import RingLoop

CLUSTER_ATTR = "tile.cluster"  # on the func.func and gpu.func: blocks in a cluster along x
SIZE = 2
MIN_SHARED_ROWS = 16  # halves of at least 8 rows: whole 1024-byte swizzle atoms


@dataclass(frozen=True)
class Pairing:
    """The pair's run-time decision, computed at the kernel's entry: this block's rank in the
    cluster, its peer's, and per part of the ring loop whether it is multicast (None: never,
    decided at compile time)."""

    rank: ir.Value
    peer: ir.Value
    shared: tuple[ir.Value | None, ...]
    any: ir.Value  # some part is shared: the empty barriers count both blocks' consumers


def candidate(part: CopyPart) -> bool:
    """Whether a part may be split into two halves of rows copied by TMA: whole swizzle atoms,
    an array that is a parameter (or a permuted view of one), and no gathered rows."""
    if part.rows is not None or part.operand.rows % MIN_SHARED_ROWS:
        return False
    array = part.load.operands[0]
    while not isinstance(array.owner, ir.Block):
        if array.owner.operation.name != "tile.array_permute":
            return False
        array = array.owner.operation.operands[0]
    return True


def pair(lw: Lowering, loop: RingLoop) -> Pairing:
    """At the kernel's entry, every thread: which of `loop`'s parts this block and its peer
    share (see the module doc)."""
    rank = nvvm.read_ptx_sreg_cluster_ctarank(i32())
    paired = arith.cmpi(arith.CmpIPredicate.eq, nvvm.read_ptx_sreg_cluster_nctarank(i32()),
                        const(i32(), SIZE))
    own_x = arith.index_cast(i32(), gpu.block_id(gpu.Dimension.x))
    # unpaired, the "peer" is the block itself: its scalar ops read nothing out of range
    peer_x = arith.select(paired, arith.xori(own_x, const(i32(), 1)), own_x)
    own = _evaluate(lw, loop.outer, None)
    peer = _evaluate(lw, loop.outer, peer_x)
    _evaluate(lw, loop.outer, None)  # the ops' values are this block's again
    body_op = loop.loop
    bounds = [_equal(own, peer, v) for v in list(body_op.operands)[:3]]
    shared: list[ir.Value | None] = []
    for part in loop.parts:
        if not candidate(part):
            shared.append(None)
            continue
        same = paired
        for v in bounds + [_equal(own, peer, v) for v in _inputs(loop, part)]:
            same = arith.andi(same, v)
        shared.append(same)
    found = [s for s in shared if s is not None]
    any_shared = found[0] if found else const(ir.IntegerType.get_signless(1), 0)
    for s in found[1:]:
        any_shared = arith.ori(any_shared, s)
    return Pairing(rank, arith.xori(rank, const(i32(), 1)), tuple(shared), any_shared)


def _evaluate(lw: Lowering, ops: tuple[ir.Operation, ...],
              block_x: ir.Value | None) -> dict[ir.Value, object]:
    """Lower `ops` again (with block index x `block_x`, when given); their values by result."""
    if block_x is not None:
        lw.block_ids[0] = block_x
    try:
        for op in ops:
            with op.location:
                RULES[name(op)](lw, op)
    finally:
        lw.block_ids.pop(0, None)
    return {r: lw.get(r) for op in ops for r in op.results}


def _inputs(loop: RingLoop, part: CopyPart) -> list[ir.Value]:
    """The values from before the loop that `part`'s tile indices read (through the loop's
    index ops); the loop's induction variable and the kernel's arguments are the same in
    both blocks."""
    inside = set(loop.index_ops)
    found: list[ir.Value] = []
    stack = list(part.load.operands)[1:]
    while stack:
        value = stack.pop()
        op = defining_op(value)
        if op is None:
            continue  # the induction variable, or a kernel argument
        if op in inside:
            stack += list(op.operands)
        elif value not in found:
            found.append(value)
    return found


def _equal(own: dict[ir.Value, object], peer: dict[ir.Value, object],
           value: ir.Value) -> ir.Value:
    """Whether `value` came out the same in both blocks (a kernel argument does)."""
    if value not in own:
        return const(ir.IntegerType.get_signless(1), 1)
    a, b = own[value], peer[value]
    if not isinstance(a, ir.Value) or not isinstance(b, ir.Value):
        return const(ir.IntegerType.get_signless(1), 0)
    if isinstance(a.type, ir.FloatType):
        return arith.cmpf(arith.CmpFPredicate.OEQ, a, b)
    return arith.cmpi(arith.CmpIPredicate.eq, a, b)


def sync() -> None:
    """The cluster's barrier: every thread of both blocks (exited ones count as arrived);
    release and acquire order shared memory and mbarrier state across the blocks."""
    nvvm.ClusterArriveOp()
    nvvm.ClusterWaitOp()


def arrive_remote(barrier: ir.Value, rank: ir.Value) -> None:
    """One arrival on the mbarrier at the same offset in block `rank` of the cluster."""
    remote = nvvm.MapaOp(ir.Type.parse("!llvm.ptr<7>"), barrier, rank).result
    # release at the block's scope, as CUTLASS's cluster barriers arrive: what it orders are
    # this warpgroup's wgmma reads of the stage, complete once waited for
    nvvm.MBarrierArriveOp(None, remote)


def multicast_box(dst: ir.Value, desc: ir.Value, at: list[ir.Value],
                  barrier: ir.Value) -> None:
    """tma.copy_box into the same shared address of both blocks, completing on the barrier
    at the same offset in each."""
    target = llvm.addrspacecast(ir.Type.parse("!llvm.ptr<7>"), shared_pointer(dst))
    mask = const(ir.IntegerType.get_signless(16), (1 << SIZE) - 1)
    nvvm.CpAsyncBulkTensorGlobalToSharedClusterOp(target, desc, at, barrier, [],
                                                  multicastMask=mask)
