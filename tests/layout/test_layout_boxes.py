"""The shared-memory boxes a TMA store reads (layout/boxes.py): every element gets its own
place, the 128-byte swizzle is the hardware's (the one wgmma operands use), and offsets are
linear over GF(2), so per-register constants XOR a per-thread part."""

from __future__ import annotations

import itertools

import pytest

from tilelang.layout import wgmma
from tilelang.layout.blocked import default_blocked
from tilelang.layout.boxes import BoxBuffer


@pytest.mark.parametrize(("rows", "cols", "itemsize"), [
    (128, 256, 2), (64, 64, 2), (512, 128, 2), (8, 32, 4), (128, 128, 1), (256, 64, 4)])
def test_every_element_has_its_own_place(rows, cols, itemsize):
    boxes = BoxBuffer(rows, cols, itemsize)
    offsets = {boxes.offset((r, c)) for r, c in itertools.product(range(rows), range(cols))}
    assert offsets == set(range(rows * cols))
    assert boxes.size_bytes() == rows * cols * itemsize
    assert len(boxes.boxes()) * boxes.box_bytes == boxes.size_bytes()


@pytest.mark.parametrize(("rows", "cols", "itemsize"), [(128, 256, 2), (512, 64, 2), (64, 32, 4)])
def test_boxes_are_swizzled_panels_in_order(rows, cols, itemsize):
    """Box n starts at n box sizes and holds the rows and columns boxes() gives it; within it
    a byte lands where the hardware's 128-byte swizzle puts its row-major address."""
    boxes = BoxBuffer(rows, cols, itemsize)
    for n, (row0, col0) in enumerate(boxes.boxes()):
        for r, c in [(0, 0), (1, 0), (7, boxes.box_cols - 1), (boxes.box_rows - 1, 3)]:
            linear = r * 128 + c * itemsize
            want = n * boxes.box_bytes + wgmma.swizzle(linear)
            assert boxes.offset((row0 + r, col0 + c)) * itemsize == want


def test_offsets_are_linear_over_gf2():
    boxes = BoxBuffer(512, 256, 2)
    for r, c in [(300, 77), (5, 200), (511, 255), (129, 64)]:
        xor = 0
        for bit in range(9):
            if r >> bit & 1:
                xor ^= boxes.offset((1 << bit, 0))
        for bit in range(8):
            if c >> bit & 1:
                xor ^= boxes.offset((0, 1 << bit))
        assert boxes.offset((r, c)) == xor


def test_register_terms_of_an_accumulator_layout():
    """offset_bases gives each layout bit its term: XORing a thread's and a register's terms
    finds the element's place (wgmma's accumulator at 128 x 256, 8 warps)."""
    layout = wgmma.accumulator_layout(128, 256, 8)
    boxes = BoxBuffer(128, 256, 2)
    terms = boxes.offset_bases(layout)
    for register, lane, warp in [(0, 0, 0), (5, 17, 3), (127, 31, 7), (64, 9, 6)]:
        xor = 0
        for dim, index in (("register", register), ("lane", lane), ("warp", warp)):
            for k, term in enumerate(terms[dim]):
                if index >> k & 1:
                    xor ^= term
        assert xor == boxes.offset(layout.apply(register, lane, warp))


@pytest.mark.parametrize(("rows", "cols", "itemsize", "fits"), [
    (128, 256, 2, True), (128, 32, 2, False), (4, 64, 2, False), (96, 64, 2, False),
    (64, 32, 4, True), (64, 16, 4, False), (16, 128, 1, True)])
def test_which_tiles_fit(rows, cols, itemsize, fits):
    """Whole 128-byte panels of columns, at least one swizzle pattern (8 rows), powers of two."""
    assert BoxBuffer.fits(rows, cols, itemsize) == fits


def test_a_blocked_layout_maps_too():
    layout = default_blocked((64, 64), 4, 2)
    boxes = BoxBuffer(64, 64, 2)
    seen = {boxes.offset(layout.apply(r, lane, w)) for r in range(layout.num_registers)
            for lane in range(32) for w in range(4)}
    assert seen == set(range(64 * 64))


@pytest.mark.parametrize(("rows", "cols", "itemsize"),
                         [(128, 128, 2), (64, 64, 2), (256, 128, 2), (64, 256, 2), (128, 64, 1)])
def test_boxes_of_whole_rows_are_the_k_major_operand_layout(rows, cols, itemsize):
    """Up to 256 rows, the boxes of a tile are wgmma's K-major operand layout: a tile computed
    before a staged loop is written this way from its registers (simt/staged_loop.py) and
    read by the products through descriptors."""
    boxes, op = BoxBuffer(rows, cols, itemsize), wgmma.Operand(rows, cols, True, itemsize)
    chunk = 16 // itemsize
    for r, c in itertools.product(range(rows), range(cols)):
        byte = op.chunk_offset(r, c // chunk) + itemsize * (c % chunk)
        assert boxes.offset((r, c)) * itemsize == byte
