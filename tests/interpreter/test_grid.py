"""bid, num_blocks, num_tiles and cdiv on the interpreter."""

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct


@ct.kernel
def grid_ids(bx, by, bz, nx, ny, nz):
    x, y, z = ct.bid(0), ct.bid(1), ct.bid(2)
    ct.store(bx, (z, y, x), ct.bid(0))
    ct.store(by, (z, y, x), ct.bid(1))
    ct.store(bz, (z, y, x), ct.bid(2))
    ct.store(nx, (z, y, x), ct.num_blocks(0))
    ct.store(ny, (z, y, x), ct.num_blocks(1))
    ct.store(nz, (z, y, x), ct.num_blocks(2))


@pytest.mark.parametrize("grid", [(1,), (5,), (3, 2), (2, 3, 4), (1, 1, 3)])
def test_bid_and_num_blocks(it, grid):
    full = (*grid, 1, 1)[:3]
    gx, gy, gz = full
    outs = [it.poison((gz, gy, gx), np.int32) for _ in range(6)]
    it.launch(grid_ids, grid, *outs)
    z, y, x = np.meshgrid(np.arange(gz), np.arange(gy), np.arange(gx), indexing="ij")
    for out, want in zip(outs, [x, y, z, *(np.full_like(x, g) for g in full)], strict=True):
        it.assert_same(out, want.astype(np.int32))


@ct.kernel
def bid_dtype(out):
    b = ct.bid(0)
    n = ct.num_blocks(0)
    assert b.dtype == ct.int32 and n.dtype == ct.int32 and b.ndim == 0 and b.shape == ()
    ct.store(out, (b,), b * 10 + n)


def test_bid_is_int32_scalar(it):
    out = it.poison(4, np.int32)
    it.launch(bid_dtype, (4,), out)
    it.assert_same(out, np.arange(4, dtype=np.int32) * 10 + 4)


@ct.kernel
def tiles_2d(x, out, B0: ct.Constant[int], B1: ct.Constant[int]):
    ct.store(out, (0,), ct.num_tiles(x, 0, (B0, B1)))
    ct.store(out, (1,), ct.num_tiles(x, 1, (B0, B1)))
    ct.store(out, (2,), ct.num_tiles(x, axis=0, shape=(B0, B1), order="F"))
    ct.store(out, (3,), ct.num_tiles(x, axis=1, shape=(B0, B1), order=(1, 0)))
    ct.store(out, (4,), ct.num_tiles(x, axis=-1, shape=(B0, B1), order="C"))


@ct.kernel
def tiles_of_one_element(x, out):
    ct.store(out, (0,), ct.num_tiles(x, axis=1, shape=()))  # () as for load: 1 per dimension
    ct.store(out, (1,), ct.num_tiles(x, axis=0, shape=(), order="F"))


def test_num_tiles_of_a_scalar_shape(it):
    out = it.poison(2, np.int32)
    it.launch(tiles_of_one_element, (1,), np.zeros((7, 33), np.float32), out)
    it.assert_same(out, np.array([33, 33], np.int32))


@pytest.mark.parametrize(("shape", "tile"), [
    ((1, 1), (1, 1)), ((7, 33), (4, 8)), ((64, 16), (16, 16)), ((5, 100), (8, 32)),
    ((130, 3), (64, 2)),
])
def test_num_tiles_2d(it, shape, tile):
    x = np.zeros(shape, np.float32)
    out = it.poison(5, np.int32)
    it.launch(tiles_2d, (1,), x, out, *tile)
    (m, n), (b0, b1) = shape, tile
    cd = lambda a, b: -(-a // b)  # noqa: E731
    it.assert_same(out, np.array([cd(m, b0), cd(n, b1), cd(n, b0), cd(m, b1), cd(n, b1)],
                                 np.int32))


@ct.kernel
def tiles_3d(x, out, B: ct.Constant[int]):
    ct.store(out, (0,), ct.num_tiles(x, 0, (B, B, B)))
    ct.store(out, (1,), ct.num_tiles(x, 1, (B, B, B)))
    ct.store(out, (2,), ct.num_tiles(x, 2, (B, B, 2 * B)))
    ct.store(out, (3,), ct.num_tiles(x, 0, (B, B, B), order=(2, 0, 1)))
    ct.store(out, (4,), ct.num_tiles(x, 2, (B, 2 * B, B), order="F"))


@ct.kernel
def tiles_1d(x, out, B: ct.Constant[int]):
    ct.store(out, (0,), ct.num_tiles(x, 0, B))  # a single int for a 1-d shape
    ct.store(out, (1,), ct.num_tiles(x, 0, (B,)))


def test_num_tiles_3d_and_views(it):
    base = np.zeros((9, 20, 6), np.int8)
    x = base[:, ::3, :]  # (9, 7, 6), non-contiguous
    out = it.poison(5, np.int32)
    it.launch(tiles_3d, (1,), x, out, 4)
    it.assert_same(out, np.array([3, 2, 1, 2, 3], np.int32))
    out = it.poison(2, np.int32)
    it.launch(tiles_1d, (1,), np.zeros(1, np.float64), out, 16)
    it.assert_same(out, np.array([1, 1], np.int32))
    it.launch(tiles_1d, (1,), np.zeros(1000, np.float64)[::7], out, 16)  # 143 elements
    it.assert_same(out, np.array([9, 9], np.int32))


@ct.kernel
def cdiv_kernel(x, out, n, m, B: ct.Constant[int]):
    ct.store(out, (0,), ct.cdiv(n, m))
    ct.store(out, (1,), ct.cdiv(n, B))
    ct.store(out, (2,), ct.cdiv(x.shape[0], B))
    ct.store(out, (3,), ct.cdiv(13, 4) + ct.cdiv(B, 3))  # constants fold with Python semantics
    ct.store(out, (4,), ct.cdiv(ct.int64(n), m))


@pytest.mark.parametrize(("n", "m", "b"), [(0, 1, 1), (1, 1, 2), (7, 2, 4), (100, 10, 32),
                                           (129, 64, 64), (2**30, 3, 8)])
def test_cdiv_in_kernel(it, n, m, b):
    x = np.zeros(n % 1000 + 1, np.float32)
    out = it.poison(5, np.int64)
    it.launch(cdiv_kernel, (1,), x, out, n, m, b)
    cd = lambda a, c: -(-a // c)  # noqa: E731
    it.assert_same(out, np.array([cd(n, m), cd(n, b), cd(x.size, b), 4 + cd(b, 3), cd(n, m)],
                                 np.int64))


@ct.kernel
def cdiv_tiles(x, y, out, N: ct.Constant[int]):
    ct.store(out, (0,), ct.cdiv(ct.load(x, (0,), (N,)), ct.load(y, (0,), (N,))))


@pytest.mark.parametrize("dtype", ["int8", "int16", "uint8", "int32"])
def test_cdiv_of_tiles_is_exact(it, rng, dtype):
    """Rounding up for every sign, and no overflow of x + y - 1 near the dtype's maximum."""
    x = it.rand(rng, 64, dtype)
    y = it.rand(rng, 64, dtype, nonzero=True)
    info = np.iinfo(x.dtype)
    x[:3], y[:3] = info.max, (info.max - 1, 7, 2)  # x + y - 1 would overflow
    out = it.poison(64, dtype)
    it.launch(cdiv_tiles, (1,), x, y, out, 64)
    want = -(-x.astype(np.int64) // y.astype(np.int64))
    keep = want <= info.max  # -128 / -1 overflows in any formula
    it.assert_same(out[keep], want[keep].astype(x.dtype))


def test_cdiv_on_host():
    for x in range(0, 50):
        for y in range(1, 9):
            assert ct.cdiv(x, y) == -(-x // y)
    assert ct.cdiv(2**70 + 1, 2**10) == 2**60 + 1
    assert ct.cdiv(np.int64(10), 4) == 3
