"""Passes (simt): a ring of shared-memory stages filled by TMA boxes (simt/tma.py), handed
between thread 0, which fills them, and the warpgroups, which read them with wgmma, through
two mbarriers per stage:

- `full[s]`: one arrival, thread 0's, announcing the stage's bytes; its phase completes when
  they have all landed. Readers wait for it with the parity of the stage's use (count // S).
- `empty[s]`: one arrival per warpgroup, once its last wgmma reading the stage has retired.
  Thread 0 waits for it before refilling the stage (on a fresh barrier the wait for the
  phase "before the first" passes at once, so the first fills need no special case).

The stages start at a 1024-byte boundary (the swizzle atoms); the barriers follow the stages
and whatever the caller places after them (`after_bytes`). Used by simt/tma_matmul.py (K loops)
and simt/staged_loop.py (loops with more work between their products).
"""

from __future__ import annotations

import mlir.ir as ir
from mlir.dialects import arith, llvm, nvvm, scf

from tilelang.layout import wgmma
from tilelang.passes.simt import tma
from tilelang.passes.simt.context import Lowering, const
from tilelang.passes.simt.shapes import shared_base
from tilelang.passes.simt.stage_copies import CopyPart, lower_indices_at
from tilelang.passes.simt.values import i32, i64

BARRIER_BYTES = 8


def barrier_bytes(stages: int) -> int:
    return 2 * BARRIER_BYTES * stages


class TmaRing:
    """`stages` stages of `stage_bytes`, each holding `parts` (the loads of one iteration of
    `loop`, whose indices `index_ops` compute), `base_offset` bytes into the shared buffer."""

    def __init__(self, lw: Lowering, loop: ir.Operation, parts: list[CopyPart],
                 index_ops: tuple[ir.Operation, ...], stage_bytes: int, stages: int,
                 base_offset: ir.Value | None = None, after_bytes: int = 0,
                 producer: ir.Value | None = None):
        self.lw, self.loop, self.parts = lw, loop, parts
        self.index_ops, self.stage_bytes, self.stages = index_ops, stage_bytes, stages
        smem = llvm.ptrtoint(i64(), shared_base())
        if base_offset is not None:  # past the buffer's other users
            smem = arith.addi(smem, base_offset)
        self.base = arith.andi(arith.addi(smem, const(i64(), 1023)), const(i64(), ~1023))
        self.barriers = arith.addi(self.base, const(i64(), stages * stage_bytes + after_bytes))
        warp, lane = lw.thread_index("warp"), lw.thread_index("lane")
        tid = arith.addi(arith.muli(warp, const(i32(), 32)), lane)
        zero = const(i32(), 0)
        self.thread0 = arith.cmpi(arith.CmpIPredicate.eq, tid, zero)
        # thread 0, unless a producer warp of its own issues the boxes (simt/warp_specialize)
        self.is_producer = self.thread0 if producer is None else producer
        in_group = arith.andi(tid, const(i32(), 32 * wgmma.WARPGROUP - 1))
        self.is_group_leader = arith.cmpi(arith.CmpIPredicate.eq, in_group, zero)
        self.maps = [tma.tensor_map_of(lw, p.load.operands[0], _panel_elems(p.operand),
                                       p.operand.rows) for p in parts]

    @property
    def bytes(self) -> int:
        """The stages' bytes (the barriers come after `after_bytes` more)."""
        return self.stages * self.stage_bytes

    def stage(self, slot: ir.Value) -> ir.Value:
        offset = arith.muli(arith.extui(i64(), slot), const(i64(), self.stage_bytes))
        return arith.addi(self.base, offset)

    def slot(self, count: ir.Value) -> ir.Value:
        return arith.remui(count, const(i32(), self.stages))

    def barrier(self, kind: int, slot: ir.Value) -> ir.Value:
        """full (kind 0) or empty (kind 1) barrier of stage `slot`."""
        index = arith.addi(arith.muli(slot, const(i32(), 2)), const(i32(), kind))
        at = arith.muli(arith.extui(i64(), index), const(i64(), BARRIER_BYTES))
        return tma.shared_pointer(arith.addi(self.barriers, at))

    def init(self) -> None:
        """Thread 0 initializes the barriers (a block barrier must follow before any use)."""
        groups = self.lw.num_warps // wgmma.WARPGROUP
        with ir.InsertionPoint(_then(self.thread0)):
            for s in range(self.stages):
                tma.barrier_init(self.barrier(0, const(i32(), s)), 1)
                tma.barrier_init(self.barrier(1, const(i32(), s)), groups)
            nvvm.FenceMbarrierInitOp()
            scf.YieldOp([])

    def invalidate(self) -> None:
        """After a block barrier that every thread reaches past its last wait (thread 0)."""
        with ir.InsertionPoint(_then(self.thread0)):
            for s in range(self.stages):
                for kind in (0, 1):
                    tma.invalidate(self.barrier(kind, const(i32(), s)))
            scf.YieldOp([])

    def wait_full(self, count: ir.Value) -> ir.Value:
        """Wait until the `count`-th iteration's stage has landed; returns its address."""
        slot = self.slot(count)
        tma.wait(self.barrier(0, slot), tma.parity(count, self.stages))
        return self.stage(slot)

    def release(self, count: ir.Value, when: ir.Value | None = None) -> None:
        """This warpgroup is done with the `count`-th iteration's stage (if `when`)."""
        cond = self.is_group_leader if when is None else arith.andi(self.is_group_leader, when)
        with ir.InsertionPoint(_then(cond)):
            tma.arrive(self.barrier(1, self.slot(count)))
            scf.YieldOp([])

    def produce(self, iv: ir.Value, ub: ir.Value, count: ir.Value, refill: bool) -> None:
        """Thread 0 issues iteration `iv` (the `count`-th) into its stage when it is before
        `ub`; `refill`: first wait until the stage's previous use is over."""
        live = arith.andi(self.is_producer, arith.cmpi(arith.CmpIPredicate.slt, iv, ub))
        with ir.InsertionPoint(_then(live)):
            slot = self.slot(count)
            if refill:  # the parity of the previous use (see the module doc)
                previous = arith.xori(tma.parity(count, self.stages), const(i32(), 1))
                tma.wait(self.barrier(1, slot), previous)
            full = self.barrier(0, slot)
            tma.arrive_expect_bytes(full, self.stage_bytes)
            self._boxes(iv, self.stage(slot), full)
            scf.YieldOp([])

    def _boxes(self, iv: ir.Value, stage: ir.Value, full: ir.Value) -> None:
        lower_indices_at(self.lw, self.loop, self.index_ops, iv)
        for part, desc in zip(self.parts, self.maps, strict=True):
            index = [_i32(self.lw.get(v)) for v in list(part.load.operands)[1:]]
            if part.swapped:
                index.reverse()  # (k, n) tile index of an (N, K) array: rows n, columns k
            op = part.operand
            row = arith.muli(index[-2], const(i32(), op.rows))
            col = arith.muli(index[-1], const(i32(), op.cols))
            outer = list(reversed(index[:-2]))  # unit tile dimensions: element indices
            per_panel = _panel_elems(op)
            for p in range(op.cols // per_panel):
                dst = arith.addi(stage, const(i64(), part.offset + p * op.rows * wgmma.ROW_BYTES))
                at = [arith.addi(col, const(i32(), p * per_panel)), row, *outer]
                tma.copy_box(dst, desc, at, full)


def _then(cond: ir.Value) -> ir.Block:
    return scf.IfOp(cond, [], has_else=False).then_block


def _panel_elems(op: wgmma.Operand) -> int:
    return tma.BOX_ROW_BYTES // op.itemsize


def _i32(value: ir.Value) -> ir.Value:
    return value if value.type == i32() else arith.trunci(i32(), value)
