"""Array.slice and tiled views: views of awkward sizes, run-time bounds, padding, traversal
steps, stores through views; every output element is checked against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct
from tilelang.errors import TileInterpreterError

PAD = ct.PaddingMode


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


# ----- Array.slice -----------------------------------------------------------------------------


@ct.kernel
def slice_copy_1d(x, y, start, stop, B: ct.Constant[int]):
    sx = x.slice(0, start, stop)
    sy = y.slice(-1, start, stop)  # a negative axis counts from the end
    for i in range(ct.cdiv(sx.shape[0], B)):
        ct.store(sy, (i,), ct.load(sx, (i,), (B,)))


@pytest.mark.parametrize("dtype", ["int8", "float16", "float32", "uint64", "bool_"])
@pytest.mark.parametrize(("n", "start", "stop", "b"), [
    (37, 3, 30, 8), (64, 0, 64, 16), (100, 17, 18, 4), (16, 5, 5, 8), (9, 0, 9, 16),
])
def test_slice_1d(it, rng, dtype, n, start, stop, b):
    x = it.rand(rng, n, dtype)
    y = it.poison(n, dtype)
    it.launch(slice_copy_1d, (1,), x, y, start, stop, b)
    it.assert_same(y, it.expected_store(it.poison(n, dtype), slice(start, stop), x[start:stop]))


@ct.kernel
def slice_copy_2d(x, y, start, stop, AXIS: ct.Constant[int], B0: ct.Constant[int],
                  B1: ct.Constant[int]):
    sx = x.slice(AXIS, start, stop)
    sy = y.slice(AXIS, start, stop)
    i, j = ct.bid(0), ct.bid(1)
    ct.store(sy, (i, j), ct.load(sx, (i, j), (B0, B1)))


@pytest.mark.parametrize("axis", [0, 1, -1, -2])
@pytest.mark.parametrize(("shape", "start", "stop"), [((13, 29), 2, 11), ((32, 64), 8, 32),
                                                      ((5, 7), 1, 5)])
def test_slice_2d(it, rng, axis, shape, start, stop):
    x = it.rand(rng, shape, "float32")
    y = it.poison(shape, "float32")
    region = [slice(None), slice(None)]
    region[axis] = slice(start, stop)
    region = tuple(region)
    sub = x[region].shape
    it.launch(slice_copy_2d, (cdiv(sub[0], 4), cdiv(sub[1], 8)), x, y, start, stop, axis, 4, 8)
    it.assert_same(y, it.expected_store(it.poison(shape, "float32"), region, x[region]))


@pytest.mark.parametrize("view", ["transposed", "strided"])
def test_slice_of_strided_views(it, rng, view):
    base = it.rand(rng, (24, 30), "int16")
    x = base.T if view == "transposed" else base[::2, 1::3]
    big = it.poison((40, 50), "int16")
    region = (slice(1, 1 + x.shape[0]), slice(3, 3 + x.shape[1]))
    y = big[region]
    before = big.copy()
    start, stop = 3, x.shape[0] - 2
    it.launch(slice_copy_2d, (cdiv(stop - start, 4), cdiv(x.shape[1], 8)), x, y, start, stop,
              0, 4, 8)
    want = before.copy()
    want[region][start:stop] = x[start:stop]
    it.assert_same(big, want)


@ct.kernel
def slice_copy_3d(x, y, start, stop, B: ct.Constant):
    sx = x.slice(1, start, stop)
    sy = y.slice(1, start, stop)
    m, n, k = sx.shape
    for i in range(ct.cdiv(m, B[0])):
        for j in range(ct.cdiv(n, B[1])):
            for kk in range(ct.cdiv(k, B[2])):
                ct.store(sy, (i, j, kk), ct.load(sx, (i, j, kk), B))


@pytest.mark.parametrize("dtype", ["bfloat16", "int32"])
@pytest.mark.parametrize(("shape", "start", "stop"), [((3, 10, 7), 4, 9), ((4, 16, 32), 0, 16)])
def test_slice_3d(it, rng, dtype, shape, start, stop):
    x = it.rand(rng, shape, dtype)
    y = it.poison(shape, dtype)
    it.launch(slice_copy_3d, (1,), x, y, start, stop, (2, 4, 8))
    region = (slice(None), slice(start, stop))
    it.assert_same(y, it.expected_store(it.poison(shape, dtype), region, x[region]))


@ct.kernel
def chained_slices(x, y, B: ct.Constant[int]):
    a = x.slice(0, 3, 19)  # constant bounds: x[3:19]
    b = a.slice(0, 2, ct.astype(9, ct.int64))  # x[5:12]
    c = y.slice(0, ct.astype(5, ct.int8), 12)
    ct.store(c, (0,), ct.load(b, (0,), (B,), padding_mode=ct.PaddingMode.ZERO))


@pytest.mark.parametrize("dtype", ["float16", "float32", "int64"])
def test_chained_constant_slices(it, rng, dtype):
    x = it.rand(rng, 24, dtype)
    y = it.poison(24, dtype)
    it.launch(chained_slices, (1,), x, y, 16)
    it.assert_same(y, it.expected_store(it.poison(24, dtype), slice(5, 12), x[5:12]))


@ct.kernel
def constant_extent(x, y):
    rows = x.slice(1, 4, 12)  # constant bounds: the extent along axis 1 is a constant 8
    ct.static_assert(rows.shape[1] == 8)
    ct.store(y, (0, 0), ct.load(rows, (0, 0), (4, rows.shape[1])))


def test_constant_bounds_give_a_constant_extent(it, rng):
    x = it.rand(rng, (4, 20), "float32")
    y = it.poison((4, 8), "float32")
    it.launch(constant_extent, (1,), x, y)
    it.assert_same(y, x[:, 4:12])


@ct.kernel
def ragged_rows(a, b, indptr, BM: ct.Constant[int], BN: ct.Constant[int]):
    seg, j = ct.bid(0), ct.bid(1)
    bounds = indptr.tiled_view(())  # single elements, loaded as scalars
    start, stop = bounds.load(seg), bounds.load(seg + 1)
    sa = a.slice(0, start, stop)
    sb = b.slice(0, start, stop)
    for i in range(ct.cdiv(stop - start, BM)):
        t = ct.load(sa, (i, j), (BM, BN))
        ct.store(sb, (i, j), t + ct.astype(seg, a.dtype))


def test_ragged_segments(it, rng):
    a = it.rand(rng, (23, 20), "float32")
    b = it.poison((23, 20), "float32")
    indptr = np.array([0, 4, 7, 7, 19, 23], np.int32)
    it.launch(ragged_rows, (5, cdiv(20, 8)), a, b, indptr, 4, 8)
    want = a.copy()
    for seg in range(5):
        want[indptr[seg]:indptr[seg + 1]] += np.float32(seg)
    it.assert_same(b, want)


@ct.kernel
def shift_through_slice(x, start, stop, B: ct.Constant[int]):
    view = x.slice(0, start, stop)
    for i in range(ct.cdiv(view.shape[0], B)):
        ct.store(view, (i,), ct.load(x, (i,), (B,)))  # reads what earlier iterations wrote


@pytest.mark.parametrize(("start", "stop", "b"), [(7, 41, 8), (3, 50, 16), (1, 9, 4)])
def test_accesses_through_a_slice_are_ordered_with_the_array(it, rng, start, stop, b):
    x = it.rand(rng, 50, "int32")
    want = x.copy()
    extent = stop - start
    for i in range(cdiv(extent, b)):
        m = min(b, extent - i * b)
        want[start + i * b:start + i * b + m] = want[i * b:i * b + m].copy()
    it.launch(shift_through_slice, (1,), x, start, stop, b)
    it.assert_same(x, want)


@pytest.mark.interpreter_only  # the interpreter checks slice bounds; on the GPU it is undefined
@pytest.mark.parametrize(("start", "stop"), [(3, 20), (9, 5)])
def test_slice_out_of_bounds_is_reported(it, start, stop):
    x, y = np.zeros(16, np.float32), np.zeros(16, np.float32)
    with pytest.raises(TileInterpreterError, match=r"slice \[.*\) of axis 0 is out of bounds"):
        it.launch(slice_copy_1d, (1,), x, y, start, stop, 4)


# ----- tiled views -----------------------------------------------------------------------------


@ct.kernel
def view_copy(x, y, counts, T: ct.Constant):
    tx = x.tiled_view(T)
    ty = y.tiled_view(T)
    ty.store((ct.bid(0), ct.bid(1), ct.bid(2))[:x.ndim], tx.load((ct.bid(0), ct.bid(1),
                                                                  ct.bid(2))[:x.ndim]))
    n = counts.tiled_view(())
    if ct.bid(0) + ct.bid(1) + ct.bid(2) == 0:
        n.store(0, tx.num_tiles(0))
        if x.ndim > 1:
            n.store(1, tx.num_tiles(-x.ndim + 1))
        if x.ndim > 2:
            n.store(2, tx.num_tiles(2))


@pytest.mark.parametrize("dtype", ["uint8", "float32", "bfloat16"])
@pytest.mark.parametrize(("shape", "tile"), [((37,), (8,)), ((64,), (64,)), ((13, 21), (4, 8)),
                                             ((6, 5, 9), (2, 4, 4))])
def test_tiled_view_copy(it, rng, dtype, shape, tile):
    x = it.rand(rng, shape, dtype)
    y = it.poison(shape, dtype)
    counts = it.poison(len(shape), "int32")
    grid = tuple(cdiv(s, t) for s, t in zip(shape, tile, strict=True))
    it.launch(view_copy, grid, x, y, counts, tile)
    it.assert_same(y, x)
    it.assert_same(counts, np.array(grid, np.int32))


@ct.kernel
def view_padded(x, y, T: ct.Constant[int], MODE: ct.Constant):
    i = ct.bid(0)
    ct.store(y, (i,), x.tiled_view(T, padding_mode=MODE).load(i))


FLOAT_PAD = {PAD.ZERO: 0.0, PAD.NEG_ZERO: -0.0, PAD.NAN: np.nan, PAD.POS_INF: np.inf,
             PAD.NEG_INF: -np.inf}
INT_PAD = {PAD.ZERO: 0, PAD.NEG_ZERO: 0, PAD.NAN: 0, PAD.POS_INF: 2**31 - 1, PAD.NEG_INF: -2**31}


@pytest.mark.parametrize("dtype", ["float16", "float32", "int32"])
@pytest.mark.parametrize("mode", list(FLOAT_PAD))
def test_tiled_view_padding(it, rng, dtype, mode):
    n, t = 21, 8
    x = it.rand(rng, n, dtype, nonzero=True)
    y = it.poison(cdiv(n, t) * t, dtype)
    y[n:] = 3  # not a padding value: the padding must be written
    it.launch(view_padded, (cdiv(n, t),), x, y, t, mode)
    pad = (FLOAT_PAD if it.is_float(dtype) else INT_PAD)[mode]
    it.assert_same(y, np.concatenate([x, np.full(y.size - n, pad, x.dtype)]))


@ct.kernel
def view_padded_2d(x, y, T: ct.Constant, MODE: ct.Constant):
    i, j = ct.bid(0), ct.bid(1)
    ct.store(y, (i, j), x.tiled_view(T, padding_mode=MODE).load((i, j)))


@pytest.mark.parametrize("mode", [PAD.NEG_INF, PAD.NAN])
def test_tiled_view_padding_2d_edges(it, rng, mode):
    x = it.rand(rng, (10, 13), "float32", nonzero=True)
    y = it.poison((12, 16), "float32")
    it.launch(view_padded_2d, (3, 2), x, y, (4, 8), mode)
    want = np.full((12, 16), FLOAT_PAD[mode], np.float32)
    want[:10, :13] = x
    it.assert_same(y, want)


@ct.kernel
def view_windows(x, out, T: ct.Constant[int], S: ct.Constant[int]):
    tv = x.tiled_view(T, traversal_steps=S, padding_mode=ct.PaddingMode.ZERO)
    sums = out.tiled_view(())
    for i in range(tv.num_tiles(0)):
        sums.store(i, ct.sum(tv.load(i)))


@pytest.mark.parametrize(("n", "t", "s"), [(8, 4, 2), (16, 4, 8), (12, 4, 3), (29, 8, 5),
                                           (10, 3, 1), (7, 16, 4)])
def test_traversal_steps_windows(it, rng, n, t, s):
    x = it.rand(rng, n, "int32", low=-1000, high=1000)
    count = cdiv(n, s)
    out = it.poison(count + 2, "int32")
    it.launch(view_windows, (1,), x, out, t, s)
    want = it.poison(count + 2, "int32")
    want[:count] = [x[k * s:k * s + t].sum() for k in range(count)]
    it.assert_same(out, want)


@ct.kernel
def view_copy_steps(x, y, T: ct.Constant, S: ct.Constant):
    tx = x.tiled_view(T, traversal_steps=S)
    ty = y.tiled_view(T, traversal_steps=S)
    for i in range(tx.num_tiles(0)):
        for j in range(tx.num_tiles(1)):
            ty.store((i, j), tx.load((i, j)))


@pytest.mark.parametrize("dtype", ["float16", "float32", "int8"])
@pytest.mark.parametrize(("shape", "tile", "steps"), [
    ((16, 32), (4, 8), (6, 12)),  # gaps on both axes
    ((17, 33), (4, 8), (2, 8)),  # overlapping rows, awkward sizes
    ((9, 40), (3, 16), (3, 20)),  # a non-power-of-two tile, gaps along the rows
])
def test_traversal_steps_store(it, rng, dtype, shape, tile, steps):
    x = it.rand(rng, shape, dtype)
    y = it.poison(shape, dtype)
    it.launch(view_copy_steps, (1,), x, y, tile, steps)
    want = it.poison(shape, dtype)
    for r in range(0, shape[0], steps[0]):
        for c in range(0, shape[1], steps[1]):
            want[r:r + tile[0], c:c + tile[1]] = x[r:r + tile[0], c:c + tile[1]]
    it.assert_same(y, want)


@ct.kernel
def box_filter(x, out, K: ct.Constant, S: ct.Constant, OH: ct.Constant[int],
               OW: ct.Constant[int]):
    tv = x.tiled_view(K, traversal_steps=S)
    flat = out.tiled_view(())
    for i in range(OH):
        for j in range(OW):
            flat.store(i * OW + j, ct.sum(tv.load((i, j))))


@pytest.mark.parametrize(("shape", "k", "s"), [((6, 6), (2, 2), (1, 1)), ((9, 11), (3, 2), (2, 3))])
def test_sliding_box_filter(it, rng, shape, k, s):
    x = it.rand(rng, shape, "int32", low=0, high=10)
    oh, ow = (shape[0] - k[0]) // s[0] + 1, (shape[1] - k[1]) // s[1] + 1
    out = it.poison(oh * ow, "int32")
    it.launch(box_filter, (1,), x, out, k, s, oh, ow)
    want = np.array([[x[i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]].sum()
                      for j in range(ow)] for i in range(oh)], np.int32).reshape(-1)
    it.assert_same(out, want)


@ct.kernel
def element_view(x, out, S: ct.Constant, NH: ct.Constant[int], NW: ct.Constant[int]):
    tv = x.tiled_view((), traversal_steps=S)
    flat = out.tiled_view(())
    for i in range(NH):
        for j in range(NW):
            flat.store(i * NW + j, tv.load((i, j)))


@pytest.mark.parametrize("steps", [(2, 3), (1, 1)])
def test_element_view_with_steps(it, rng, steps):
    x = it.rand(rng, (4, 6), "float64")
    nh, nw = 4 // steps[0], 6 // steps[1]
    out = it.poison(nh * nw, "float64")
    it.launch(element_view, (1,), x, out, steps, nh, nw)
    it.assert_same(out, x[::steps[0], ::steps[1]].reshape(-1))


@ct.kernel
def view_store_broadcast(x, y, SRC: ct.Constant, DST: ct.Constant):
    t = x.tiled_view(SRC).load((0, 0))
    y.tiled_view(DST).store((0, 0), t)


@pytest.mark.parametrize(("src", "dst"), [((), (16, 16)), ((1, 16), (8, 16)), ((5, 1), (5, 12)),
                                          ((1, 1), (3, 7))])
def test_store_broadcasts_to_the_tile_shape(it, rng, src, dst):
    x = it.rand(rng, src or (1, 1), "float32")
    y = it.poison((dst[0] + 2, dst[1] + 3), "float32")
    it.launch(view_store_broadcast, (1,), x, y, src, dst)
    want = it.poison(y.shape, "float32")
    want[:dst[0], :dst[1]] = np.broadcast_to(x, dst)
    it.assert_same(y, want)


@ct.kernel
def view_store_cast(x, y, z, T: ct.Constant[int]):
    i = ct.bid(0)
    y.tiled_view(T).store(i, x.tiled_view(T).load(i))  # int16 -> float32: implicit
    z.tiled_view(T).store(i, 7)  # a number, broadcast to the tile


def test_store_casts_implicitly(it, rng):
    x = it.rand(rng, 45, "int16")
    y, z = it.poison(45, "float32"), it.poison(45, "int64")
    it.launch(view_store_cast, (cdiv(45, 16),), x, y, z, 16)
    it.assert_same(y, x.astype(np.float32))
    it.assert_same(z, np.full(45, 7, np.int64))


@ct.kernel
def view_of_slice(x, y, start, stop, T: ct.Constant):
    tx = x.slice(1, start, stop).tiled_view(T, padding_mode=ct.PaddingMode.ZERO)
    ty = y.slice(1, start, stop).tiled_view(T)
    assert tx.tile_shape == T and tx.traversal_steps == T and tx.dtype == x.dtype
    i, j = ct.bid(0), ct.bid(1)
    if j < ty.num_tiles(1):
        ty.store((i, j), tx.load((i, j)) + 1)


def test_tiled_view_of_a_slice(it, rng):
    x = it.rand(rng, (11, 50), "float32")
    y = it.poison((11, 50), "float32")
    it.launch(view_of_slice, (cdiv(11, 4), 8), x, y, 9, 44, (4, 8))
    want = it.poison((11, 50), "float32")
    want[:, 9:44] = x[:, 9:44] + 1
    it.assert_same(y, want)


@ct.kernel
def view_properties(x, out, T: ct.Constant, S: ct.Constant):
    tv = x.tiled_view(T, traversal_steps=S)
    flat = out.tiled_view(())
    facts = tv.tile_shape + tv.traversal_steps
    flat.store(0, facts[0])
    flat.store(1, facts[1])
    if len(facts) > 2:
        flat.store(2, facts[2])
        flat.store(3, facts[3])


@pytest.mark.parametrize(("tile", "steps", "want"), [
    ((4, 2), None, (4, 2, 4, 2)), ((), None, (1, 1)), ((3, 5), (2, 7), (3, 5, 2, 7)),
])
def test_view_properties(it, tile, steps, want):
    out = it.poison(6, "int32")
    it.launch(view_properties, (1,), np.zeros((8, 8), np.int8), out, tile, steps)
    expected = it.poison(6, "int32")
    expected[:len(want)] = want
    it.assert_same(out, expected)
