"""Atomics: conflicting updates (histograms) against np.<ufunc>.at, returned old values where
they are deterministic, compare-and-swap, out-of-bounds indices, scalars, 2-d arrays, small
tiles whose layout replicates elements, and every memory order and scope."""

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct

ZERO = ct.PaddingMode.ZERO
INTS = ["int32", "int64", "uint32", "uint64"]
RMW = {"add": ct.atomic_add, "max": ct.atomic_max, "min": ct.atomic_min,
       "and": ct.atomic_and, "or": ct.atomic_or, "xor": ct.atomic_xor, "xchg": ct.atomic_xchg}
UFUNC = {"add": np.add, "max": np.maximum, "min": np.minimum, "and": np.bitwise_and,
         "or": np.bitwise_or, "xor": np.bitwise_xor}


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


@ct.kernel
def histogram(data, hist, B: ct.Constant[int]):
    i = ct.bid(0)
    bins = ct.load(data, (i,), (B,), padding_mode=ct.PaddingMode.NEG_INF)
    ct.atomic_add(hist, bins, 1)


@pytest.mark.parametrize("dtype", [*INTS, "float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize(("n", "b"), [(1000, 128), (5, 8)])
def test_histogram(it, rng, dtype, n, b):
    data = rng.integers(-3, 40, n).astype(np.int32)  # 37 bins; some indices outside
    hist = it.rand(rng, 37, dtype, low=0, high=50)
    if it.is_float(dtype):
        hist = np.round(hist.astype(np.float32)).astype(hist.dtype)  # exact sums
    expected = hist.copy()
    ok = (data >= 0) & (data < 37)
    np.add.at(expected, data[ok], expected.dtype.type(1))
    it.launch(histogram, (cdiv(n, b),), data, hist, b)
    it.assert_same(hist, expected)


@ct.kernel
def rmw_conflicting(x, idx, u, OP: ct.Constant[str], B: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(idx, (i,), (B,), padding_mode=ct.PaddingMode.NEG_INF)
    v = ct.load(u, (i,), (B,), padding_mode=ZERO)
    if OP == "max":
        ct.atomic_max(x, t, v)
    elif OP == "min":
        ct.atomic_min(x, t, v)
    elif OP == "and":
        ct.atomic_and(x, t, v)
    elif OP == "or":
        ct.atomic_or(x, t, v)
    elif OP == "xor":
        ct.atomic_xor(x, t, v)
    else:
        ct.atomic_add(x, t, v)


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("op", ["add", "max", "min", "and", "or", "xor"])
def test_conflicting_updates(it, rng, dtype, op):
    n = 777
    idx = rng.integers(-2, 23, n).astype(np.int64)  # 21 elements, each updated ~37 times
    x = it.rand(rng, 21, dtype)
    u = it.rand(rng, n, dtype)
    expected = x.copy()
    ok = (idx >= 0) & (idx < 21)
    UFUNC[op].at(expected, idx[ok], u[ok])
    it.launch(rmw_conflicting, (cdiv(n, 256),), x, idx, u, op, 256)
    it.assert_same(x, expected)


@ct.kernel
def rmw_old_values(x, perm, u, old, OP: ct.Constant[str], B: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(perm, (i,), (B,), padding_mode=ct.PaddingMode.NEG_INF)
    v = ct.load(u, (i,), (B,), padding_mode=ZERO)
    if OP == "max":
        o = ct.atomic_max(x, t, v)
    elif OP == "min":
        o = ct.atomic_min(x, t, v)
    elif OP == "and":
        o = ct.atomic_and(x, t, v)
    elif OP == "or":
        o = ct.atomic_or(x, t, v)
    elif OP == "xor":
        o = ct.atomic_xor(x, t, v)
    elif OP == "xchg":
        o = ct.atomic_xchg(x, t, v)
    else:
        o = ct.atomic_add(x, t, v)
    ct.store(old, (i,), o)


def _apply(op: str, x: np.ndarray, u: np.ndarray) -> np.ndarray:
    if op == "xchg":
        return u.astype(x.dtype)
    if op == "add" and x.dtype.itemsize == 2:  # half precision: computed in float32
        return (x.astype(np.float32) + u.astype(np.float32)).astype(x.dtype)
    return UFUNC[op](x, u).astype(x.dtype)


@pytest.mark.parametrize(("op", "dtype"), [
    *[(op, d) for op in ("add", "max", "min", "and", "or", "xor", "xchg") for d in INTS],
    ("add", "float32"), ("add", "float64"), ("add", "float16"), ("add", "bfloat16"),
    ("xchg", "float32"), ("xchg", "float64"),
])
@pytest.mark.parametrize(("n", "b"), [(1000, 256), (6, 8), (3, 1)])
def test_old_values_distinct_indices(it, rng, op, dtype, n, b):
    size = n + 7
    perm = (rng.permutation(size + 10)[:n] - 5).astype(np.int32)  # distinct; a few outside
    x = it.rand(rng, size, dtype)
    u = it.rand(rng, n, dtype)
    old = it.poison(n, dtype)
    ok = (perm >= 0) & (perm < size)
    expected_x = x.copy()
    expected_x[perm[ok]] = _apply(op, x[perm[ok]], u[ok])
    expected_old = np.zeros(n, x.dtype)
    expected_old[ok] = x[perm[ok]]
    it.launch(rmw_old_values, (cdiv(n, b),), x, perm, u, old, op, b)
    it.assert_same(x, expected_x)
    it.assert_same(old, expected_old)


@ct.kernel
def cas_kernel(x, idx, e, d, old, B: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(idx, (i,), (B,), padding_mode=ct.PaddingMode.NEG_INF)
    expected = ct.load(e, (i,), (B,), padding_mode=ZERO)
    desired = ct.load(d, (i,), (B,), padding_mode=ZERO)
    ct.store(old, (i,), ct.atomic_cas(x, t, expected, desired))


@pytest.mark.parametrize("dtype", [*INTS, "float32", "float64"])
def test_atomic_cas_distinct_indices(it, rng, dtype):
    n, size = 300, 310
    pool = np.concatenate([np.arange(8, size + 5), [-1, -2, -3]])  # a few outside
    perm = np.concatenate([np.arange(8), rng.permutation(pool)[:n - 8]]).astype(np.int32)
    x = it.rand(rng, size, dtype)
    if it.is_float(dtype):  # bitwise comparison: -0.0 differs from 0.0, NaN equals NaN
        x[:8] = np.array([0.0, -0.0, np.nan, 1.0, 0.0, -0.0, np.nan, 2.0], dtype)
    ok = (perm >= 0) & (perm < size)
    e = np.where(rng.random(n) < 0.5, x[np.clip(perm, 0, size - 1)], it.rand(rng, n, dtype))
    e = e.astype(x.dtype)
    if it.is_float(dtype):
        e[:8] = np.array([-0.0, -0.0, np.nan, 1.0, 0.0, 0.0, 5.0, 2.0], dtype)
    d = it.rand(rng, n, dtype)
    old = it.poison(n, dtype)
    bits = np.dtype(f"u{x.dtype.itemsize}")
    expected_x = x.copy()
    current = x[np.clip(perm, 0, size - 1)]
    swap = ok & (current.view(bits) == e.view(bits))
    expected_x[perm[swap]] = d[swap]
    expected_old = np.where(ok, current, e).astype(x.dtype)
    it.launch(cas_kernel, (cdiv(n, 64),), x, perm, e, d, old, 64)
    it.assert_same(x, expected_x)
    it.assert_same(old, expected_old)


@ct.kernel
def claim(slots, idx, won, B: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(idx, (i,), (B,), padding_mode=ct.PaddingMode.NEG_INF)
    me = ct.arange(B, dtype=ct.int32) + i * B + 1
    old = ct.atomic_cas(slots, t, 0, me, memory_order=ct.MemoryOrder.RELAXED)
    ct.store(won, (i,), old == 0)


def test_atomic_cas_one_winner_per_element(it, rng):
    n = 1000
    idx = rng.integers(0, 50, n).astype(np.int32)
    slots = np.zeros(50, np.int32)
    won = it.poison(n, "bool_")
    it.launch(claim, (cdiv(n, 128),), slots, idx, won, 128)
    assert set(np.flatnonzero(slots)) == set(idx)  # every touched element was claimed once
    winners = np.flatnonzero(won)
    assert sorted(idx[winners]) == sorted(set(idx))  # exactly one winner per element
    np.testing.assert_array_equal(slots[idx[winners]], winners + 1)  # ... whose value landed


@ct.kernel
def scalar_atomics(x, old, v):
    a = ct.atomic_add(x, 0, v)
    b = ct.atomic_max(x, (1,), v)
    c = ct.atomic_xchg(x, 2, v)
    d = ct.atomic_cas(x, 3, 0, v)
    e = ct.atomic_add(x, 99, v)  # out of bounds: nothing happens, 0 comes back
    ct.scatter(old, ct.bid(0), a + b + c + d + e)


def test_scalar_indices_many_blocks(it):
    x = np.array([5, 10, 0, 0], np.int32)
    old = it.poison(16, "int32")
    it.launch(scalar_atomics, (16,), x, old, 7)
    assert x[0] == 5 + 16 * 7 and x[1] == 10 and x[2] == 7 and x[3] == 7
    assert np.all(old != 0x5BAD)


@ct.kernel
def add_2d(x, rows, cols, u, R: ct.Constant[int], C: ct.Constant[int]):
    r = ct.load(rows, (0,), (R,), padding_mode=ct.PaddingMode.NEG_INF)
    c = ct.load(cols, (0,), (C,), padding_mode=ct.PaddingMode.NEG_INF)
    v = ct.load(u, (0,), (C,), padding_mode=ZERO)
    ct.atomic_add(x, (r[:, None], c[None, :]), v, memory_scope=ct.MemoryScope.SYS)


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_atomic_add_2d_broadcast(it, rng, dtype):
    x = it.rand(rng, (37, 53), dtype, low=-10, high=10)
    rows = rng.integers(-2, 40, 30).astype(np.int32)  # repeated rows: conflicting updates
    cols = rng.integers(-2, 56, 60).astype(np.int32)
    u = it.rand(rng, 60, dtype, low=-4, high=4)
    if it.is_float(dtype):
        x, u = np.round(x), np.round(u)  # exact sums in any order
    expected = x.copy()
    for a in range(30):
        for b in range(60):
            if 0 <= rows[a] < 37 and 0 <= cols[b] < 53:
                expected[rows[a], cols[b]] += u[b]
    it.launch(add_2d, (1,), x, rows, cols, u, 30, 60)
    it.assert_same(x, expected)


@ct.kernel
def ordered_histogram(data, hist, flags, ORDER: ct.Constant, SCOPE: ct.Constant):
    bins = ct.load(data, (ct.bid(0),), (64,), padding_mode=ct.PaddingMode.NEG_INF)
    old = ct.atomic_add(hist, bins, 2, memory_order=ORDER, memory_scope=SCOPE)
    # XORs commute with each other, not with the adds: on an array of their own, twice the
    # same value leaves it 0 whatever order the blocks run in
    for _ in range(2):
        ct.atomic_xor(flags, bins, old, memory_order=ORDER, memory_scope=SCOPE)


@pytest.mark.parametrize("order", [o for o in ct.MemoryOrder if o is not ct.MemoryOrder.WEAK])
@pytest.mark.parametrize("scope", [s for s in ct.MemoryScope if s is not ct.MemoryScope.NONE])
def test_memory_orders_and_scopes(it, rng, order, scope):
    data = rng.integers(0, 9, 200).astype(np.int32)
    hist, flags = np.zeros(9, np.int32), np.zeros(9, np.int32)
    it.launch(ordered_histogram, (cdiv(200, 64),), data, hist, flags, order, scope)
    it.assert_same(hist, (np.bincount(data, minlength=9) * 2).astype(np.int32))
    it.assert_same(flags, np.zeros(9, np.int32))


def test_ptx_of_orders_and_scopes():
    """The GPU code brackets the relaxed atomics with fences at the requested scope: one before
    each run of atomics for a release, one after for an acquire, both for acq_rel, none for
    relaxed; beyond the block with block barriers on their far sides (a compile check: it runs
    in the CPU tier only)."""
    data, hist = np.zeros(64, np.int32), np.zeros(9, np.int32)
    flags = np.zeros(9, np.int32)
    cases = {(ct.MemoryOrder.RELAXED, ct.MemoryScope.DEVICE): (None, False, False),
             (ct.MemoryOrder.ACQ_REL, ct.MemoryScope.BLOCK): ("fence.acq_rel.cta;", True, True),
             (ct.MemoryOrder.RELEASE, ct.MemoryScope.SYS): ("fence.acq_rel.sys;", True, False),
             (ct.MemoryOrder.ACQUIRE, ct.MemoryScope.DEVICE): ("fence.acq_rel.gpu;", False, True)}
    for (order, scope), (fence, before, after) in cases.items():
        ptx = ct.compile(ordered_histogram, (data, hist, flags, order, scope), arch="sm_90").ptx
        lines = [line.split()[0] for line in ptx.splitlines() if line.strip()]
        seq = [x for x in lines if x.startswith(("fence", "atom"))]
        assert all(x == fence for x in seq if x.startswith("fence")), order
        assert "atom.global.add.u32" in ptx and "atom.global.xor.b32" in ptx
        if fence is None:
            continue
        runs = [i for i, x in enumerate(seq) if x.startswith("atom") and
                (i == 0 or not seq[i - 1].startswith("atom"))]
        ends = [i for i, x in enumerate(seq) if x.startswith("atom") and
                (i + 1 == len(seq) or not seq[i + 1].startswith("atom"))]
        assert len(runs) == 3, order  # the add, then each xor
        if before:
            assert all(i > 0 and seq[i - 1] == fence for i in runs), order
        if after:
            assert all(i + 1 < len(seq) and seq[i + 1] == fence for i in ends), order
        # beyond the block, the block's other threads take part: a barrier before a release
        # fence (their writes before it are published), after an acquire (their reads after)
        marks = [x for x in lines if x.startswith(("fence", "bar.sync"))]
        fences = [i for i, x in enumerate(marks) if x == fence]
        if scope is not ct.MemoryScope.BLOCK and before:
            assert all(i > 0 and marks[i - 1] == "bar.sync" for i in fences), order
        if scope is not ct.MemoryScope.BLOCK and after:
            assert all(i + 1 < len(marks) and marks[i + 1] == "bar.sync" for i in fences), order
        assert ct.compile(ordered_histogram, (data, hist, flags, order, scope),
                          arch="sm_80").resources()


@ct.kernel
def count_in(counters, out):
    old = ct.atomic_add(counters, 0, 1, memory_order=ct.MemoryOrder.ACQ_REL,
                        memory_scope=ct.MemoryScope.DEVICE)
    ct.store(out, (ct.bid(0),), ct.full((1,), old, ct.int32))


def test_ptx_fences_only_in_the_atomics_thread():
    """A scalar atomic beyond the block: one thread issues it, and only that thread fences
    (after the block barrier for the release, before it for the acquire); a fence waits for
    its own thread's stores, so fencing in every thread would stall the block."""
    counters, out = np.zeros(1, np.int32), np.zeros(4, np.int32)
    ptx = ct.compile(count_in.replace_hints(num_warps=4), (counters, out), arch="sm_90").ptx
    lines = [line.split()[0] for line in ptx.splitlines() if line.strip()]
    marks = [x for x in lines if x.startswith(("fence", "bar.sync", "atom", "@"))]
    fences = [i for i, x in enumerate(marks) if x.startswith("fence")]
    assert len(fences) == 2, marks
    first, second = fences
    assert marks[first - 1].startswith("@") and marks[first - 2] == "bar.sync", marks
    assert any(x.startswith("atom") for x in marks[first:second]), marks
    assert "bar.sync" not in marks[first:second] and marks[second + 1] == "bar.sync", marks


@ct.kernel
def read_by_atomics(x, out, ORDER: ct.Constant):
    i = ct.arange(64, dtype=ct.int32) + ct.bid(0) * 64
    old = ct.atomic_or(x, i, 0, memory_order=ORDER, memory_scope=ct.MemoryScope.DEVICE)
    ct.store(out, (ct.bid(0),), old + ct.atomic_add(x, i, 0, memory_order=ORDER))


@pytest.mark.parametrize("order", [ct.MemoryOrder.RELAXED, ct.MemoryOrder.ACQ_REL])
def test_atomics_of_zero_read(it, rng, order):
    """An or / add of 0 returns the old values and leaves them (0 past the end)."""
    x = rng.integers(-1000, 1000, 130).astype(np.int32)
    before, out = x.copy(), np.zeros(192, np.int32)
    it.launch(read_by_atomics, (3,), x, out, order)
    it.assert_same(x, before)
    it.assert_same(out, np.concatenate([2 * before, np.zeros(62, np.int32)]))


def test_ptx_relaxed_atomics_of_zero_are_loads():
    """Without a release, an integer or / add of 0 is an atomic load (ld.relaxed.gpu: polling
    reads do not queue at L2 behind each other as atomics do); with one it stays an atomic."""
    x, out = np.zeros(130, np.int32), np.zeros(192, np.int32)
    relaxed = ct.compile(read_by_atomics, (x, out, ct.MemoryOrder.RELAXED), arch="sm_90").ptx
    assert "ld.relaxed.gpu.global.b32" in relaxed and "atom." not in relaxed
    acq_rel = ct.compile(read_by_atomics, (x, out, ct.MemoryOrder.ACQ_REL), arch="sm_90").ptx
    assert "atom.global." in acq_rel and "ld.relaxed" not in acq_rel
