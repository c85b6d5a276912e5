"""Single elements as scalars: `load(..., shape=())` of an n-d array and `extract(..., shape=())`,
with a run-time index into extract/insert (cuTile's forms)."""

from __future__ import annotations

import numpy as np

import tilelang as ct


@ct.kernel
def scalar_parts(x, idx, y, TILE: ct.Constant[int], SUB: ct.Constant[int]):
    tx = ct.load(x, index=0, shape=TILE)
    i = ct.load(idx, index=0, shape=())  # a scalar from a 1-d array
    middle = ct.extract(tx, index=TILE // 2, shape=())  # one element, as a scalar
    part = ct.extract(tx, index=i, shape=SUB) + 5.0
    ct.store(y, index=0, tile=ct.insert(tx, i, part) + middle)


def test_scalar_load_extract_and_runtime_insert(it, rng):
    x = it.rand(rng, 16, "float32")
    for k in (0, 3):
        y = it.poison(16, "float32")
        it.launch(scalar_parts, (1,), x, np.array([k], np.int32), y, 16, 4)
        want = x.copy()
        want[4 * k: 4 * k + 4] += 5.0
        it.assert_same(y, want + x[8])
