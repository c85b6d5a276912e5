"""gather and scatter: random, out-of-bounds and negative indices, masks, 2-d arrays with
broadcast index tiles, scalars, 0-d arrays, strided views, and the ordering of accesses within a
block."""

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct

ZERO = ct.PaddingMode.ZERO
DTYPES = ["bool_", "int8", "uint16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64"]


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def random_indices(rng, n: int, extent: int, low: int = -40, high: int = 40) -> np.ndarray:
    """Indices in [low, extent + high): mostly in bounds, some negative, some past the end."""
    return rng.integers(low, extent + high, n).astype(np.int32)


def gathered(x: np.ndarray, indices: tuple, pad) -> np.ndarray:
    """NumPy reference of gather: x[indices] where in bounds, else pad."""
    b = np.broadcast_arrays(*indices)
    ok = np.ones(b[0].shape, bool)
    for i, extent in zip(b, x.shape, strict=True):
        ok &= (i >= 0) & (i < extent)
    safe = tuple(np.where(ok, i, 0) for i in b)
    return np.where(ok, x[safe], np.asarray(pad).astype(x.dtype)).astype(x.dtype)


@ct.kernel
def gather_1d(x, idx, y, B: ct.Constant[int], PAD: ct.Constant):
    i = ct.bid(0)
    t = ct.load(idx, (i,), (B,), padding_mode=ZERO)
    ct.store(y, (i,), ct.gather(x, t, padding_value=PAD))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("n", "b"), [(1000, 256), (37, 64), (1, 1)])
def test_gather_1d(it, rng, dtype, n, b):
    x = it.rand(rng, 523, dtype)
    idx = random_indices(rng, n, x.size)
    pad = True if dtype == "bool_" else 7
    y = it.poison(n, dtype)
    it.launch(gather_1d, (cdiv(n, b),), x, idx, y, b, pad)
    it.assert_same(y, gathered(x, (idx,), pad))


@ct.kernel
def gather_masked(x, idx, m, p, y, B: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(idx, (i,), (B,), padding_mode=ZERO)
    mask = ct.load(m, (i,), (B,), padding_mode=ZERO)
    pad = ct.load(p, (i,), (B,), padding_mode=ZERO)
    ct.store(y, (i,), ct.gather(x, t, mask=mask, padding_value=pad))


@pytest.mark.parametrize("dtype", ["int16", "float32", "bfloat16"])
def test_gather_mask_and_padding_tile(it, rng, dtype):
    n = 700
    x = it.rand(rng, 300, dtype)
    idx = random_indices(rng, n, x.size)
    m = rng.random(n) < 0.7
    p = it.rand(rng, n, dtype)
    y = it.poison(n, dtype)
    it.launch(gather_masked, (cdiv(n, 128),), x, idx, m, p, y, 128)
    expected = np.where(m, gathered(x, (idx,), 0), p)
    inside = (idx >= 0) & (idx < x.size)
    expected = np.where(inside, expected, p).astype(x.dtype)
    it.assert_same(y, expected)


@ct.kernel
def gather_rows_cols(x, rows, cols, y, R: ct.Constant[int], C: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    r = ct.load(rows, (i,), (R,), padding_mode=ZERO)
    c = ct.load(cols, (j,), (C,), padding_mode=ZERO)
    t = ct.gather(x, (r[:, None], c[None, :]), padding_value=-1)
    ct.store(y, (i, j), t)


@pytest.mark.parametrize("dtype", ["int32", "float16", "float64"])
@pytest.mark.parametrize("view", ["contiguous", "strided"])
def test_gather_2d_broadcast_indices(it, rng, dtype, view):
    base = it.rand(rng, (74, 60), dtype)
    x = base[:37, :53] if view == "contiguous" else base[::2, 7:]
    x = np.ascontiguousarray(x) if view == "contiguous" else x
    rows = random_indices(rng, 45, x.shape[0], -5, 5)
    cols = random_indices(rng, 70, x.shape[1], -5, 5)
    y = it.poison((45, 70), dtype)
    it.launch(gather_rows_cols, (cdiv(45, 16), cdiv(70, 32)), x, rows, cols, y, 16, 32)
    it.assert_same(y, gathered(x, (rows[:, None], cols[None, :]), -1))


@ct.kernel
def gather_index_dtypes(x, idx, y, B: ct.Constant[int]):
    t = ct.load(idx, (0,), (B,), padding_mode=ZERO)
    ct.store(y, (0,), ct.gather(x, t))


@pytest.mark.parametrize("index_dtype", ["int8", "uint8", "int16", "uint32", "int64", "uint64"])
def test_gather_index_dtypes(it, rng, index_dtype):
    x = it.rand(rng, 200, "float32")
    idx = it.rand(rng, 64, index_dtype)
    if np.dtype(index_dtype).itemsize > 1:  # mostly in bounds, some far out on both sides
        idx = np.where(rng.random(64) < 0.7, rng.integers(0, 200, 64), idx).astype(index_dtype)
    y = it.poison(64, "float32")
    it.launch(gather_index_dtypes, (1,), x, idx, y, 64)
    wide = idx.astype(np.int64) if idx.dtype != np.uint64 else idx.view(np.int64)
    it.assert_same(y, gathered(x, (wide,), 0))


@ct.kernel
def scatter_1d(idx, v, y, B: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(idx, (i,), (B,), padding_mode=ct.PaddingMode.NEG_INF)
    ct.scatter(y, t, ct.load(v, (i,), (B,)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("n", "b"), [(1000, 256), (37, 16)])
def test_scatter_1d(it, rng, dtype, n, b):
    size = n + 20
    perm = rng.permutation(size + 60)[:n].astype(np.int32) - 30  # distinct, some out of bounds
    v = it.rand(rng, n, dtype)
    y = it.poison(size, dtype)
    expected = y.copy()
    ok = (perm >= 0) & (perm < size)
    expected[perm[ok]] = v[ok]
    it.launch(scatter_1d, (cdiv(n, b),), perm, v, y, b)
    it.assert_same(y, expected)


@ct.kernel
def scatter_masked_2d(y, rows, cols, m, VALUE: ct.Constant, R: ct.Constant[int],
                      C: ct.Constant[int]):
    r = ct.load(rows, (0,), (R,))
    c = ct.load(cols, (0,), (C,))
    mask = ct.load(m, (0, 0), (R, C))
    ct.scatter(y, (r[:, None], c), VALUE, mask=mask)


@pytest.mark.parametrize("dtype", ["uint8", "float32", "bfloat16"])
def test_scatter_2d_scalar_value_and_mask(it, rng, dtype):
    y = it.poison((37, 53), dtype)
    rows = (rng.permutation(41)[:13] - 2).astype(np.int64)  # distinct rows, a few outside
    cols = (rng.permutation(60)[:24] - 3).astype(np.int16)
    m = rng.random((13, 24)) < 0.6
    expected = y.copy()
    for a in range(13):
        for b in range(24):
            if m[a, b] and 0 <= rows[a] < 37 and 0 <= cols[b] < 53:
                expected[rows[a], cols[b]] = 3
    it.launch(scatter_masked_2d, (1,), y, rows, cols, m, 3, 13, 24)
    it.assert_same(y, expected)


@ct.kernel
def scalar_gather_scatter(x, y, k):
    s = ct.gather(x, k, padding_value=-5)
    ct.scatter(y, 2, s)
    ct.scatter(y, (k + 1,), s * 2)


def test_scalar_indices(it, rng):
    x = it.rand(rng, 10, "int32", low=-100, high=100)
    for k in (4, 9, 10, -1):
        y = it.poison(12, "int32")
        it.launch(scalar_gather_scatter, (1,), x, y, k)
        expected = it.poison(12, "int32")
        value = x[k] if 0 <= k < 10 else -5
        expected[2] = value
        if 0 <= k + 1 < 12:
            expected[k + 1] = value * 2
        it.assert_same(y, expected)


@ct.kernel
def zero_d_gather_scatter(x, y, z, flag):
    v = ct.gather(x, ())  # a 0-d array takes the empty index tuple
    ct.scatter(y, (), v * 3 - 1, mask=flag > 0)
    ct.scatter(z, (), ct.gather(x, (), mask=flag > 1, padding_value=7))


@pytest.mark.parametrize("dtype", ["int16", "float32", "bfloat16"])
def test_zero_d_arrays(it, rng, dtype):
    for flag in (0, 1, 2):
        x = np.array(it.rand(rng, (), dtype, low=-9, high=9))
        y, z = np.array(it.poison((), dtype)), np.array(it.poison((), dtype))
        it.launch(zero_d_gather_scatter, (3,), x, y, z, flag)
        it.assert_same(y, (x * 3 - 1).astype(x.dtype) if flag > 0 else it.poison((), dtype))
        it.assert_same(z, x if flag > 1 else np.array(7, x.dtype))


@ct.kernel
def zero_d_atomics(counter, total, cas):
    old = ct.atomic_add(counter, (), 1)
    ct.atomic_add(total, (), old)  # the old values are 0, 1, ..., blocks - 1 in some order
    ct.atomic_cas(cas, (), 0, 5)  # only the first block finds 0


def test_zero_d_atomics(it):
    counter, total, cas = (np.array(0, np.int32) for _ in range(3))
    it.launch(zero_d_atomics, (9,), counter, total, cas)
    it.assert_same(counter, np.array(9, np.int32))
    it.assert_same(total, np.array(sum(range(9)), np.int32))
    it.assert_same(cas, np.array(5, np.int32))


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_ptx_of_zero_d_accesses(arch):
    """The GPU code of 0-d gathers, scatters and atomics assembles; one thread stores and one
    performs each atomic (a compile check: it runs in the CPU tier only)."""
    x = np.zeros((), np.float32)
    compiled = ct.compile(zero_d_gather_scatter, (x, x.copy(), x.copy(), 1), arch=arch)
    assert compiled.resources().spill_stores == 0
    assert "ld.global" in compiled.ptx and "st.global" in compiled.ptx
    c = np.zeros((), np.int32)
    ptx = ct.compile(zero_d_atomics, (c, c.copy(), c.copy()), arch=arch).ptx
    assert ptx.count("atom.global.add") == 2 and ptx.count("cas.b32") == 1
    assert ct.compile(zero_d_atomics, (c, c.copy(), c.copy()), arch=arch).resources()


@ct.kernel
def gather_unchecked(x, y, B: ct.Constant[int], OFFSET: ct.Constant[int]):
    i = ct.arange(B, dtype=ct.int32) + OFFSET
    ct.scatter(y, ct.arange(B, dtype=ct.int32), ct.gather(x, i, check_bounds=False),
               check_bounds=False)


def test_unchecked_in_bounds(it, rng):
    x = it.rand(rng, 74, "float32")
    y = it.poison(64, "float32")
    it.launch(gather_unchecked, (1,), x, y, 64, 10)
    it.assert_same(y, x[10:])


@pytest.mark.interpreter_only
def test_unchecked_out_of_bounds_is_reported(it, rng):
    x = it.rand(rng, 74, "float32")
    y = it.poison(64, "float32")
    message = r"check_bounds=False accesses index \(74,\)"
    with pytest.raises(ct.TileInterpreterError, match=message):
        it.launch(gather_unchecked, (1,), x, y, 64, 11)


@ct.kernel
def scatter_then_gather(x, y, B: ct.Constant[int]):
    i = ct.arange(B, dtype=ct.int32)
    ct.scatter(x, i, i * 3)
    reversed_ = ct.gather(x, B - 1 - i)  # elements written by other threads
    ct.store(y, (0,), reversed_)
    ct.scatter(x, i, reversed_ + 1)


@pytest.mark.parametrize("b", [8, 1024])
def test_accesses_ordered_within_block(it, b):
    x = it.poison(b, "int32")
    y = it.poison(b, "int32")
    it.launch(scatter_then_gather, (1,), x, y, b)
    expected = (np.arange(b, dtype=np.int32) * 3)[::-1]
    it.assert_same(y, expected)
    it.assert_same(x, expected + 1)


@ct.kernel
def embedding_rows(table, ids, out, T: ct.Constant[int], D: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    rows = ct.load(ids, (i,), (T,), padding_mode=ZERO)
    cols = ct.arange(D, dtype=ct.int32) + j * D
    ct.store(out, (i, j), ct.gather(table, (rows[:, None], cols[None, :])))


def test_gather_rows_in_loop_free_kernel(it, rng):
    table = it.rand(rng, (50, 96), "bfloat16")
    ids = rng.integers(0, 50, 33).astype(np.int64)
    out = it.poison((33, 96), "bfloat16")
    it.launch(embedding_rows, (cdiv(33, 8), 96 // 32), table, ids, out, 8, 32)
    it.assert_same(out, table[ids])
