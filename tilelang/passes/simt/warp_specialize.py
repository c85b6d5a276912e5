"""Passes (simt): warp specialization of a kernel's TMA rings (simt/tma_ring.py) on sm_90.

Without it, thread 0 refills the ring from inside the first consumer warpgroup, so that
warpgroup waits for the others at every refill. With it the kernel gains a *producer
warpgroup*: four more warps, numbered after the kernel's own, so the consumers' thread indices
and layouts do not change.

    entry: thread 0 initializes the ring's barriers; block barrier (every warp)
    if warp >= num_warps:                       # the producer warpgroup
        setmaxnreg.dec                          # its registers go to the consumers
        its first thread, for each ring loop in order (one ring, its count running on):
            the loop's bounds and tile indices (the scalar ops they depend on, lowered again)
            each iteration n: wait empty[n % S]; expect the bytes on full[n % S]; the boxes
    else:                                       # the consumer warps: the kernel as written
        setmaxnreg.inc
        each ring loop only waits for full[n % S] and releases empty[n % S]
        block barriers are named barrier 1 over the consumer warps

A kernel qualifies when every loop that would copy with TMA sits in the kernel's top-level
block, or all in the body of one top-level loop over tiles (a persistent kernel: the producer
replays that loop too, and the count runs on from tile to tile), the loops share one ring
geometry, and their bounds and tile indices are pure scalar functions of the kernel's
arguments, block indices and the tile loop's index. The ring lies past every shared-memory
buffer used before and during the loops (the producer fills it from the start; in a tile loop,
past its epilogue's too, with as many stages as fit); code after them may reuse it.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import mlir.ir as ir
from mlir.dialects import arith, gpu, nvvm, scf

from tilelang.dialect import dtype_of
from tilelang.dialect.types import shape_of
from tilelang.errors import TileCompilerExecutionError
from tilelang.layout import wgmma
from tilelang.passes import tma_stores
from tilelang.passes.ir_utils import (
    ACCUMULATOR_MARGIN,
    accumulator_registers,
    defining_op,
    is_pure_scalar,
    kernel_occupancy,
    launch_share,
    name,
    walk_ops,
)
from tilelang.passes.matmul_loops import MatmulLoop
from tilelang.passes.plan_rings import ring_of
from tilelang.passes.simt import tma_ring
from tilelang.passes.simt.addressing import align_up
from tilelang.passes.simt.context import RULES, Lowering, const
from tilelang.passes.simt.stage_copies import CopyPart, matmul_parts
from tilelang.passes.simt.tma_ring import TmaRing
from tilelang.passes.simt.values import i32, i64
from tilelang.passes.staged_loops import StagedLoop
from tilelang.target import target

PRODUCER_WARPS = wgmma.WARPGROUP
MIN_TILE_LOOP_STAGES = 3  # fewer, and the copies run too little ahead to pay
PRODUCER_REGS = 40  # the producer's loop needs few; what CUTLASS gives its producer
# registers a thread needs beside its accumulator at one block an SM for the producer to pay:
# measured (H200, same-run A/B), a GEMM with a bias + GELU epilogue on 128x256 tiles ran
# 4-14% faster without the producer, the plain GEMM as fast; 128x128 tiles and attention's
# 128x128 blocks (64-register accumulators) gain from it. Measured again since the ptxas
# command assembles setmaxnreg kernels (twenty-fourth session, H200, alternating processes,
# this rule against the producer forced): inline GELU 594 / 600 -> 583 / 601 TFLOP/s at
# 4096^3 and 506 / 524 -> 498 / 509 at 256x14336x4096, the persistent spelling 629 / 631 ->
# 638 / 647 at 8192^3: within 2% either way, so the rule stays
EPILOGUE_REGISTERS = 64
CONSUMER_BARRIER = 1  # named barrier id of the consumer warps (0 is the block's)


@dataclass(frozen=True)
class RingLoop:
    """A loop whose tiles TMA copies: its ring geometry and what the producer replays."""

    loop: ir.Operation
    parts: tuple[CopyPart, ...]
    index_ops: tuple[ir.Operation, ...]
    stages: int
    stage_bytes: int
    after_bytes: int  # the region after the ring (a staged loop's once-copied operands)
    outer: tuple[ir.Operation, ...] = ()  # scalar ops its bounds and indices need (top-level,
    # or in a tile loop its body's), lowered again by the producer before the loop

    @property
    def geometry(self) -> tuple[int, int, int]:
        return self.stages, self.stage_bytes, self.after_bytes


def ring_loop(plan: MatmulLoop | StagedLoop) -> RingLoop:
    parts: tuple[CopyPart, ...]
    if isinstance(plan, MatmulLoop):
        parts = tuple(matmul_parts(plan))
        return RingLoop(plan.loop, parts, plan.index_ops, plan.stages, plan.stage_bytes,
                        plan.scratch_bytes)
    parts = tuple(CopyPart(o.load, o.operand, o.offset) for o in plan.operands)
    return RingLoop(plan.loop, parts, plan.index_ops, plan.stages, plan.stage_bytes,
                    plan.once_bytes)


@dataclass
class Specialized:
    """The kernel's producer plan, and the consumers' progress through its loops."""

    loops: list[RingLoop]
    num_warps: int
    tile_loop: ir.Operation | None = None  # the top-level loop the ring loops sit in, if any
    top: tuple[ir.Operation, ...] = ()  # top-level scalar ops the producer lowers first
    offset: ir.Value | None = None  # the ring's byte offset: a constant set after the loops
    count: ir.Value | None = None  # the consumers' iterations so far (None: 0)
    done: int = 0
    consumer: ir.Operation | None = field(default=None, repr=False)  # the scf.if
    once: tuple[tuple, ir.Value] | None = None  # the last loop's once-copied tiles, and
    # whether they are in shared memory (it had iterations, or one before it did)
    registers: tuple[int, int] = (0, 0)  # (consumer, producer) after setmaxnreg; 0: none
    producer_warps: int = PRODUCER_WARPS  # 1 at more than one block an SM (plan)

    def copied_once(self, operands: tuple) -> ir.Value | None:
        """Whether these once-copied tiles are in shared memory already (None: not known; in a
        tile loop the same load reads another tile each time)."""
        if self.tile_loop is not None or self.once is None or \
                self.once[0] != _once_key(operands):
            return None
        return self.once[1]

    def record_once(self, operands: tuple, lb: ir.Value, ub: ir.Value) -> None:
        ran = arith.cmpi(arith.CmpIPredicate.slt, lb, ub)
        copied = self.copied_once(operands)
        self.once = (_once_key(operands),
                     ran if copied is None else arith.ori(copied, ran))

    @property
    def threads(self) -> int:
        return 32 * (self.num_warps + self.producer_warps)

    def ring(self, lw: Lowering, loop: RingLoop, producer: ir.Value | None = None) -> TmaRing:
        return TmaRing(lw, loop.loop, list(loop.parts), loop.index_ops, loop.stage_bytes,
                       loop.stages, self.offset, after_bytes=loop.after_bytes,
                       producer=producer)

    def next_loop(self, loop: ir.Operation) -> RingLoop:
        found = self.loops[self.done]
        assert found.loop == loop, "ring loops are lowered in program order"
        return found

    def start_count(self) -> ir.Value:
        return self.count if self.count is not None else const(i32(), 0)

    def finish_loop(self, lw: Lowering, ring: TmaRing, count: ir.Value) -> None:
        """After a consumer loop: its count runs on; after the last, the ring's place is
        settled (past every buffer used so far) and its barriers are invalidated."""
        self.count, self.done = count, self.done + 1
        gpu.barrier()  # every consumer is past its last wait (a once-copied operand is free)
        if self.done == len(self.loops) and self.tile_loop is None:
            self.settle(lw, ring)

    def settle(self, lw: Lowering, ring: TmaRing) -> None:
        """After the last ring loop (or the tile loop around them): the ring lies past every
        buffer used so far; its barriers are invalidated (the memory may serve others now)."""
        loop = self.loops[-1]
        offset = align_up(lw.shared_bytes)
        assert self.offset is not None, "set at the kernel's entry (begin)"
        self.offset.owner.attributes["value"] = ir.IntegerAttr.get(i64(), offset)
        lw.need_shared(offset + loop.stages * loop.stage_bytes + loop.after_bytes +
                       tma_ring.barrier_bytes(loop.stages))
        ring.invalidate()
        gpu.barrier()


def _once_key(operands: tuple) -> tuple:
    return tuple((o.load, o.operand, o.offset) for o in operands)


def plan(kernel: ir.Operation, chip: str, num_warps: int) -> Specialized | None:
    """The producer plan of `kernel` as tile-specialize-warps decides it, or None when it does
    not qualify: whole warpgroups, one ring geometry, in a tile loop enough stages past the
    loop's other buffers, and (at more than one block an SM) registers for the consumers'
    accumulators after setmaxnreg."""
    if num_warps % wgmma.WARPGROUP:
        return None
    spec = structure(kernel, chip, num_warps)
    if spec is None or len({loop.geometry for loop in spec.loops}) != 1:
        return None
    if spec.tile_loop is not None:  # the tile loop's own buffers (the epilogue's) stay clear
        stages = _stages_past(kernel, spec.loops[0], chip)
        if stages < MIN_TILE_LOOP_STAGES:
            return None
        spec.loops = [dataclasses.replace(loop, stages=min(loop.stages, stages))
                      for loop in spec.loops]
    # ptxas compiles every warp's code under the launch's share of the register file (it does
    # not raise it past a setmaxnreg.inc), so the producer's warps lower every thread's cap
    occupancy = kernel_occupancy(kernel)
    accumulator = accumulator_registers(kernel, 32 * num_warps)
    if occupancy > 1:  # a producer warp, and no setmaxnreg (_registers)
        spec.producer_warps = 1
        if launch_share(spec.threads, occupancy) < accumulator + ACCUMULATOR_MARGIN:
            return None  # the blocks' registers cannot hold the consumers' accumulators
        return spec
    if launch_share(spec.threads, 1) < accumulator + EPILOGUE_REGISTERS:
        return None  # e.g. 128x256 over 8 warps: 128 of 168 registers, against 255 without
    spec.registers = _registers(spec)
    return spec


def specialized(kernel: ir.Operation, chip: str, num_warps: int, stages: int,
                registers: tuple[int, int], producer_warps: int = PRODUCER_WARPS
                ) -> Specialized:
    """The producer plan the lowering builds from tile-specialize-warps's decision: the ring
    loops (tile-plan-rings's TMA rings) all with `stages` stages, (consumer, producer)
    registers per thread after setmaxnreg ((0, 0): none), and the producer's warps."""
    spec = structure(kernel, chip, num_warps)
    if spec is None or len({loop.geometry[1:] for loop in spec.loops}) != 1:
        raise TileCompilerExecutionError(
            "the kernel is marked warp-specialized, but its TMA ring loops do not share one "
            "ring the producer warpgroup can fill (simt/warp_specialize.py)")
    spec.loops = [dataclasses.replace(loop, stages=stages) for loop in spec.loops]
    spec.registers, spec.producer_warps = registers, producer_warps
    return spec


def structure(kernel: ir.Operation, chip: str, num_warps: int) -> Specialized | None:
    """What a producer replays: the loops TMA fills (in order), all in the kernel's top-level
    block or all in one top-level loop over tiles, with the pure scalar ops their bounds and
    tile indices need; None when they are not so."""
    found = [ring.plan for op in walk_ops(kernel)
             if (ring := ring_of(op, chip, num_warps)) is not None and ring.tma]
    if not found or len({p.loop.parent for p in found}) != 1:
        return None
    parent = found[0].loop.parent
    tile_loop = None if parent == kernel else parent  # a persistent kernel's loop over tiles
    if tile_loop is not None and (name(tile_loop) != "scf.for" or tile_loop.parent != kernel):
        return None
    top: list[ir.Operation] = []
    scope = _Scope(kernel, tile_loop)
    if tile_loop is not None and not all(scope.slice(v, top, None)
                                         for v in list(tile_loop.operands)[:3]):
        return None
    loops: list[RingLoop] = []
    for found_plan in found:
        loop = ring_loop(found_plan)
        inner: list[ir.Operation] = []
        known = len(top)
        if not all(scope.slice(v, top, inner) for v in _needs(loop)):
            return None
        # what the producer lowers before this loop: the tile loop's body ops, or (no tile
        # loop) the top-level ops the loops before did not need
        loops.append(dataclasses.replace(loop, outer=tuple(inner if tile_loop else top[known:])))
    return Specialized(loops, num_warps, tile_loop, tuple(top) if tile_loop else ())


def _stages_past(kernel: ir.Operation, loop: RingLoop, chip: str) -> int:
    """The stages that fit past the kernel's other shared-memory buffers: its layout
    conversions and TMA stores, one at a time, each as big as its tile (those inside the ring
    loops too, which errs on the safe side)."""
    scratch = 0
    for op in walk_ops(kernel):
        if name(op) == "tile.convert_layout":
            t = op.results[0].type
            scratch = max(scratch, math.prod(shape_of(t)) * dtype_of(t).itemsize)
        elif name(op) == "tile.store" and tma_stores.STORE_ATTR in op.attributes:
            scratch = max(scratch, tma_stores.shared_bytes(op))
    offset = align_up(scratch)
    limit = target(chip).shared_for(kernel_occupancy(kernel)) - offset - \
        loop.after_bytes
    return limit // (loop.stage_bytes + tma_ring.barrier_bytes(1))


def _needs(loop: RingLoop) -> list[ir.Value]:
    """The values from before `loop` that its bounds and tile indices read."""
    lb, ub, step = list(loop.loop.operands)[:3]
    values = [lb, ub, step]
    for op in loop.index_ops:
        values += list(op.operands)
    for part in loop.parts:
        values += list(part.load.operands)[1:]
    body = loop.loop.regions[0].blocks[0]
    inside = set(loop.index_ops)
    return [v for v in values if v.owner != body and defining_op(v) not in inside]


class _Scope:
    """Where the values a producer needs may come from: the kernel's arguments and top-level
    scalar ops, and in a tile loop its induction variable and the scalar ops of its body."""

    def __init__(self, kernel: ir.Operation, tile_loop: ir.Operation | None):
        self.kernel, self.tile_loop = kernel, tile_loop

    def slice(self, value: ir.Value, top: list[ir.Operation],
              inner: list[ir.Operation] | None) -> bool:
        """Collect the ops computing `value` (each after its operands) into `top` (top-level)
        or `inner` (the tile loop's body); False if one is not a pure scalar tile op or the
        value is carried by the tile loop."""
        op = defining_op(value)
        if op is None:
            if value.owner == self.kernel.regions[0].blocks[0]:
                return True  # a kernel argument
            if self.tile_loop is None or inner is None:
                return False
            body = self.tile_loop.regions[0].blocks[0]
            return value.owner == body and value == body.arguments[0]
        if op.parent == self.kernel:
            into = top
        elif inner is not None and self.tile_loop is not None and op.parent == self.tile_loop:
            into = inner
        else:
            return False
        if op in into:
            return True
        if not is_pure_scalar(op) or not all(self.slice(v, top, inner) for v in op.operands):
            return False
        into.append(op)
        return True


def begin(lw: Lowering, spec: Specialized) -> ir.Block:
    """At the kernel's entry: initialize the ring, split the warps, emit the producer; returns
    the block the consumers' code (the kernel's body) goes into."""
    spec.offset = arith.constant(i64(), 0)
    first = spec.ring(lw, spec.loops[0])
    # no shared memory was written yet: the barriers need no proxy fence before them
    first.init()
    gpu.barrier()  # every warp, the producer's too
    producer = arith.cmpi(arith.CmpIPredicate.sge, lw.thread_index("warp"),
                          const(i32(), spec.num_warps))
    branch = scf.IfOp(producer, [], has_else=True)
    consumer_regs, producer_regs = spec.registers
    with ir.InsertionPoint(branch.then_block):
        if consumer_regs:
            nvvm.SetMaxRegisterOp(producer_regs, "decrease")
        leader = arith.andi(
            arith.cmpi(arith.CmpIPredicate.eq, lw.thread_index("warp"),
                       const(i32(), spec.num_warps)),
            arith.cmpi(arith.CmpIPredicate.eq, lw.thread_index("lane"), const(i32(), 0)))
        inner = scf.IfOp(leader, [], has_else=False)
        with ir.InsertionPoint(inner.then_block):
            _produce(lw, spec)
            scf.YieldOp([])
        scf.YieldOp([])
    consumer = branch.else_block
    with ir.InsertionPoint(consumer):
        if consumer_regs:
            nvvm.SetMaxRegisterOp(consumer_regs, "increase")
    spec.consumer = branch.operation
    return consumer


def _produce(lw: Lowering, spec: Specialized) -> None:
    """The producer thread: every iteration of every ring loop, in order (in a tile loop, for
    each of its iterations)."""
    count = const(i32(), 0)
    if spec.tile_loop is None:
        _produce_loops(lw, spec, count)
        return
    _lower_again(lw, spec.top)
    lb, ub, step = (lw.get(v) for v in list(spec.tile_loop.operands)[:3])
    tiles = scf.ForOp(lb, ub, step, [count])
    with ir.InsertionPoint(tiles.body):
        lw.set(spec.tile_loop.regions[0].blocks[0].arguments[0], tiles.induction_variable)
        scf.YieldOp([_produce_loops(lw, spec, tiles.inner_iter_args[0])])


def _produce_loops(lw: Lowering, spec: Specialized, count: ir.Value) -> ir.Value:
    true = arith.constant(ir.IntegerType.get_signless(1), 1)
    for loop in spec.loops:
        _lower_again(lw, loop.outer)
        lb, ub, step = (lw.get(v) for v in list(loop.loop.operands)[:3])
        ring = spec.ring(lw, loop, producer=true)
        for_op = scf.ForOp(lb, ub, step, [count])
        with ir.InsertionPoint(for_op.body):
            iv, (n,) = for_op.induction_variable, list(for_op.inner_iter_args)
            ring.produce(iv, ub, n, refill=True)
            scf.YieldOp([arith.addi(n, const(i32(), 1))])
        count = for_op.results[0]
    return count


def _lower_again(lw: Lowering, ops: tuple[ir.Operation, ...]) -> None:
    """Scalar ops the consumers lower too, lowered here for the producer (their values are
    rebound to these until the consumers' own lowering reaches them)."""
    for op in ops:
        with op.location:
            RULES[name(op)](lw, op)


def end(lw: Lowering, spec: Specialized) -> None:
    """After the consumers' code: close their branch; their block barriers become named
    barriers that the producer warps do not take part in."""
    assert spec.consumer is not None, "set when the warps were split (begin)"
    with ir.InsertionPoint(spec.consumer.regions[1].blocks[0]):
        scf.YieldOp([])
    assert spec.done == len(spec.loops), "every ring loop was lowered"
    # the producer's branch has none
    barriers = [op for op in walk_ops(spec.consumer) if name(op) == "gpu.barrier"]
    for op in barriers:
        with ir.InsertionPoint(op), op.location:
            nvvm.BarrierOp(None, barrierId=const(i32(), CONSUMER_BARRIER),
                           numberOfThreads=const(i32(), 32 * spec.num_warps))
        op.erase()


def _registers(spec: Specialized) -> tuple[int, int]:
    """(consumer, producer) registers per thread after setmaxnreg, or (0, 0) when the
    launch's own share is as many as the consumers could get."""
    return setmaxnreg_split(spec.num_warps, spec.producer_warps, PRODUCER_REGS)


def setmaxnreg_split(consumer_warps: int, producer_warps: int,
                     producer: int) -> tuple[int, int]:
    """(consumer, producer) registers a thread after setmaxnreg, or (0, 0) when the consumers
    would gain none. setmaxnreg moves registers within the block's launch allocation (the
    launch's share a thread, launch_share), not the SM's register file: a consumer warp's
    `inc` waits until the producer's `dec` has freed what it asks for, so asking for more than
    the allocation holds waits forever (a hang, found with a producer keeping 96 registers
    of 8 consumer warps' 168: 200 fit, the file's 65536 would have said 208)."""
    threads = 32 * (consumer_warps + producer_warps)
    share = launch_share(threads, 1)
    consumer = (share * threads - 32 * producer_warps * producer) // (32 * consumer_warps)
    consumer = min(255, consumer) // 8 * 8
    return (consumer, producer) if consumer > share else (0, 0)
