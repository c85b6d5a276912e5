"""Passes (simt): the wgmma engine of a staged matrix-product loop (simt/staged_matmul.py) on
sm_90a: per stage, `wgmma.mma_async.m64nBNk16` reads A and B through matrix descriptors (K- or
M-major A, N- or K-major B, 128-byte swizzle: layout/wgmma.py), BK / 16 instructions per 64
rows of each warpgroup; the accumulator is carried as the struct wgmma updates in place, and
each iteration waits until only its own wgmma runs. 8-bit B given (K, N) is first transposed by
the block into a K-major copy past the ring (MatmulLoop.b_transposed_here), then a block
barrier.
"""

from __future__ import annotations

from collections.abc import Sequence

import mlir.ir as ir
from mlir.dialects import arith, gpu, llvm, nvvm

from tilelang import settings
from tilelang.dialect import dtype_of
from tilelang.layout import wgmma
from tilelang.passes.matmul_loops import TRANSPOSED_SLOTS, MatmulLoop
from tilelang.passes.simt.byte_transpose import transpose_bytes
from tilelang.passes.simt.context import Lowering, const
from tilelang.passes.simt.values import i32, i64

PROMOTED_COLUMNS = 128  # of one 64-row block: 64 registers a thread
assert TRANSPOSED_SLOTS == 2, "the paired loop's last iteration restarts the copies' turns"
# an overlapped promotion holds two stages' products beside the accumulator: at most this many
# accumulator registers a thread (3 x 64 and the loop's addresses fit under 255)
OVERLAPPED_ACCUMULATOR = 64


class WgmmaEngine:
    """Carries the accumulator as wgmma's structs, or for 8-bit inputs (`promote`) as plain
    float32 registers: wgmma accumulates 8-bit products with about 14 bits of mantissa
    (cuBLAS's "fast accumulation"), which over K = 2560 positive products loses 4%, so each
    stage's products start from zero and are added to the float32 accumulator once they
    retire (cuBLAS's default; a stage of BK = 128 is CUTLASS's promotion interval). The adds
    follow a wait for the stage's own wgmma: ptxas serializes every wgmma of a kernel when
    registers a wgmma may still write are read before a wait it can see covers them (a
    stage's products carried to the next iteration and added there, after its waits, were).
    TILELANG_FP8_ACCUMULATION=fast leaves the accumulation to wgmma.

    When a warpgroup's accumulator is one 64-row block of at most 128 columns, the promotion
    is *overlapped*: each iteration starts its stage's products in one of two sets of
    registers, adds the stage before's (in the other set, retired by the iteration before) while
    they run, then waits for them. ptxas follows which registers a wgmma may still write only
    within an iteration: reading one stage's products after a wait that leaves the next
    running (wait_group 1) serialized every wgmma of the kernel when the loop carried them
    across its back edge, so each iteration still ends with nothing in flight. The driver runs
    two iterations a trip (`unroll`, simt/paired_loop.py) so that the sets keep their
    registers."""

    def __init__(self, lw: Lowering, plan: MatmulLoop):
        self.lw, self.plan = lw, plan
        self.ahead = plan.stages - 2
        self.layout = wgmma.accumulator_layout(plan.bm, plan.bn, lw.num_warps)
        self.per_struct = plan.bn // 2
        self.promote = plan.itemsize == 1 and not settings.fp8_fast_accumulation()
        self.scratch: ir.Value | None = None  # B's transposed copies (MatmulLoop.scratch_bytes)
        self.overlap = self.promote and overlaps_promotion(plan, lw.num_warps)
        self.unroll = 2 if self.overlap else 1  # iterations a trip the driver runs
        self.nothing_before: ir.Value | None = None  # carry's products of no stage

    def use_scratch(self, address: ir.Value) -> None:
        self.scratch = address

    def carry(self, regs: tuple[ir.Value, ...]) -> list[ir.Value]:
        """[the accumulator (registers, or structs), the slot of B's next transposed copy when
        it has one]."""
        n = self.per_struct
        carried = list(regs) if self.promote else [pack_struct(regs[i:i + n])
                                                   for i in range(0, len(regs), n)]
        if self.overlap:  # [the stage before's products: none yet, the free set]
            self.nothing_before = pack_struct([const(ir.F32Type.get(), 0.0)] * n)
            carried += [self.nothing_before] * 2
            # nothing runs (the wait is free), but without it ptxas takes wgmma of the loop to
            # be running at its entry, and waits for them before the first iteration's adds
            nvvm.WgmmaWaitGroupSyncOp(0)
        return carried + ([const(i32(), 0)] if self.plan.b_transposed_here else [])

    def multiply(self, stage: ir.Value, carried: list[ir.Value]) -> list[ir.Value]:
        plan = self.plan
        slot = carried[-1] if plan.b_transposed_here else None
        accs = carried[:-1] if slot is not None else carried
        b_base = arith.addi(stage, const(i64(), plan.a.bytes))
        if slot is not None:
            assert self.scratch is not None, "the loop's lowering places the transposed copies"
            copy = arith.addi(self.scratch, arith.muli(arith.extui(i64(), slot),
                                                       const(i64(), plan.b_read.bytes)))
            transpose_bytes(self.lw, b_base, plan.b, copy, plan.b_read)
            # written through the generic proxy, read by wgmma through the async one
            nvvm.FenceProxyOp(ir.Attribute.parse("#nvvm.proxy_kind<async.shared>"),
                              space=ir.Attribute.parse("#nvvm.shared_space<cta>"))
            gpu.barrier()
            b_base = copy
        if self.overlap:
            accs = self._overlapped(stage, b_base, accs)
        elif self.promote:
            accs = self._promoted(stage, b_base, accs)
        else:  # B's transposed copies are reused two iterations on (matmul_loops.py)
            accs = _multiply(self.lw, plan, stage, b_base, accs,
                             in_flight=0 if slot is not None else 1)
        if slot is None:
            return accs
        last = arith.cmpi(arith.CmpIPredicate.eq, slot, const(i32(), TRANSPOSED_SLOTS - 1))
        return [*accs, arith.select(last, const(i32(), 0), arith.addi(slot, const(i32(), 1)))]

    def finish(self, carried: list[ir.Value]) -> list[ir.Value]:
        nvvm.WgmmaWaitGroupSyncOp(0)
        accs = carried[:-1] if self.plan.b_transposed_here else carried
        if self.overlap:
            *regs, last, _ = accs
            return _added(regs, last)
        return accs if self.promote else self._values(accs)

    def _overlapped(self, stage: ir.Value, b_base: ir.Value,
                    carried: list[ir.Value]) -> list[ir.Value]:
        """Starts this stage's products (from zero, in the free set's registers), adds the
        stage before's while they run, and waits for them: [accumulator registers, these
        products, the stage before's set, now free]."""
        *regs, previous, free = carried
        (products,) = _multiply(self.lw, self.plan, stage, b_base, [free], in_flight=None,
                                fresh=True)
        # the iteration after a carry adds nothing: read there, registers a wgmma of the loop
        # wrote (zeros, coalesced) made ptxas wait for wgmma in a branch, serializing them all
        if previous != self.nothing_before:
            regs = _pinned(_added(regs, previous))
        nvvm.WgmmaWaitGroupSyncOp(0)
        return [*regs, products, previous]

    def _promoted(self, stage: ir.Value, b_base: ir.Value,
                  regs: list[ir.Value]) -> list[ir.Value]:
        """The stage's products added to the float32 registers `regs`, in pieces of at most
        PROMOTED_COLUMNS columns of one 64-row block: each piece's wgmma start from zero, are
        waited for, then added, so at most 64 more registers hold products (a 128 x 256
        tile's 128 accumulator registers a thread, doubled, spilled)."""
        out = list(regs)
        per_block = self.plan.bn // 2  # registers of a 64-row block
        width = min(self.plan.bn, PROMOTED_COLUMNS)
        for m_block in range(len(regs) // per_block):
            for first in range(0, self.plan.bn, width):
                (piece,) = _multiply(self.lw, self.plan, stage, b_base, [None], in_flight=0,
                                     columns=(first, width), m_block=m_block)
                at = m_block * per_block + first // 2  # 4 registers an 8-column block
                values = [llvm.extractvalue(ir.F32Type.get(), piece, [i])
                          for i in range(width // 2)]
                out[at:at + width // 2] = [arith.addf(r, v) for r, v in
                                           zip(out[at:at + width // 2], values, strict=True)]
        return out

    def _values(self, structs: list[ir.Value]) -> list[ir.Value]:
        return [llvm.extractvalue(ir.F32Type.get(), s, [i]) for s in structs
                for i in range(self.per_struct)]


def overlaps_promotion(plan: MatmulLoop, num_warps: int) -> bool:
    """Whether an 8-bit loop's promotion is overlapped (WgmmaEngine): one 64-row block a
    warpgroup and room for two stages' products beside the accumulator. B given (K, N), whose
    transpose in shared memory takes registers too, only with TMA copies (with cp.async's
    addresses, 52 bytes spilled at 128x128). Its TRANSPOSED_SLOTS = 2 copies take turns with
    the iterations: the paired loop's odd last one, after an even count, starts again from the
    first, as `carry` does."""
    groups = num_warps // wgmma.WARPGROUP
    registers = plan.bm * plan.bn // (32 * num_warps)
    return (plan.bm == wgmma.INSTR_M * groups and registers <= OVERLAPPED_ACCUMULATOR and
            (plan.tma or not plan.b_transposed_here))


def _added(regs: Sequence[ir.Value], products: ir.Value) -> list[ir.Value]:
    """The float32 registers plus the wgmma struct's values, one by one."""
    f32 = ir.F32Type.get()
    return [arith.addf(r, llvm.extractvalue(f32, products, [i])) for i, r in enumerate(regs)]


def _pinned(values: list[ir.Value]) -> list[ir.Value]:
    """`values`, passed through an empty asm statement with side effects: the adds that
    compute them stay before the wait that follows them (overlapping the wgmma) and before
    the next wgmma. Left free, LLVM sinks the first iteration's adds of a trip into the block
    of the second's (their only use), past the wgmma that reuses the registers they read."""
    n = len(values)
    constraints = ",".join(["=f"] * n + [str(i) for i in range(n)])
    pinned = llvm.inline_asm(_struct_type(n), values, "", constraints, has_side_effects=True)
    return [llvm.extractvalue(ir.F32Type.get(), pinned, [i]) for i in range(n)]


def _struct_type(count: int) -> ir.Type:
    return ir.Type.parse("!llvm.struct<({})>".format(", ".join(["f32"] * count)))


def pack_struct(regs: Sequence[ir.Value]) -> ir.Value:
    struct = llvm.UndefOp(_struct_type(len(regs))).result
    for i, r in enumerate(regs):
        struct = llvm.insertvalue(struct, r, [i])
    return struct


# ----- the products ----------------------------------------------------------------------------


def _multiply(lw: Lowering, plan: MatmulLoop, stage: ir.Value, b_base: ir.Value,
              accs: Sequence[ir.Value | None], in_flight: int | None = 1,
              columns: tuple[int, int] | None = None,
              m_block: int | None = None, fresh: bool = False) -> list[ir.Value]:
    """One stage's wgmma instructions for this warpgroup (A from the stage, B at `b_base`),
    then a wait until `in_flight` groups run (this one: 1; None: no wait, the caller's);
    returns the updated accumulators,
    one a 64-row block (None: its products start from zero). `columns` (first, count): only
    those of the accumulator, from a K-major B (rows of B are columns of the product);
    `m_block`: only that 64-row block (`accs` is its one accumulator); `fresh`: the products
    start from zero, written over the registers of `accs`."""
    groups = lw.num_warps // wgmma.WARPGROUP
    rows = plan.bm // groups
    group = arith.shrui(lw.thread_index("warp"), const(i32(), 2))
    a_rows = arith.muli(arith.extui(i64(), group), const(i64(), plan.a.m_offset(rows)))
    a_base = arith.addi(stage, a_rows)
    a_type, b_type = (dtype_of(v.type).name for v in list(plan.mma.operands)[:2])
    kinds = wgmma_kinds(a_type, b_type, plan.b_read.k_major, plan.a.k_major)
    first, n = columns if columns is not None else (0, plan.bn)
    assert columns is None or plan.b_read.k_major, "a column range of a K-major B"
    nvvm.WgmmaFenceAlignedOp()
    out = list(accs)
    descs_a, descs_b = Descriptors(a_base, plan.a), Descriptors(b_base, plan.b_read)
    zero = {**kinds, "scaleD": ir.Attribute.parse("#nvvm.wgmma_scale_out<zero>")}
    blocks = range(len(out)) if m_block is None else [m_block]
    for i, block in enumerate(blocks):
        for k_step in range(plan.bk // wgmma.instr_k(plan.itemsize)):
            desc_a = descs_a.at(plan.a.step_offset(k_step, block))
            desc_b = descs_b.at(plan.b_read.step_offset(k_step) + first * wgmma.ROW_BYTES)
            acc, step_kinds = out[i], kinds
            if acc is None:  # D is not read: its registers' old contents do not matter
                acc, step_kinds = llvm.UndefOp(_struct_type(n // 2)).result, zero
            elif fresh and k_step == 0:
                step_kinds = zero
            out[i] = wgmma_ss(acc, desc_a, desc_b, n, wgmma.instr_k(plan.itemsize),
                              step_kinds)
    nvvm.WgmmaGroupSyncAlignedOp()
    if in_flight is not None:
        nvvm.WgmmaWaitGroupSyncOp(in_flight)
    return out


class Descriptors:
    """The matrix descriptors of one operand at byte offsets from `base` (a shared-memory
    address, 16-byte aligned). The low word (the start address field, bits 0-13: the address
    >> 4, and the leading byte offset) is built once; each offset adds its 16-byte count to it.
    A shared-memory address stays below 256 KB, so the 14-bit field never carries, and the
    high word is a constant: one 32-bit add a descriptor where building each from its address
    took about seven uniform-datapath instructions (a 64-bit add, shift, mask, or and moves;
    110 of attention's 586 instructions a key block)."""

    def __init__(self, base: ir.Value, op: wgmma.Operand):
        bits = op.descriptor_bits()
        start = arith.andi(arith.shrui(base, const(i64(), 4)), const(i64(), 0x3FFF))
        self.low = arith.ori(arith.trunci(i32(), start), const(i32(), bits & 0xFFFF_FFFF))
        self.high = const(i64(), (bits >> 32) << 32)

    def at(self, offset: int) -> ir.Value:
        assert offset % 16 == 0 and offset >= 0, "descriptors address 16-byte units"
        low = arith.addi(self.low, const(i32(), offset >> 4)) if offset else self.low
        return arith.ori(arith.extui(i64(), low), self.high)


WGMMA_TYPES = {"bfloat16": "bf16", "float16": "f16", "float8_e4m3fn": "e4m3",
               "float8_e5m2": "e5m2"}


def wgmma_kinds(a_dtype: str, b_dtype: str, b_k_major: bool,
                a_k_major: bool = True) -> dict[str, ir.Attribute]:
    """The nvvm.wgmma.mma_async attributes for A and B of these dtypes (by name) and
    majorness."""
    type_a, type_b = WGMMA_TYPES[a_dtype], WGMMA_TYPES[b_dtype]

    def attr(text: str) -> ir.Attribute:
        return ir.Attribute.parse(text)

    return {
        "typeA": attr(f"#nvvm.wgmma_type<{type_a}>"),
        "typeB": attr(f"#nvvm.wgmma_type<{type_b}>"),
        "typeD": attr("#nvvm.wgmma_type<f32>"),
        "scaleD": attr("#nvvm.wgmma_scale_out<one>"),
        "scaleA": attr("#nvvm.wgmma_scale_in<one>"),
        "scaleB": attr("#nvvm.wgmma_scale_in<one>"),
        # K-major A is the instruction's plain form; M-major A (a column-major A) transposed
        "layoutA": attr(f"#nvvm.mma_layout<{'row' if a_k_major else 'col'}>"),
        # N-major B is the instruction's transposed form; K-major B (x @ w.T) is not
        "layoutB": attr(f"#nvvm.mma_layout<{'col' if b_k_major else 'row'}>"),
    }


def wgmma_ss(acc: ir.Value, desc_a: ir.Value, desc_b: ir.Value, n: int, k: int,
           kinds: dict[str, ir.Attribute]) -> ir.Value:
    shape = ir.Attribute.parse(f"#nvvm.shape<m = {wgmma.INSTR_M}, n = {n}, k = {k}>")
    return nvvm.WgmmaMmaAsyncOp(acc.type, acc, desc_a, desc_b, shape, **kinds).result
