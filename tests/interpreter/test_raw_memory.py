"""Array.get_raw_memory: loads, stores and atomics by element offset from the base pointer."""

from __future__ import annotations

import numpy as np

import tilelang as ct


@ct.kernel
def raw_ops(x, y, counts, old, N: ct.Constant[int]):
    offsets = ct.arange(N, dtype=ct.int32)
    picked = x.get_raw_memory().load_offset(offsets * 3, mask=offsets < 20, padding_value=-7)
    ct.store(y, (0,), picked)
    raw = counts.get_raw_memory()
    before = raw.atomic_add_offset(offsets % 5, 1, mask=offsets % 7 != 0)
    ct.store(old, (0,), before)
    raw.store_offset(offsets + 8, offsets * 10, mask=offsets < 3)


def test_offsets_masks_and_atomics(it, rng):
    x = it.rand(rng, (9, 11), "int32")  # raw offsets run through the rows, row after row
    n = 32
    y, counts, old = it.poison(n, "int32"), np.zeros(16, np.int32), it.poison(n, "int32")
    it.launch(raw_ops, (1,), x, y, counts, old, n)
    flat = x.reshape(-1)
    offsets = np.arange(n)
    it.assert_same(y, np.where(offsets < 20, flat[np.minimum(offsets * 3, flat.size - 1)], -7)
                   .astype(np.int32))
    added = (offsets % 7 != 0)
    want = np.zeros(16, np.int32)
    np.add.at(want, offsets[added] % 5, 1)
    want[8:11] = [0, 10, 20]
    it.assert_same(counts, want)
    assert (old[~added] == 0).all()  # masked-out atomics touch nothing and return 0
    assert sorted(old[added & (offsets % 5 == 1)].tolist()) == list(range(added[offsets % 5 == 1]
                                                                         .sum()))


@ct.kernel
def raw_cas(x, old):
    off = ct.arange(8, dtype=ct.int32)
    ct.store(old, (0,), x.get_raw_memory().atomic_cas_offset(off, 0, 42, mask=off != 3))


def test_compare_and_swap_by_offset(it):
    x = np.array([0, 1, 0, 1, 0, 0, 5, 0], np.int32)
    old = it.poison(8, "int32")
    want_x = np.where((x == 0) & (np.arange(8) != 3), 42, x).astype(np.int32)
    want_old = np.where(np.arange(8) != 3, x, 0).astype(np.int32)
    it.launch(raw_cas, (1,), x, old)
    it.assert_same(x, want_x)
    it.assert_same(old, want_old)
