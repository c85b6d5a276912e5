"""Passes (simt): an 8-bit tile transposed from one shared-memory stage layout to another,
by the block's threads: how 8-bit B given (K, N) reaches wgmma, which reads 8-bit operands
K-major only (simt/wgmma.py; Hopper has no transposing form for them, nor an 8-bit ldmatrix
.trans).

The tile is cut into 8 x 8-byte blocks: a thread reads one block's 8 rows (8 bytes each, of 8
consecutive columns), transposes them in registers with `prmt` byte permutes (8 per 4 x 4
quarter), and writes the block's 8 columns as 8-byte rows of the destination. Block u of a
thread sits at column block `nu = u % NU` and row block `ku = (nu + u // NU) % KU` (NU, KU: the
counts of column and row blocks): a diagonal, so the 16 threads of one 8-byte access phase
read 16 different column blocks and write 16 different row blocks, which with the 128-byte
swizzle of both layouts (layout/wgmma.py) fall into different banks when the tile has 16
blocks each way (128 x 128 bytes).
"""

from __future__ import annotations

import mlir.ir as ir
from mlir.dialects import arith, llvm, scf

from tilelang.layout import wgmma
from tilelang.passes.simt.context import Lowering, const
from tilelang.passes.simt.stage_copies import chunk_offset
from tilelang.passes.simt.values import i32, i64

BLOCK = 8  # bytes each way


def transpose_bytes(lw: Lowering, src: ir.Value, src_op: wgmma.Operand, dst: ir.Value,
                    dst_op: wgmma.Operand) -> None:
    """Write the transpose of the `src_op` tile at shared address `src` (i64) as the `dst_op`
    tile at `dst`: element (r, c) of the source becomes (c, r). One byte per element."""
    assert src_op.itemsize == dst_op.itemsize == 1, "8-bit tiles"
    assert (src_op.rows, src_op.cols) == (dst_op.cols, dst_op.rows), "transposed shapes"
    row_blocks, col_blocks = src_op.rows // BLOCK, src_op.cols // BLOCK
    units, threads = row_blocks * col_blocks, 32 * lw.num_warps
    warp, lane = lw.thread_index("warp"), lw.thread_index("lane")
    tid = arith.addi(arith.muli(warp, const(i32(), 32)), lane)
    for first in range(0, units, threads):
        u = arith.addi(tid, const(i32(), first))
        if units - first >= threads:
            _block(src, src_op, dst, dst_op, u, row_blocks, col_blocks)
            continue
        branch = scf.IfOp(arith.cmpi(arith.CmpIPredicate.ult, u, const(i32(), units)), [],
                          has_else=False)
        with ir.InsertionPoint(branch.then_block):
            _block(src, src_op, dst, dst_op, u, row_blocks, col_blocks)
            scf.YieldOp([])


def block_of(u: int, row_blocks: int, col_blocks: int) -> tuple[int, int]:
    """(row block, column block) of block number `u`: the diagonal of the module doc (what
    `_block` computes in IR; tests/layout/test_layout_byte_transpose.py checks the scheme)."""
    nu = u % col_blocks
    return (nu + u // col_blocks) % row_blocks, nu


def _block(src: ir.Value, src_op: wgmma.Operand, dst: ir.Value, dst_op: wgmma.Operand,
           u: ir.Value, row_blocks: int, col_blocks: int) -> None:
    """Thread's block `u`: 8 rows of 8 bytes in, 8 columns of 8 bytes out (block_of in IR)."""
    nu = arith.remui(u, const(i32(), col_blocks))
    ku = arith.remui(arith.addi(nu, arith.divui(u, const(i32(), col_blocks))),
                     const(i32(), row_blocks))
    row0 = arith.muli(ku, const(i32(), BLOCK))  # source rows = destination columns
    col0 = arith.muli(nu, const(i32(), BLOCK))
    words = [_load(_address(src, src_op, arith.addi(row0, const(i32(), r)), col0))
             for r in range(BLOCK)]
    lo, hi = [w[0] for w in words], [w[1] for w in words]
    # destination row c (source column col0 + c): bytes c of source rows 0..3, then 4..7
    low_quarter = _transpose4(lo[:4]) + _transpose4(hi[:4])
    high_quarter = _transpose4(lo[4:]) + _transpose4(hi[4:])
    for c in range(BLOCK):
        at = _address(dst, dst_op, arith.addi(col0, const(i32(), c)), row0)
        _store(at, low_quarter[c], high_quarter[c])


def _address(base: ir.Value, op: wgmma.Operand, row: ir.Value, col: ir.Value) -> ir.Value:
    """Shared address of byte `col` of tile row `row` (col a multiple of 8)."""
    chunk = arith.shrui(col, const(i32(), 4))
    within = arith.extui(i64(), arith.andi(col, const(i32(), 15)))
    return arith.addi(base, arith.addi(chunk_offset(op, row, chunk), within))


def _load(address: ir.Value) -> tuple[ir.Value, ir.Value]:
    pair = ir.VectorType.get([2], i32())
    ptr = llvm.inttoptr(ir.Type.parse("!llvm.ptr<3>"), address)
    value = llvm.load(pair, ptr, alignment=8)
    return (llvm.extractelement(value, const(i32(), 0)),
            llvm.extractelement(value, const(i32(), 1)))


def _store(address: ir.Value, low: ir.Value, high: ir.Value) -> None:
    pair = ir.VectorType.get([2], i32())
    value = llvm.insertelement(llvm.UndefOp(pair).result, low, const(i32(), 0))
    value = llvm.insertelement(value, high, const(i32(), 1))
    llvm.store(value, llvm.inttoptr(ir.Type.parse("!llvm.ptr<3>"), address), alignment=8)


def _transpose4(rows: list[ir.Value]) -> list[ir.Value]:
    """The 4 x 4 byte transpose of four words (word r = bytes 0..3 of row r): word c of the
    result holds byte c of each row, row 0 lowest."""
    w0, w1, w2, w3 = rows
    t0, t1 = _prmt(w0, w1, 0x5140), _prmt(w0, w1, 0x7362)  # bytes 0,1 / 2,3 of rows 0, 1
    t2, t3 = _prmt(w2, w3, 0x5140), _prmt(w2, w3, 0x7362)
    return [_prmt(t0, t2, 0x5410), _prmt(t0, t2, 0x7632),
            _prmt(t1, t3, 0x5410), _prmt(t1, t3, 0x7632)]


def _prmt(a: ir.Value, b: ir.Value, selector: int) -> ir.Value:
    """PTX prmt.b32: result byte i is byte `selector` nibble i of {b, a} (a's bytes 0-3)."""
    return llvm.inline_asm(i32(), [a, b], f"prmt.b32 $0, $1, $2, {selector:#06x};", "=r,r,r")
