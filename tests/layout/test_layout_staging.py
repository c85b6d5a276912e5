"""Shared-memory staging buffers of layout conversions (layout level): swizzled offsets are a
bijection and linear over GF(2), and the bank-conflict model prefers what it should."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilelang.layout import from_text
from tilelang.layout.staging import (
    Staging,
    _wavefronts,
    access_cost,
    candidates,
    choose_staging,
    contiguous_registers,
)
from tilelang.testing.conversions import random_layout

ROWS_A = from_text("shape=[64,64] register=[[0,1],[0,2],[16,0],[32,0]] lane=[[0,4],[0,8],[0,16],"
                   "[0,32],[1,0]] warp=[[2,0],[4,0],[8,0]]")
ROWS_B = from_text("shape=[64,64] register=[[0,1],[0,2],[0,32],[32,0]] lane=[[0,4],[0,8],[1,0],"
                   "[2,0],[4,0]] warp=[[8,0],[16,0],[0,16]]")

shapes = st.sampled_from([(32,), (4096,), (16, 16), (64, 64), (8, 128), (128, 8), (4, 8, 16)])


@pytest.mark.slow  # about 6 s
@settings(max_examples=100, deadline=None)
@given(shapes, st.sampled_from([1, 2, 4, 8]), st.integers(0, 2**32))
def test_swizzled_offsets_are_a_bijection_and_xor_linear(shape, itemsize, seed):
    layout = random_layout(random.Random(seed), shape, 2)
    for staging in candidates(shape, itemsize):
        offsets = {staging.offset(c) for c in _coords(shape)}
        assert len(offsets) == math.prod(shape) and max(offsets) < staging.size()
        if staging.padded:
            continue
        terms = staging.offset_bases(layout)
        for r in range(layout.num_registers):
            for lane in (0, 1, 5, 31):
                for warp in range(layout.num_warps):
                    want = staging.offset(layout.apply(r, 0, 0))
                    for dim, index in (("lane", lane), ("warp", warp)):
                        for k, term in enumerate(terms[dim]):
                            if index >> k & 1:
                                want ^= term
                    assert staging.offset(layout.apply(r, lane, warp)) == want


def _coords(shape):
    for flat in range(math.prod(shape)):
        coord = []
        for size in reversed(shape):
            flat, c = divmod(flat, size)
            coord.insert(0, c)
        yield tuple(coord)


def test_vectors_stay_whole_under_the_swizzle():
    for staging in candidates((64, 64), 2):
        for row in range(64):
            for col in range(0, 64, staging.vector):
                first = staging.offset((row, col))
                assert first % staging.vector == 0 or staging.padded
                assert [staging.offset((row, col + j)) for j in range(staging.vector)] == \
                    list(range(first, first + staging.vector))


def test_contiguous_registers():
    assert contiguous_registers(ROWS_A, 16) == 4
    assert contiguous_registers(ROWS_A, 2) == 2
    columns = from_text("shape=[64,64] register=[[1,0],[2,0]] lane=[[0,1],[0,2],[0,4],[0,8],"
                        "[0,16]] warp=[[4,0],[8,0],[16,0],[32,0],[0,32]]")
    assert contiguous_registers(columns, 16) == 1


@pytest.mark.parametrize("itemsize", [2, 4])
def test_rows_split_differently_are_staged_with_vectors(itemsize):
    plan = choose_staging(ROWS_A, ROWS_B, itemsize)
    assert not plan.staging.padded and plan.store_vector == plan.load_vector == 4
    padded = Staging((64, 64), itemsize, 1, True)
    assert plan.cost < access_cost(ROWS_A, padded, 1, True) + access_cost(ROWS_B, padded, 1,
                                                                            False)


def test_a_column_read_of_a_padded_buffer_is_conflict_free():
    padded = Staging((32, 32), 4, 1, True)
    column = [padded.offset((row, 3)) * 4 for row in range(32)]
    assert _wavefronts(column, 4) == 1
    plain = Staging((32, 32), 4, 1, False)
    plain_no_swizzle = [row * 32 * 4 + 12 for row in range(32)]
    assert _wavefronts(plain_no_swizzle, 4) == 32
    assert _wavefronts([plain.offset((row, 3)) * 4 for row in range(32)], 4) == 1
