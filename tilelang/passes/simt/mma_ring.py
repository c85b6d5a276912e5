"""Passes (simt): the mma.sync engine of a staged matrix-product loop (simt/staged_matmul.py),
for sm_80 and later: per 16-deep step of each stage, every warp reads its A fragments with
`ldmatrix.x4` (K-major rows: four 8x8 matrices = one m16k16 fragment; `.trans` when A is given
M-major, its stage's rows of M) and its B fragments with `ldmatrix.x4.trans` (N-major rows: two
n8k16 fragments; plain `ldmatrix.x4` when b is the transpose of a loaded tile, whose rows are
then K-major), then issues one `mma.sync.m16n8k16` per
(16-row, 8-column) piece of its part of the accumulator. The accumulator keeps mma.sync's C
fragment layout (layout/mma.py), with the warps split over M and N as tile-assign-layouts did.
The 128-byte swizzle of the stages makes each ldmatrix conflict-free: the 8 rows one matrix
reads sit in 8 different 16-byte bank groups.
"""

from __future__ import annotations

import mlir.ir as ir
from mlir.dialects import arith, llvm

from tilelang.dialect import dtype_of
from tilelang.language import dtypes as dt
from tilelang.layout.maps import log2_exact
from tilelang.layout.mma import ATOMS, mma_layouts, split_warps
from tilelang.passes.matmul_loops import MatmulLoop
from tilelang.passes.simt.context import Lowering, const
from tilelang.passes.simt.mma import mma_sync_words
from tilelang.passes.simt.stage_copies import chunk_offset
from tilelang.passes.simt.values import i32, i64

ATOM_M, ATOM_N, ATOM_K = 16, 8, 16


class MmaRingEngine:
    def __init__(self, lw: Lowering, plan: MatmulLoop):
        self.lw, self.plan = lw, plan
        self.ahead = plan.stages - 1  # ldmatrix is done with a stage when it retires
        self.unroll = 1
        self.dtype = dtype_of(plan.mma.operands[0].type)
        self.atom = ATOMS["bf16" if self.dtype is dt.bfloat16 else "f16"]
        self.layout = mma_layouts((plan.bm, plan.bk), (plan.bk, plan.bn), self.atom,
                                  lw.num_warps).c
        wm, wn = split_warps(plan.bm, plan.bn, ATOM_M, ATOM_N, lw.num_warps)
        self.per_m, self.per_n = plan.bm // wm, plan.bn // wn
        warp, lane = lw.thread_index("warp"), lw.thread_index("lane")
        warp_m = arith.andi(warp, const(i32(), wm - 1))
        warp_n = arith.andi(arith.shrui(warp, const(i32(), log2_exact(wm, "warps along M"))),
                            const(i32(), wn - 1))
        # lane l addresses row l % 8 of matrix l // 8 (matrices 1 and 3: rows + 8; 2 and 3:
        # the next 8 columns)
        row = arith.addi(arith.andi(lane, const(i32(), 7)),
                         arith.muli(arith.andi(arith.shrui(lane, const(i32(), 3)),
                                               const(i32(), 1)), const(i32(), 8)))
        column = arith.shrui(lane, const(i32(), 4))
        if plan.a_m_major:  # rows of k, chunks of m, .trans: matrices 1 and 3 are m + 8, 2 and
            # 3 are k + 8 (the fragment's order: rows 0-7 and 8-15 of k 0-7, then of k 8-15)
            self.a_row = arith.addi(arith.andi(lane, const(i32(), 7)),
                                    arith.muli(column, const(i32(), 8)))
            self.a_chunk = arith.addi(arith.muli(warp_m, const(i32(), self.per_m // 8)),
                                      arith.andi(arith.shrui(lane, const(i32(), 3)),
                                                 const(i32(), 1)))
        else:
            self.a_row = arith.addi(arith.muli(warp_m, const(i32(), self.per_m)), row)
            self.a_chunk = column
        if plan.b_k_major:  # rows of n, chunks of k, read like A: matrices 2 and 3 are n + 8
            n_row = arith.addi(arith.andi(lane, const(i32(), 7)),
                               arith.muli(column, const(i32(), 8)))
            self.b_row = arith.addi(arith.muli(warp_n, const(i32(), self.per_n)), n_row)
            self.b_chunk = arith.andi(arith.shrui(lane, const(i32(), 3)), const(i32(), 1))
        else:  # rows of k, chunks of n: .trans
            self.b_row = row
            self.b_chunk = arith.addi(arith.muli(warp_n, const(i32(), self.per_n // 8)), column)

    def use_scratch(self, address: ir.Value) -> None:
        pass

    def carry(self, regs: tuple[ir.Value, ...]) -> list[ir.Value]:
        return list(regs)

    def finish(self, carried: list[ir.Value]) -> list[ir.Value]:
        return carried

    def multiply(self, stage: ir.Value, carried: list[ir.Value]) -> list[ir.Value]:
        plan = self.plan
        b_base = arith.addi(stage, const(i64(), plan.a.bytes))
        reps_m, reps_n = self.per_m // ATOM_M, self.per_n // ATOM_N
        types = (self.atom.name, self.atom.name)
        out = list(carried)
        for step in range(plan.bk // ATOM_K):
            a_frags = [self._a_matrices(stage, step, r) for r in range(reps_m)]
            b_frags = []
            for pair in range(reps_n // 2):  # two n8k16 fragments per ldmatrix.x4
                rows, chunks = (16 * pair, 2 * step) if plan.b_k_major else (16 * step, 2 * pair)
                words = self._matrices(b_base, plan.b,
                                       arith.addi(self.b_row, const(i32(), rows)),
                                       arith.addi(self.b_chunk, const(i32(), chunks)),
                                       not plan.b_k_major)
                b_frags += [words[:2], words[2:]]
            for r in range(reps_m):
                for n in range(reps_n):
                    first = 4 * (n + reps_n * r)
                    out[first:first + 4] = mma_sync_words(self.atom, types, a_frags[r],
                                                          b_frags[n], out[first:first + 4],
                                                          dt.float32)
        return out

    def _a_matrices(self, stage: ir.Value, step: int, r: int) -> list[ir.Value]:
        """A's m16k16 fragment of K step `step` for the warp's `r`-th 16 rows: K-major stages
        hold rows of m (chunks of k), M-major ones rows of k (chunks of m, read .trans)."""
        rows, chunks = (16 * step, 2 * r) if self.plan.a_m_major else (16 * r, 2 * step)
        return self._matrices(stage, self.plan.a, arith.addi(self.a_row, const(i32(), rows)),
                              arith.addi(self.a_chunk, const(i32(), chunks)), self.plan.a_m_major)

    def _matrices(self, base: ir.Value, operand, row: ir.Value, chunk: ir.Value,
                  trans: bool) -> list[ir.Value]:
        """`ldmatrix.x4[.trans]` of the four 8x8 matrices at (row, chunk) and below/right."""
        address = llvm.inttoptr(ir.Type.parse("!llvm.ptr<3>"),
                                arith.addi(base, chunk_offset(operand, row, chunk)))
        result = ir.Type.parse("!llvm.struct<(i32, i32, i32, i32)>")
        attributes = {
            "num": ir.IntegerAttr.get(i32(), 4),
            "layout": ir.Attribute.parse(f"#nvvm.mma_layout<{'col' if trans else 'row'}>"),
            "shape": ir.Attribute.parse("#nvvm.ld_st_matrix_shape<m = 8, n = 8>"),
            "eltType": ir.Attribute.parse("#nvvm.ld_st_matrix_elt_type<b16>"),
        }
        op = ir.Operation.create("nvvm.ldmatrix", results=[result], operands=[address],
                                 attributes=attributes)
        words = [llvm.extractvalue(i32(), op.result, [i]) for i in range(4)]
        if self.dtype is dt.float16:  # mma.sync takes f16 pairs as vector<2xf16>
            pair = ir.VectorType.get([2], ir.F16Type.get())
            words = [llvm.bitcast(pair, w) for w in words]
        return words
