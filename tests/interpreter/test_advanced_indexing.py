"""load_advanced_indexing / store_advanced_indexing: rows picked by an index tile, columns by
a Slice (or the transpose), with edges outside the array."""

from __future__ import annotations

import numpy as np

import tilelang as ct


@ct.kernel
def pick_rows(x, idx, y, z, c0, R: ct.Constant[int], C: ct.Constant[int]):
    rows = ct.load(idx, (0,), (R,))
    t = ct.load_advanced_indexing(x, (rows, ct.Slice(c0, C)), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, (0, 0), t)
    ct.store_advanced_indexing(z, (ct.Slice(c0, C), rows), ct.transpose(t) + 1)


def test_rows_and_columns_by_index(it, rng):
    m, n, r, c, c0 = 37, 29, 8, 16, 20  # columns 20..35: the last ones are outside the array
    x = it.rand(rng, (m, n), "float32")
    idx = rng.permutation(m)[:r].astype(np.int32)
    idx[3] = m + 4  # a row outside the array: zeros on load, dropped on store
    y, z = it.poison((r, c), "float32"), np.zeros((n, m), np.float32)
    it.launch(pick_rows, (1,), x, idx, y, z, c0, r, c)
    padded = np.zeros((m + 8, n + c), np.float32)
    padded[:m, :n] = x
    want = padded[idx][:, c0:c0 + c]
    it.assert_same(y, want)
    want_z = np.zeros((n, m), np.float32)
    for i, row in enumerate(idx):
        for j in range(c):
            if row < m and c0 + j < n:
                want_z[c0 + j, row] = want[i, j] + 1
    it.assert_same(z, want_z)
