"""Passes (simt): warp shuffles of any scalar type, and typed views of the shared scratch buffer."""

from __future__ import annotations

import mlir.ir as ir
from mlir.dialects import arith, gpu, llvm

from tilelang.layout import LaneShuffle, LinearLayout, register_representatives
from tilelang.passes.simt.addressing import SHARED_SYMBOL, gep
from tilelang.passes.simt.context import Lowering, const
from tilelang.passes.simt.values import i32, i64

SHUFFLE_MODES = {"xor": gpu.ShuffleMode.XOR, "up": gpu.ShuffleMode.UP,
                 "down": gpu.ShuffleMode.DOWN, "idx": gpu.ShuffleMode.IDX}


def shuffle(value: ir.Value, offset: int | ir.Value, mode: str, width: int = 32) -> ir.Value:
    """`shfl.sync` of a scalar of any type: narrower ones travel as i32, 64-bit ones in halves.

    `width` < 32 makes only the first `width` lanes take part (MLIR's meaning, not segments).
    """
    t = value.type
    bits = _bit_width(t)
    as_int = value if isinstance(t, ir.IntegerType) else arith.bitcast(_int(bits), value)
    if bits == 64:
        low = _shuffle32(arith.trunci(i32(), as_int), offset, mode, width)
        high = _shuffle32(arith.trunci(i32(), arith.shrui(as_int, const(i64(), 32))), offset,
                          mode, width)
        wide = arith.ori(arith.extui(i64(), low),
                         arith.shli(arith.extui(i64(), high), const(i64(), 32)))
        return wide if isinstance(t, ir.IntegerType) else arith.bitcast(t, wide)
    word = as_int if bits == 32 else arith.extui(i32(), as_int)
    moved = _shuffle32(word, offset, mode, width)
    narrow = moved if bits == 32 else arith.trunci(_int(bits), moved)
    return narrow if isinstance(t, ir.IntegerType) else arith.bitcast(t, narrow)


def convert_by_shuffles(lw: Lowering, regs: tuple[ir.Value, ...], plan: LaneShuffle,
                        layout: LinearLayout) -> list[ir.Value]:
    """The registers of a layout conversion that stays inside warps (`plan`): dst register r
    of lane l is src register A.r ^ B.l of lane C.r ^ D.l. One `shfl.sync.idx` per dst register
    and per value B.l takes (the reader keeps its own with a select); none when every lane
    reads itself. A dst register repeating an earlier one's element (a broadcast operand's
    layout) copies it: shuffles are not merged by later passes."""
    lane = lw.thread_index("lane")
    lane_part = _gf2_apply(lane, plan.d)  # D.l
    choices = plan.register_choices()
    chosen = _gf2_apply(lane, plan.b) if len(choices) > 1 else None  # B.l
    out: list[ir.Value] = []
    for r, first in enumerate(register_representatives(layout)):
        if first != r:
            out.append(out[first])
            continue
        src_reg, src_lane = plan.source(r, 0)  # A.r and C.r
        if plan.reads_own_lane(r):
            out.append(regs[src_reg])
            continue
        from_lane = arith.xori(lane_part, const(i32(), src_lane)) if src_lane else lane_part
        value = None
        for v in choices:
            moved = shuffle(regs[src_reg ^ v], from_lane, "idx")
            if value is None:
                value = moved
            else:
                mine = arith.cmpi(arith.CmpIPredicate.eq, chosen, const(i32(), v))
                value = arith.select(mine, moved, value)
        out.append(value)
    return out


def _gf2_apply(lane: ir.Value, columns: tuple[int, ...]) -> ir.Value:
    """XOR of the columns selected by the set bits of `lane` (i32), computed per thread."""
    if columns == tuple(1 << k for k in range(len(columns))):
        return lane
    acc = const(i32(), 0)
    for k, column in enumerate(columns):
        if column:
            bit = arith.andi(arith.shrui(lane, const(i32(), k)), const(i32(), 1))
            acc = arith.xori(acc, arith.muli(bit, const(i32(), column)))
    return acc


def _shuffle32(word: ir.Value, offset: int | ir.Value, mode: str, width: int) -> ir.Value:
    if isinstance(offset, int):
        offset = const(i32(), offset)
    return gpu.shuffle(word, offset, const(i32(), width), SHUFFLE_MODES[mode])[0]


def _bit_width(t: ir.Type) -> int:
    if isinstance(t, ir.IntegerType):
        return t.width
    return {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}[str(t)]


def _int(bits: int) -> ir.Type:
    return ir.IntegerType.get_signless(bits)


# ----- shared memory ----------------------------------------------------------------------------


class Scratch:
    """Typed arrays carved out of the kernel's shared buffer, one after another (16-byte aligned).

    The buffer is shared by every op that needs one; call `reserve` for each array, then
    `lw.need_shared(scratch.size)` once (Lowering records the largest size).
    """

    def __init__(self) -> None:
        self.size = 0

    def reserve(self, count: int, elem: ir.Type, elem_bytes: int) -> tuple[int, ir.Type]:
        start = (self.size + 15) // 16 * 16
        self.size = start + count * elem_bytes
        return start, elem

    def pointer(self, lw: Lowering, array: tuple[int, ir.Type], index: ir.Value) -> ir.Value:
        """Address of element `index` (i64) of a reserved array."""
        start, elem = array
        base = llvm.AddressOfOp(ir.Type.parse("!llvm.ptr<3>"), SHARED_SYMBOL).result
        byte = gep(base, const(i64(), start), _int(8))
        return gep(byte, index, elem)

