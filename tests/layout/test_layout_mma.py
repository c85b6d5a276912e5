"""Tensor-core layouts: simulating every warp's mma.sync over the registers the lowering picks
(register atom + atom_regs * repetition, K replicas read as zero) gives A @ B + C exactly."""

from __future__ import annotations

import numpy as np
import pytest

from tilelang.language import dtypes as dt
from tilelang.layout.mma import ATOMS, Atom, fma_layouts, k_replicas, mma_layouts, split_warps
from tilelang.passes.layout_rules import default_layout


def _atom_coord(bases, index: int) -> tuple[int, int]:
    r = c = 0
    for bit, (br, bc) in enumerate(bases):
        if index >> bit & 1:
            r ^= br
            c ^= bc
    return r, c


def _fragment(regs, lanes, values, shape):
    """The atom's matrix from one warp's registers (values[lane][reg]), by the PTX bases."""
    out = np.zeros(shape)
    for lane in range(32):
        lr, lc = _atom_coord(lanes, lane)
        for j, v in enumerate(values[lane]):
            rr, rc = _atom_coord(regs, j)
            out[lr ^ rr, lc ^ rc] = v
    return out


def _simulate(plan, atom: Atom, a, b, c, num_warps):
    k = a.shape[-1]
    a_reg, a_lane, b_reg, b_lane = k_replicas(atom, k)
    na, nb = 1 << len(atom.a_regs), 1 << len(atom.b_regs)
    reps_b, reps_m, reps_n, reps_k = plan.reps
    result = {}
    for w in range(num_warps):
        def held(layout, array, r, lane, w=w):
            return array[layout.apply(r, lane, w)]

        for bi in range(reps_b):
            for m in range(reps_m):
                for n in range(reps_n):
                    nc = 1 << len(atom.c_regs)
                    first = nc * (n + reps_n * (m + reps_m * bi))
                    acc = _fragment(atom.c_regs, atom.c_lanes, [
                        [held(plan.c, c, first + j, lane) for j in range(nc)]
                        for lane in range(32)], (atom.m, atom.n))
                    for kk in range(reps_k):
                        fa = na * (kk + reps_k * (m + reps_m * bi))
                        fb = nb * (kk + reps_k * (n + reps_n * bi))
                        av = [[0 if (j & a_reg or lane & a_lane) else
                               held(plan.a, a, fa + j, lane) for j in range(na)]
                              for lane in range(32)]
                        bv = [[0 if (j & b_reg or lane & b_lane) else
                               held(plan.b, b, fb + j, lane) for j in range(nb)]
                              for lane in range(32)]
                        acc = acc + \
                            _fragment(atom.a_regs, atom.a_lanes, av, (atom.m, atom.k)) @ \
                            _fragment(atom.b_regs, atom.b_lanes, bv, (atom.k, atom.n))
                    for lane in range(32):
                        for j in range(nc):
                            rr, rc = _atom_coord(atom.c_regs, j)
                            lr, lc = _atom_coord(atom.c_lanes, lane)
                            coord = plan.c.apply(first + j, lane, w)
                            value = acc[lr ^ rr, lc ^ rc]
                            assert result.setdefault(coord, value) == value, "replicas differ"
    return result


SHAPES = [(16, 8, 16), (64, 32, 32), (32, 64, 64), (8, 8, 16), (4, 2, 8), (16, 16, 4),
          (128, 16, 16), (2, 4, 2, 16)]


@pytest.mark.parametrize("name", sorted(ATOMS))
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("num_warps", [1, 4, 8])
def test_simulated_mma_sync_computes_the_product(name, shape, num_warps):
    atom = ATOMS[name]
    *batch, m, n, k = shape
    rng = np.random.default_rng(0)
    a = rng.integers(-4, 5, (*batch, m, k)).astype(float)
    b = rng.integers(-4, 5, (*batch, k, n)).astype(float)
    c = rng.integers(-4, 5, (*batch, m, n)).astype(float)
    plan = mma_layouts(a.shape, b.shape, atom, num_warps)
    got = _simulate(plan, atom, a, b, c, num_warps)
    want = a @ b + c
    assert set(got) == set(np.ndindex(want.shape)), "every element of C is computed"
    for coord, value in got.items():
        assert value == want[coord], coord


def test_warps_split_the_larger_extent_while_it_spans_atoms():
    assert split_warps(128, 128, 16, 8, 4) == (2, 2)
    assert split_warps(16, 64, 16, 8, 4) == (1, 4)
    assert split_warps(16, 8, 16, 8, 4) == (1, 1)  # surplus warps replicate


def test_fallback_layouts_hold_whole_rows_and_columns():
    c = default_layout((8, 16), dt.float32, 2)
    plan = fma_layouts(c, 4)
    for r in range(c.num_registers):
        for lane in (0, 5, 31):
            row, col = c.apply(r, lane, 1)
            for kk in range(4):
                assert plan.a.apply(kk + 4 * r, lane, 1) == (row, kk)
                assert plan.b.apply(kk + 4 * r, lane, 1) == (kk, col)
