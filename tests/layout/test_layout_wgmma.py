"""The wgmma layouts: the accumulator against the PTX fragment table, and the shared-memory
layouts the copies write against what a wgmma instruction reads through its descriptor."""

from __future__ import annotations

import pytest

from tilelang.layout import wgmma


@pytest.mark.parametrize(("m", "n", "warps"), [(64, 64, 4), (128, 256, 8), (256, 128, 8),
                                               (128, 64, 4)])
def test_accumulator_layout_matches_the_fragment_table(m, n, warps):
    layout = wgmma.accumulator_layout(m, n, warps)
    groups = warps // 4
    rows = m // groups
    seen = set()
    for w in range(warps):
        for lane in range(32):
            for r in range(layout.num_registers):
                block, j = divmod(r, 4)  # j: (row + 8, col + 1) bits
                n_block, m_block = block % (n // 8), block // (n // 8)
                row = (w // 4) * rows + m_block * 64 + (w % 4) * 16 + lane // 4 + 8 * (j >> 1)
                col = n_block * 8 + 2 * (lane % 4) + (j & 1)
                assert layout.apply(r, lane, w) == (row, col)
                seen.add((row, col))
    assert len(seen) == m * n  # each element once


CASES = [(k_major, 2, rows, cols, False) for k_major in (True, False)
         for rows, cols in [(128, 128), (64, 128), (128, 256), (64, 64)]] + \
    [(True, 1, rows, cols, False) for rows, cols in [(128, 128), (64, 256), (256, 128)]] + \
    [(False, 2, rows, cols, True) for rows, cols in [(64, 256), (32, 128), (64, 64)]]


@pytest.mark.parametrize(("k_major", "itemsize", "rows", "cols", "panel_major"), CASES)
def test_instructions_read_what_the_copies_wrote(k_major, itemsize, rows, cols, panel_major):
    """Element (row, col) is written at chunk_offset(row, col // chunk) + size (col % chunk);
    each instruction's descriptor (start, LBO, SBO, 128-byte swizzle) must read it back for its
    (i, kk), under the model of PTX's canonical layouts."""
    op = wgmma.Operand(rows, cols, k_major, itemsize, panel_major)
    chunk = 16 // itemsize
    written = {op.chunk_offset(r, c // chunk) + itemsize * (c % chunk): (r, c)
               for r in range(rows) for c in range(cols)}
    assert len(written) == rows * cols and max(written) < op.bytes
    depth = cols if k_major else rows
    mn = rows if k_major else cols
    blocks = mn // 64 if k_major else 1
    k = wgmma.instr_k(itemsize)
    for k_step in range(depth // k):
        for block in range(blocks):
            start = op.step_offset(k_step, block)
            extent = 64 if k_major else mn
            for (i, kk), address in wgmma.read_by_instruction(op, start, extent, k).items():
                row, col = (block * 64 + i, k * k_step + kk) if k_major else (k * k_step + kk, i)
                assert written[address] == (row, col)


@pytest.mark.parametrize("panel_major", [False, True])  # copied by cp.async, or TMA boxes
@pytest.mark.parametrize(("bk", "bm", "groups"), [(64, 128, 2), (64, 256, 2), (64, 128, 1),
                                                  (128, 64, 1)])
def test_an_m_major_a_is_read_by_warpgroup_and_block(bk, bm, groups, panel_major):
    """A given (K, M) (a column-major A, M contiguous: rows = K, cols = M): warpgroup g's rows
    start at m_offset(g * BM / groups), each of its 64-row blocks at step_offset's m_block
    term; every instruction reads elements (k, m) of its own rows and K slice."""
    op = wgmma.Operand(bk, bm, False, 2, panel_major)
    written = {op.chunk_offset(r, c // 8) + 2 * (c % 8): (r, c)
               for r in range(bk) for c in range(bm)}
    rows = bm // groups
    for g in range(groups):
        for block in range(rows // 64):
            for k_step in range(bk // 16):
                start = op.m_offset(g * rows) + op.step_offset(k_step, block)
                for (i, kk), address in wgmma.read_by_instruction(op, start, 64, 16).items():
                    assert written[address] == (16 * k_step + kk, g * rows + block * 64 + i)


@pytest.mark.parametrize(("rows", "cols", "k_major", "itemsize"),
                         [(128, 64, True, 2), (64, 256, False, 2), (128, 128, True, 1),
                          (64, 128, True, 2)])
def test_tma_boxes_write_the_panel_layouts(rows, cols, k_major, itemsize):
    """A TMA box of one 128-byte panel (SWIZZLE_128B) stores its row r at r * 128 from the
    box's start, 16-byte chunk c at c ^ (r % 8): the layouts the TMA ring's boxes fill."""
    op = wgmma.Operand(rows, cols, k_major, itemsize, panel_major=not k_major)
    per_panel = 128 // itemsize
    for r in range(rows):
        for c in range(cols // (16 // itemsize)):
            panel, within = divmod(c, 8)
            box_start = panel * rows * 128  # where the ring puts panel `panel`'s box
            assert op.chunk_offset(r, c) == box_start + r * 128 + 16 * (within ^ (r % 8))
    assert cols % per_panel == 0


def test_descriptor_fields():
    a, b = wgmma.Operand(128, 64, True), wgmma.Operand(64, 256, False)
    assert a.descriptor_bits() == (1 << 16) | (64 << 32) | (1 << 62)
    assert b.descriptor_bits() == (64 << 16) | (256 << 32) | (1 << 62)
    panels = wgmma.Operand(64, 256, False, panel_major=True)  # LBO: a 64 x 128-byte panel
    assert panels.descriptor_bits() == (512 << 16) | (64 << 32) | (1 << 62)


@pytest.mark.parametrize(("shape", "ok"), [
    ((128, 256, 64, 8), True), ((64, 64, 64, 4), True), ((128, 128, 32, 8), False),
    ((128, 512, 64, 8), False), ((64, 128, 64, 8), False), ((128, 256, 64, 4), False),
    ((96, 128, 64, 4), False),
])
def test_fits(shape, ok):
    m, n, k, warps = shape
    assert wgmma.fits(m, n, k, 2, warps) is ok


@pytest.mark.parametrize("rows, cols, itemsize, warps", [
    (128, 64, 2, 8), (64, 64, 2, 4), (128, 128, 2, 8), (64, 128, 1, 4), (256, 64, 2, 4)])
def test_copy_layout_is_the_ring_copies_chunk_assignment(rows, cols, itemsize, warps):
    """Thread tid's i-th 16-byte chunk is chunk q = tid + threads * i, numbered row by row:
    the element the layout puts in register i * elems + e is element e of that chunk."""
    layout = wgmma.copy_layout(rows, cols, itemsize, warps)
    elems, threads = wgmma.CHUNK_BYTES // itemsize, 32 * warps
    per_row = cols // elems
    assert layout.is_bijective()
    for tid in (0, 1, 7, 8, 33, threads - 1):
        for i in range(rows * per_row // threads):
            q = tid + threads * i
            for e in range(elems):
                got = layout.apply(register=i * elems + e, lane=tid % 32, warp=tid // 32)
                assert got == (q // per_row, q % per_row * elems + e)
