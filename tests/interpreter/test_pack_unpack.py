"""pack_to_bytes and unpack_from_bytes against NumPy's views of the same memory."""

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct

DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
          "bfloat16", "float32", "float64"]


@ct.kernel
def pack_1d(x, y, TILE: ct.Constant[int]):
    ct.store(y, (0,), ct.pack_to_bytes(ct.load(x, (0,), (TILE,))))


@ct.kernel
def unpack_1d(x, y, TILE: ct.Constant[int]):
    ct.store(y, (0,), ct.unpack_from_bytes(ct.load(x, (0,), (TILE,)), y.dtype))


@ct.kernel
def roundtrip_2d(x, y, BM: ct.Constant[int], BN: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    packed = ct.pack_to_bytes(ct.load(x, (i, j), (BM, BN)))
    ct.store(y, (i, j), ct.reshape(ct.unpack_from_bytes(packed, y.dtype), (BM, BN)))


@ct.kernel
def roundtrip_scalar(x, y):
    t = ct.gather(x, 0)
    ct.scatter(y, 0, ct.unpack_from_bytes(ct.pack_to_bytes(t), y.dtype).reshape(()))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [24, 32])
def test_pack_is_the_little_endian_bytes(it, rng, dtype, n):
    x = it.rand(rng, n, dtype, special=True)
    y = it.poison(n * x.itemsize, np.uint8)
    it.launch(pack_1d, (1,), x, y, n)
    it.assert_same(y, x.view(np.uint8))


@pytest.mark.parametrize("dtype", DTYPES)
def test_unpack_reads_the_bytes_back(it, rng, dtype):
    ref = it.rand(rng, 12, dtype, special=True)
    y = it.poison(12, dtype)
    it.launch(unpack_1d, (1,), ref.view(np.uint8).copy(), y, ref.nbytes)
    it.assert_same(y, ref)


@pytest.mark.parametrize("dtype", ["int8", "uint16", "float32", "float64", "bfloat16"])
def test_roundtrip_of_2d_tiles(it, rng, dtype):
    x = it.rand(rng, (12, 20), dtype)
    y = it.poison((12, 20), dtype)
    it.launch(roundtrip_2d, (3, 2), x, y, 4, 10)
    it.assert_same(y, x)


@pytest.mark.parametrize("dtype", ["uint8", "int32", "float64"])
def test_roundtrip_of_a_scalar(it, rng, dtype):
    x = it.rand(rng, 1, dtype)
    y = it.poison(1, dtype)
    it.launch(roundtrip_scalar, (1,), x, y)
    it.assert_same(y, x)


@pytest.mark.parametrize(("src", "dst"), [("float32", "int8"), ("int8", "float32"),
                                          ("uint16", "float64"), ("float64", "bfloat16"),
                                          ("int64", "uint32")])
def test_pack_then_unpack_as_another_dtype(it, rng, src, dst):
    x = it.rand(rng, 16, src)
    n_out = x.nbytes // it.np_dtype(dst).itemsize
    y = it.poison(n_out, dst)
    it.launch(pack_then_unpack, (1,), x, y, 16)
    it.assert_same(y, x.view(it.np_dtype(dst)))


@ct.kernel
def pack_then_unpack(x, y, TILE: ct.Constant[int]):
    packed = ct.pack_to_bytes(ct.load(x, (0,), (TILE,)))
    ct.store(y, (0,), ct.unpack_from_bytes(packed, y.dtype))


def test_packed_shape_and_dtype(it):
    @ct.kernel
    def shapes(out):
        b = ct.pack_to_bytes(ct.full((2, 4), 1, ct.int32))
        ct.static_assert(b.shape == (32,) and b.dtype == ct.uint8)
        u = ct.unpack_from_bytes(b, ct.float16)
        ct.static_assert(u.shape == (16,) and u.dtype == ct.float16)
        ct.store(out, (0,), u.astype(ct.float32))

    out = it.poison(16, np.float32)
    it.launch(shapes, (1,), out)
    it.assert_same(out, np.full(8, 1, np.int32).view(np.float16).astype(np.float32))
