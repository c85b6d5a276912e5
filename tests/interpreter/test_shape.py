"""Broadcasting, t[:, None]-style indexing, expand_dims, reshape and broadcast_to."""

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct


@ct.kernel
def outer_ops(a, b, out, out2, out3):
    x = ct.load(a, (0,), (8,))
    y = ct.load(b, (0,), (4,))
    ct.store(out, (0, 0), x[:, None] * y[None, :])  # (8, 1) * (1, 4)
    ct.store(out2, (0, 0), y - x[:, None])  # (4,) - (8, 1): NumPy aligns trailing dims
    ct.store(out3, (0, 0, 0), x[None, :, None] + y[:, None, None] * 100 + x[..., None][None])


@pytest.mark.parametrize("dtype", ["int32", "float32", "uint8"])
def test_outer_broadcasting(it, rng, dtype):
    x = it.rand(rng, 8, dtype, low=0, high=10)
    y = it.rand(rng, 4, dtype, low=0, high=2)
    out, out2, out3 = it.poison((8, 4), dtype), it.poison((8, 4), dtype), it.poison((4, 8, 1),
                                                                                    dtype)
    it.launch(outer_ops, (1,), x, y, out, out2, out3)
    with np.errstate(over="ignore"):
        it.assert_same(out, x[:, None] * y[None, :])
        it.assert_same(out2, y - x[:, None])
        it.assert_same(out3, x[None, :, None] + y[:, None, None] * dtype_type(dtype, 100)
                       + x[..., None][None])


def dtype_type(dtype: str, v: int):
    return np.dtype(dtype).type(v)


@ct.kernel
def bias_rows(x, bias, out, BM: ct.Constant[int], BN: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    t = ct.load(x, (i, j), (BM, BN))
    b = ct.load(bias, (j,), (BN,))
    col = ct.load(bias, (i,), (BM,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, (i, j), t + b + col[:, None] * 2)  # (BM, BN) + (BN,) + (BM, 1)


@pytest.mark.parametrize(("m", "n", "bm", "bn"), [(1, 1, 1, 1), (5, 7, 4, 4), (20, 9, 8, 16)])
def test_row_and_column_broadcast(it, rng, m, n, bm, bn):
    x = it.rand(rng, (m, n), "float32")
    bias = it.rand(rng, max(m, n), "float32")
    out = it.poison((m, n), "float32")
    it.launch(bias_rows, (-(-m // bm), -(-n // bn)), x, bias, out, bm, bn)
    it.assert_same(out, x + bias[:n] + bias[:m, None] * np.float32(2))


@ct.kernel
def broadcast_mismatch(a, out):
    x = ct.load(a, (0,), (8,))
    ct.store(out, (0,), x + ct.load(a, (0,), (4,)))


def test_broadcast_mismatch_is_rejected(it):
    with pytest.raises(ct.TileTypeError):
        it.launch(broadcast_mismatch, (1,), np.zeros(8, np.float32), np.zeros(8, np.float32))


@ct.kernel
def expand(a, o0, o1, o2, o3):
    x = ct.load(a, (0, 0), (4, 8))
    e0 = ct.expand_dims(x, 0)
    e1 = ct.expand_dims(x, axis=1)
    e2 = ct.expand_dims(x, -1)
    e3 = x.expand_dims(-3)
    assert e0.shape == (1, 4, 8) and e1.shape == (4, 1, 8) and e2.shape == (4, 8, 1)
    assert e3.shape == (1, 4, 8) and e3.ndim == 3
    ct.store(o0, (0, 0, 0), e0)
    ct.store(o1, (0, 0, 0), e1)
    ct.store(o2, (0, 0, 0), e2)
    ct.store(o3, (0, 0, 0), e3)


def test_expand_dims(it, rng):
    x = it.rand(rng, (4, 8), "int16")
    outs = [it.poison(s, "int16") for s in [(1, 4, 8), (4, 1, 8), (4, 8, 1), (1, 4, 8)]]
    it.launch(expand, (1,), x, *outs)
    for out, axis in zip(outs, [0, 1, -1, -3], strict=True):
        it.assert_same(out, np.expand_dims(x, axis))


@ct.kernel
def reshapes(a, o0, o1, o2, o3, o4):
    x = ct.load(a, (0, 0), (4, 8))
    ct.store(o0, (0,), ct.reshape(x, (32,)))
    ct.store(o1, (0, 0), ct.reshape(x, (-1, 2)))
    ct.store(o2, (0, 0, 0), x.reshape((2, -1, 4)))
    ct.store(o3, (0, 0), x.reshape(8, 4))
    ct.store(o4, (0, 0, 0), ct.reshape(x, shape=(2, 2, 8)).reshape(-1).reshape((4, 2, 4)))


@pytest.mark.parametrize("dtype", ["bool_", "float64", "bfloat16"])
def test_reshape(it, rng, dtype):
    base = it.rand(rng, (9, 8), dtype)
    x = base[::2]  # a strided (5, 8) view: the (4, 8) tile is its first rows
    shapes = [(32,), (16, 2), (2, 4, 4), (8, 4), (4, 2, 4)]
    outs = [it.poison(s, dtype) for s in shapes]
    if dtype == "bool_":
        for o in outs:
            o[...] = True
    it.launch(reshapes, (1,), x, *outs)
    for out, shape in zip(outs, shapes, strict=True):
        it.assert_same(out, x[:4].reshape(shape))


@ct.kernel
def bad_reshape(a, out, SHAPE: ct.Constant):
    ct.store(out, (0,), ct.reshape(ct.load(a, (0,), (8,)), SHAPE).reshape(-1))


@pytest.mark.parametrize(("shape", "error"), [((3,), ct.TileValueError),
                                            ((-1, -1), ct.TileTypeError),  # as cuTile
                                            ((3, -1), ct.TileValueError),
                                            ((16,), ct.TileValueError)])
def test_reshape_size_mismatch_is_rejected(it, shape, error):
    with pytest.raises(error):
        it.launch(bad_reshape, (1,), np.zeros(8, np.int8), np.zeros(8, np.int8), shape)


@ct.kernel
def broadcasts(a, o0, o1, o2, o3, s):
    x = ct.load(a, (0,), (4,))
    ct.store(o0, (0, 0), ct.broadcast_to(x, (3, 4)))
    ct.store(o1, (0, 0, 0), ct.broadcast_to(x[:, None], (2, 4, 5)))
    ct.store(o2, (0, 0), ct.broadcast_to(s, (2, 2)))
    ct.store(o3, (0, 0), x[None, :].broadcast_to(2, 4))


def test_broadcast_to(it, rng):
    x = it.rand(rng, 4, "int64")
    outs = [it.poison(s, "int64") for s in [(3, 4), (2, 4, 5), (2, 2), (2, 4)]]
    it.launch(broadcasts, (1,), x, *outs, -(2**40))
    it.assert_same(outs[0], np.broadcast_to(x, (3, 4)))
    it.assert_same(outs[1], np.broadcast_to(x[:, None], (2, 4, 5)))
    it.assert_same(outs[2], np.full((2, 2), -(2**40), np.int64))
    it.assert_same(outs[3], np.broadcast_to(x, (2, 4)))


@ct.kernel
def bad_broadcast(a, out):
    ct.store(out, (0, 0), ct.broadcast_to(ct.load(a, (0,), (4,)), (4, 8)))


def test_broadcast_to_incompatible_is_rejected(it):
    with pytest.raises(ct.TileTypeError):
        it.launch(bad_broadcast, (1,), np.zeros(4, np.int8), np.zeros((4, 8), np.int8))


@ct.kernel
def tile_attributes(a, out):
    x = ct.load(a, (0, 0, 0), (2, 4, 8))
    assert x.shape == (2, 4, 8) and x.ndim == 3 and x.dtype == ct.float16
    assert x.shape[1] * x.shape[2] == 32  # shapes are compile-time ints
    y = x.astype(ct.float32).reshape((x.shape[0], -1))
    assert y.dtype == ct.float32 and y.shape == (2, 32) and y.ndim == 2
    ct.store(out, (0, 0), y * x.ndim + len(x.shape) + x.shape[2])


def test_tile_attributes(it, rng):
    x = it.rand(rng, (3, 5, 9), "float16")
    out = it.poison((2, 32), "float32")
    it.launch(tile_attributes, (1,), x, out)
    want = x[:2, :4, :8].astype(np.float32).reshape(2, 32) * np.float32(3) + np.float32(11)
    it.assert_same(out, want)


@ct.kernel
def tile_item(a, out):
    x = ct.load(a, (0,), (1,))
    ct.store(out, (1,), x.item() * 2)


def test_tile_item(it):
    out = it.poison(2, np.int32)
    it.launch(tile_item, (1,), np.array([21], np.int32), out)
    it.assert_same(out, np.array([out[0], 42], np.int32))


@ct.kernel
def scalar_to_tile(out, s):
    t = ct.full((), 0, ct.int32) + s  # a 0-d tile
    assert t.shape == () and t.ndim == 0
    ct.store(out, (0,), t.reshape((1,)) + ct.zeros((4,), ct.int32))
    ct.store(out, (4,), ct.expand_dims(t, 0) * 2)  # tile 4 of shape (1,): element 4


def test_scalar_reshape_and_expand(it):
    out = it.poison(5, np.int32)
    it.launch(scalar_to_tile, (1,), out, 7)
    it.assert_same(out, np.array([7, 7, 7, 7, 14], np.int32))
