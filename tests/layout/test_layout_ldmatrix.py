"""ldmatrix reads of a staged tile: simulating the instruction (lane L addresses row L % 8 of
matrix L // 8; a lane gets two adjacent elements of each matrix, transposed with .trans) puts
every element where the destination layout says, for the tensor-core operand layouts."""

from __future__ import annotations

import itertools

import pytest

from tilelang.layout import LinearLayout, default_blocked
from tilelang.layout.mma import ATOMS, mma_layouts
from tilelang.layout.staging import matrix_load, matrix_staging


def _register_and_lane(plan, first: int, lane: int) -> tuple[int, int]:
    """The (register, lane) of the layout whose coordinate lane `lane` addresses."""
    register, own_lane = first, 0
    for b, (in_dim, bit) in enumerate(plan.address_bits):
        if lane >> b & 1:
            if in_dim == "register":
                register ^= 1 << bit
            else:
                own_lane ^= 1 << bit
    return register, own_lane


def simulate(layout: LinearLayout) -> None:
    plan = matrix_load(layout, 2)
    assert plan is not None
    staging = matrix_staging(layout.shape)
    buffer = {}
    for coord in itertools.product(*(range(s) for s in layout.shape)):
        buffer[staging.offset(coord)] = coord
    per_load = 2 * plan.count
    for warp in range(layout.num_warps):
        for first in range(0, layout.num_registers, per_load):
            rows = []
            for lane in range(8 * plan.count):
                register, own = _register_and_lane(plan, first, lane)
                start = staging.offset(layout.apply(register, own, warp))
                assert start % 8 == 0, "a matrix row is one aligned 16-byte chunk"
                rows.append([buffer[start + e] for e in range(8)])
            for lane in range(32):
                for i in range(plan.count):
                    matrix = rows[8 * i:8 * i + 8]
                    for h in range(2):
                        if plan.trans:
                            got = matrix[2 * (lane % 4) + h][lane // 4]
                        else:
                            got = matrix[lane // 4][2 * (lane % 4) + h]
                        want = layout.apply(first + 2 * i + h, lane, warp)
                        assert got == want, (warp, first, lane, i, h)


@pytest.mark.parametrize("atom", ["f16", "bf16"])
@pytest.mark.parametrize("shape", [(16, 8, 16), (64, 64, 32), (128, 128, 32), (32, 16, 64),
                                   (16, 16, 8), (2, 32, 32, 16)], ids=str)
@pytest.mark.parametrize("num_warps", [1, 4, 8])
def test_mma_operands_load_with_ldmatrix(atom, shape, num_warps):
    *batch, m, n, k = shape
    plan = mma_layouts((*batch, m, k), (*batch, k, n), ATOMS[atom], num_warps)
    assert matrix_load(plan.a, 2) is not None and not matrix_load(plan.a, 2).trans
    assert matrix_load(plan.b, 2) is not None and matrix_load(plan.b, 2).trans
    simulate(plan.a)
    simulate(plan.b)


def test_layouts_that_do_not_fit_are_refused():
    plan = mma_layouts((16, 16), (16, 8), ATOMS["f16"], 4)
    assert matrix_load(plan.a, 4) is None  # 32-bit elements
    simulate(plan.c)  # C's fragment has A's shape of rows: a float16 accumulator loads too
    assert matrix_load(default_blocked((16, 64), 4, 8), 2) is None  # 8 per thread: no pairs
    narrow = mma_layouts((16, 4), (4, 8), ATOMS["f16"], 1)
    assert matrix_load(narrow.a, 2) is None  # a 4-element row is shorter than a matrix row
