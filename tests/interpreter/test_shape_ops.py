"""permute, transpose, cat, extract, insert and bitcast of tiles, against NumPy."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import tilelang as ct

ZERO = ct.PaddingMode.ZERO


def blocks(m: int, b: int) -> int:
    return -(-m // b)


def padded(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The tile of `shape` at the origin of `x`, zero-padded where `x` ends (a zero-padded load)."""
    out = np.zeros(shape, x.dtype)
    region = tuple(slice(0, min(s, n)) for s, n in zip(shape, x.shape, strict=True))
    out[region] = x[region]
    return out


# ----- transpose and permute ----------------------------------------------------------------------


@ct.kernel
def transpose_2d(x, out, BM: ct.Constant[int], BN: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    ct.store(out, (j, i), ct.transpose(ct.load(x, (i, j), (BM, BN))))


@pytest.mark.parametrize(("m", "n", "bm", "bn"),
                         [(45, 31, 16, 8), (64, 64, 32, 32), (5, 7, 4, 8), (7, 11, 3, 5),
                          (1, 9, 1, 16)])
@pytest.mark.parametrize("dtype", ["float32", "int8", "bfloat16", "float64"])
def test_transpose_2d(it, rng, m, n, bm, bn, dtype):
    x = it.rand(rng, (m, n), dtype)
    out = it.poison((n, m), dtype)
    it.launch(transpose_2d, (blocks(m, bm), blocks(n, bn)), x, out, bm, bn)
    it.assert_same(out, x.T)


@ct.kernel
def transpose_forms(x, o0, o1, o2, o3):
    t = ct.load(x, (0, 0), (8, 16))
    ct.store(o0, (0, 0), t.transpose())
    ct.store(o1, (0, 0), ct.permute(t, (1, 0)))
    ct.store(o2, (0, 0), t.permute((-1, 0)) * 2)
    ct.store(o3, (0, 0), ct.transpose(t, 1, 1) + ct.transpose(t.transpose(), axis0=0, axis1=-1))


def test_transpose_forms(it, rng):
    x = it.rand(rng, (8, 16), "int32", low=-1000, high=1000)
    outs = [it.poison((16, 8), "int32") for _ in range(3)] + [it.poison((8, 16), "int32")]
    it.launch(transpose_forms, (1,), x, *outs)
    it.assert_same(outs[0], x.T)
    it.assert_same(outs[1], x.T)
    it.assert_same(outs[2], x.T * 2)
    it.assert_same(outs[3], x + x)


@ct.kernel
def permute_3d(x, out, SHAPE: ct.Constant, AXES: ct.Constant):
    t = ct.load(x, (0, 0, 0), SHAPE, padding_mode=ZERO)
    ct.store(out, (0, 0, 0), ct.permute(t, AXES) + 1)


@pytest.mark.parametrize("axes", list(itertools.permutations(range(3))))
@pytest.mark.parametrize(("array", "tile"), [((2, 4, 8), (2, 4, 8)), ((3, 5, 6), (4, 8, 8)),
                                             ((3, 4, 5), (3, 4, 5))])
def test_permute_3d(it, rng, array, tile, axes):
    x = it.rand(rng, array, "int16", low=-1000, high=1000)
    out = it.poison(tuple(tile[a] for a in axes), "int16")
    it.launch(permute_3d, (1,), x, out, tile, axes)
    it.assert_same(out, padded(x, tile).transpose(axes) + np.int16(1))


@ct.kernel
def transpose_3d_axes(x, o0, o1):
    t = ct.load(x, (0, 0, 0), (2, 4, 8))
    ct.store(o0, (0, 0, 0), ct.transpose(t, 0, 2))
    ct.store(o1, (0, 0, 0), t.transpose(-1, 1).transpose(0, 1))


def test_transpose_3d_axes(it, rng):
    x = it.rand(rng, (2, 4, 8), "float16")
    o0, o1 = it.poison((8, 4, 2), "float16"), it.poison((8, 2, 4), "float16")
    it.launch(transpose_3d_axes, (1,), x, o0, o1)
    it.assert_same(o0, np.swapaxes(x, 0, 2))
    it.assert_same(o1, np.swapaxes(np.swapaxes(x, 2, 1), 0, 1))


@ct.kernel
def transpose_of_arange(out):
    rows = ct.arange(8, dtype=ct.int32)[:, None] * 100 + ct.arange(4, dtype=ct.int32)[None, :]
    ct.store(out, (0, 0), ct.transpose(rows) + ct.load(out, (0, 0), (4, 8)))


def test_transpose_of_deferred_value(it):
    out = np.zeros((4, 8), np.int32)
    it.launch(transpose_of_arange, (1,), out)
    it.assert_same(out, (np.arange(8)[:, None] * 100 + np.arange(4)[None, :]).T.astype(np.int32))


# ----- cat ----------------------------------------------------------------------------------------


@ct.kernel
def cat_blocks(a, b, out, BM: ct.Constant[int], BN: ct.Constant[int], AXIS: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    x = ct.load(a, (i, j), (BM, BN), padding_mode=ZERO)
    y = ct.load(b, (i, j), (BM, BN), padding_mode=ZERO)
    ct.store(out, (i, j), ct.cat((x, y), AXIS))


def cat_reference(a, b, bm, bn, axis):
    gm, gn = blocks(a.shape[0], bm), blocks(a.shape[1], bn)
    a, b = padded(a, (gm * bm, gn * bn)), padded(b, (gm * bm, gn * bn))
    rows = []
    for i in range(gm):
        row = []
        for j in range(gn):
            region = (slice(i * bm, (i + 1) * bm), slice(j * bn, (j + 1) * bn))
            row.append(np.concatenate([a[region], b[region]], axis=axis))
        rows.append(np.concatenate(row, axis=1))
    return np.concatenate(rows, axis=0)


@pytest.mark.parametrize(("m", "n", "bm", "bn", "axis"),
                         [(13, 20, 4, 8, 0), (13, 20, 4, 8, 1), (9, 30, 8, 5, 0),
                          (6, 17, 3, 16, -1), (1, 1, 1, 1, 0), (64, 64, 32, 64, 1)])
@pytest.mark.parametrize("dtype", ["float32", "uint8", "bool_", "int64"])
def test_cat(it, rng, m, n, bm, bn, axis, dtype):
    a, b = it.rand(rng, (m, n), dtype), it.rand(rng, (m, n), dtype)
    want = cat_reference(a, b, bm, bn, axis % 2)
    out = it.poison(want.shape, dtype)
    grid = (blocks(m, bm), blocks(n, bn))
    it.launch(cat_blocks, grid, a, b, out, bm, bn, axis)
    it.assert_same(out, want)


@ct.kernel
def cat_forms(a, o0, o1, o2):
    x = ct.load(a, (0,), (16,))
    ct.store(o0, (0,), ct.cat((x, x * 2), 0))
    ct.store(o1, (0,), ct.cat((x,), axis=0))
    pair = ct.cat((ct.reshape(x, (4, 4)), ct.full((4, 4), 7, ct.int32)), axis=1)  # (4, 8)
    ct.store(o2, (0, 0), ct.cat((pair, pair + 1), 0))  # (8, 8)


def test_cat_forms(it, rng):
    a = it.rand(rng, 16, "int32", low=-100, high=100)
    o0, o1, o2 = it.poison(32, "int32"), it.poison(16, "int32"), it.poison((8, 8), "int32")
    it.launch(cat_forms, (1,), a, o0, o1, o2)
    it.assert_same(o0, np.concatenate([a, a * 2]))
    it.assert_same(o1, a)
    pair = np.concatenate([a.reshape(4, 4), np.full((4, 4), 7, np.int32)], axis=1)
    it.assert_same(o2, np.concatenate([pair, pair + 1]))


# ----- extract and insert -------------------------------------------------------------------------

SUBTILE_CASES = [  # array shape, tile shape, sub-tile shape
    ((16, 32), (16, 32), (8, 8)),
    ((5, 70), (8, 64), (1, 16)),
    ((12, 8), (12, 8), (4, 8)),
    ((3, 30), (3, 32), (3, 4)),
    ((64, 64), (64, 64), (64, 1)),
    ((40, 33), (32, 64), (32, 32)),
]


@ct.kernel
def extract_all(x, out, T: ct.Constant, S: ct.Constant):
    t = ct.load(x, (0, 0), T, padding_mode=ZERO)
    for i in range(T[0] // S[0]):  # run-time indices
        for j in range(T[1] // S[1]):
            ct.store(out, (i, j), ct.extract(t, (i, j), S))


@ct.kernel
def extract_static(x, out, T: ct.Constant, S: ct.Constant, INDEX: ct.Constant):
    t = ct.load(x, (0, 0), T, padding_mode=ZERO)
    ct.store(out, INDEX, t.extract(INDEX, shape=S) * 3)


@pytest.mark.parametrize(("array", "tile", "sub"), SUBTILE_CASES)
@pytest.mark.parametrize("dtype", ["float16", "int32", "bool_"])
def test_extract_every_subtile(it, rng, array, tile, sub, dtype):
    x = it.rand(rng, array, dtype)
    out = it.poison(tile, dtype)
    it.launch(extract_all, (1,), x, out, tile, sub)
    it.assert_same(out, padded(x, tile))


@pytest.mark.parametrize(("array", "tile", "sub"), SUBTILE_CASES)
def test_extract_static_index(it, rng, array, tile, sub):
    x = it.rand(rng, array, "float32")
    index = (tile[0] // sub[0] - 1, tile[1] // sub[1] // 2)
    out = it.poison(tile, "float32")
    it.launch(extract_static, (1,), x, out, tile, sub, index)
    region = tuple(slice(i * s, (i + 1) * s) for i, s in zip(index, sub))
    it.assert_same(out, it.expected_store(out, region, padded(x, tile)[region] * np.float32(3)))


@ct.kernel
def insert_all(x, v, out, T: ct.Constant, S: ct.Constant):
    t = ct.load(x, (0, 0), T, padding_mode=ZERO)
    for i in range(T[0] // S[0]):  # the tile is carried through the loops
        for j in range(T[1] // S[1]):
            part = ct.load(v, (i, j), S, padding_mode=ZERO)
            t = ct.insert(t, (i, j), ct.extract(t, (i, j), S) + part)
    ct.store(out, (0, 0), t)


@pytest.mark.parametrize(("array", "tile", "sub"), SUBTILE_CASES)
@pytest.mark.parametrize("dtype", ["int8", "bfloat16"])
def test_insert_every_subtile(it, rng, array, tile, sub, dtype):
    x, v = it.rand(rng, array, dtype), it.rand(rng, array, dtype)
    out = it.poison(tile, dtype)
    it.launch(insert_all, (1,), x, v, out, tile, sub)
    with np.errstate(over="ignore"):
        it.assert_same(out, padded(x, tile) + padded(v, tile))


@ct.kernel
def insert_forms(x, out, idx):
    t = ct.load(x, (0,), (128,))
    t = ct.insert(t, (1,), ct.full((32,), 99, ct.float32))  # elements 32..63
    t = t.insert(idx, ct.full((4,), -1, ct.float32))  # a run-time index, given as a scalar
    t = ct.insert(t, 7, 5.0)  # a scalar replaces one element
    t = t.insert((idx + 1,), value=ct.full((), 3, ct.float32))
    ct.store(out, (0,), t)


@pytest.mark.parametrize("idx", [0, 10, 30])
def test_insert_forms(it, rng, idx):
    x = it.rand(rng, 128, "float32")
    out = it.poison(128, "float32")
    it.launch(insert_forms, (1,), x, out, idx)
    want = x.copy()
    want[32:64] = 99
    want[idx * 4:idx * 4 + 4] = -1
    want[7] = 5
    want[idx + 1] = 3
    it.assert_same(out, want)


@ct.kernel
def insert_then_extract(x, v, out, out2, BI: ct.Constant, BJ: ct.Constant):
    t = ct.load(x, (0, 0, 0), (4, 8, 16))
    part = ct.load(v, (0, 0, 0), (2, 8, 4))
    t = ct.insert(t, (BI, 0, BJ), part)
    ct.store(out, (0, 0, 0), ct.extract(t, (BI, 0, BJ), (2, 8, 4)))
    ct.store(out2, (0, 0, 0), t)


@pytest.mark.parametrize(("i", "j"), [(0, 0), (1, 3), (1, 2)])
def test_insert_then_extract_3d(it, rng, i, j):
    x, v = it.rand(rng, (4, 8, 16), "uint16"), it.rand(rng, (2, 8, 4), "uint16")
    out, out2 = it.poison((2, 8, 4), "uint16"), it.poison((4, 8, 16), "uint16")
    it.launch(insert_then_extract, (1,), x, v, out, out2, i, j)
    it.assert_same(out, v)
    want = x.copy()
    want[2 * i:2 * i + 2, :, 4 * j:4 * j + 4] = v
    it.assert_same(out2, want)


@ct.kernel
def extract_out_of_bounds(x, out, idx):
    t = ct.load(x, (0,), (16,))
    ct.store(out, (0,), ct.extract(t, idx, (4,)))


@pytest.mark.interpreter_only
def test_run_time_index_out_of_bounds_is_reported(it):
    with pytest.raises(ct.TileInterpreterError, match="sub-tile index 4 along dimension 0"):
        it.launch(extract_out_of_bounds, (1,), np.zeros(16, np.int32), np.zeros(4, np.int32), 4)


# ----- bitcast ------------------------------------------------------------------------------------

BITCASTS = [("float32", "int32"), ("int32", "float32"), ("float32", "uint32"),
            ("float16", "int16"), ("bfloat16", "uint16"), ("uint16", "bfloat16"),
            ("float64", "int64"), ("int64", "float64"), ("int8", "uint8"), ("uint32", "int32")]


@ct.kernel
def bitcast_blocks(x, out, B: ct.Constant[int], DTYPE: ct.Constant):
    i = ct.bid(0)
    ct.store(out, (i,), ct.bitcast(ct.load(x, (i,), (B,)), DTYPE))


@pytest.mark.parametrize(("src", "dst"), BITCASTS)
def test_bitcast(it, rng, src, dst):
    x = it.rand(rng, 77, src, special=True)
    out = it.poison(77, dst)
    it.launch(bitcast_blocks, (blocks(77, 32),), x, out, 32, getattr(ct, dst))
    it.assert_same(out, x.view(it.np_dtype(dst)))


@ct.kernel
def bitcast_scalars(x, out):
    one = ct.bitcast(1.0, ct.uint32)
    bits = ct.bitcast(ct.load(x, (0, 0), (4, 4)), ct.int32)
    back = ct.bitcast(bits ^ ct.bitcast(-0.0, ct.int32), ct.float32)  # flips the sign bits
    ct.store(out, (0, 0), ct.bitcast(back, ct.uint32) + one)


def test_bitcast_scalars_and_round_trips(it, rng):
    x = it.rand(rng, (4, 4), "float32")
    out = it.poison((4, 4), "uint32")
    it.launch(bitcast_scalars, (1,), x, out)
    it.assert_same(out, (-x).view(np.uint32) + np.uint32(0x3F800000))
