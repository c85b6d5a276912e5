"""The block scheme of simt/byte_transpose.py (8-bit B given (K, N), transposed in shared memory
for wgmma), checked as a model: every 8 x 8-byte block is moved once, the moved bytes land
transposed in the K-major layout wgmma reads, and each 8-byte access phase (16 threads) of the
reads and of the writes is free of bank conflicts for the tiles the whole-K-loop path makes."""

from __future__ import annotations

import pytest

from tilelang.layout.wgmma import Operand
from tilelang.passes.simt.byte_transpose import BLOCK, block_of

TILES = [(128, 128), (128, 256), (256, 128)]  # (BK, BN) bytes of fp8 B


def byte_at(op: Operand, row: int, col: int) -> int:
    return op.chunk_offset(row, col // 16) + col % 16


@pytest.mark.parametrize(("bk", "bn"), TILES)
def test_every_block_is_moved_once(bk, bn):
    rows, cols = bk // BLOCK, bn // BLOCK
    moved = [block_of(u, rows, cols) for u in range(rows * cols)]
    assert sorted(moved) == [(r, c) for r in range(rows) for c in range(cols)]


@pytest.mark.parametrize("panel_major", [False, True], ids=["cp.async", "tma"])
@pytest.mark.parametrize(("bk", "bn"), TILES)
def test_bytes_land_transposed(bk, bn, panel_major):
    """Byte (k, n) of the (K, N) stage is byte (n, k) of the K-major copy; both layouts are
    permutations of their tile's bytes."""
    src = Operand(bk, bn, False, 1, panel_major=panel_major)
    dst = Operand(bn, bk, True, 1)
    moves = {}
    for u in range((bk // BLOCK) * (bn // BLOCK)):
        kb, nb = block_of(u, bk // BLOCK, bn // BLOCK)
        for r in range(BLOCK):
            for c in range(BLOCK):
                k, n = kb * BLOCK + r, nb * BLOCK + c
                moves[byte_at(src, k, n)] = byte_at(dst, n, k)
    assert sorted(moves) == list(range(bk * bn)) == sorted(moves.values())


def wavefronts(addresses: list[int]) -> int:
    """Shared-memory wavefronts of one warp's 8-byte accesses: two phases of 16 threads, each
    as many as the most distinct 4-byte words one bank serves."""
    total = 0
    for phase in (addresses[:16], addresses[16:]):
        banks: dict[int, set[int]] = {}
        for a in phase:
            for word in (a // 4, a // 4 + 1):
                banks.setdefault(word % 32, set()).add(word)
        total += max(len(words) for words in banks.values())
    return total


@pytest.mark.parametrize("panel_major", [False, True], ids=["cp.async", "tma"])
@pytest.mark.parametrize(("bk", "bn"), [(128, 128), (128, 256)])
def test_accesses_are_conflict_free(bk, bn, panel_major):
    src = Operand(bk, bn, False, 1, panel_major=panel_major)
    dst = Operand(bn, bk, True, 1)
    rows, cols = bk // BLOCK, bn // BLOCK
    for first in range(0, rows * cols, 32):  # one warp's 32 blocks
        blocks = [block_of(u, rows, cols) for u in range(first, first + 32)]
        for r in range(BLOCK):
            reads = [byte_at(src, kb * BLOCK + r, nb * BLOCK) for kb, nb in blocks]
            writes = [byte_at(dst, nb * BLOCK + r, kb * BLOCK) for kb, nb in blocks]
            assert wavefronts(reads) == 2 and wavefronts(writes) == 2
