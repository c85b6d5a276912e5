"""float8_e5m3fnu (block scales of fp4 mma_scaled) on both backends.

Arrays hold its bytes as uint8 (torch, NumPy and DLPack have no such dtype), read with
unpack_from_bytes and written with pack_to_bytes, as cuTile's tests do. Conversions from it are
exact (float16 overflows from 65536 up); conversions to it round to nearest even and saturate at
114688 (+inf included), negative values and NaN give NaN (0xFF), -0.0 gives zero. References are
the exact ones of tests/dialect/test_float8_e5m3_meaning.py; mma_scaled's is float64.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
from test_mma_scaled import check
from test_mma_scaled_fp4 import codes, decode_bytes

import tilelang as ct

sys.path.insert(0, str(Path(__file__).parents[1] / "dialect"))
from test_float8_e5m3_meaning import encode, exact


def values(codes_: np.ndarray) -> np.ndarray:
    flat = [math.nan if exact(int(c)) is None else float(exact(int(c)))
            for c in np.asarray(codes_).reshape(-1)]
    return np.array(flat, np.float64).reshape(np.shape(codes_))


@ct.kernel
def to_bytes(x, y, T: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (T,))
    ct.store(y, (ct.bid(0),), ct.pack_to_bytes(t.astype(ct.float8_e5m3fnu)))


@ct.kernel
def from_bytes(x, y, T: ct.Constant[int]):
    t = ct.unpack_from_bytes(ct.load(x, (ct.bid(0),), (T,)), ct.float8_e5m3fnu)
    ct.store(y, (ct.bid(0),), t.astype(y.dtype))


@ct.kernel
def from_bytes_rounded(x, y, T: ct.Constant[int], MODE: ct.Constant):
    t = ct.unpack_from_bytes(ct.load(x, (ct.bid(0),), (T,)), ct.float8_e5m3fnu)
    ct.store(y, (ct.bid(0),), ct.astype(t, y.dtype, rounding_mode=MODE))


@ct.kernel
def copy_2d(x, y):
    t = ct.unpack_from_bytes(ct.load(x, (0, 0), (8, 32)).reshape((-1,)), ct.float8_e5m3fnu)
    t = ct.permute(t.reshape((8, 32)), (1, 0))
    ct.store(y, (0, 0), ct.pack_to_bytes(t.reshape((-1,))).reshape((32, 8)))


def test_bytes_round_trip_through_a_permute(it):
    x = np.arange(256, dtype=np.uint8).reshape(8, 32)
    y = np.full((32, 8), 0x5B, np.uint8)
    it.launch(copy_2d, (1,), x, y)
    assert np.array_equal(y, x.T)


@pytest.mark.parametrize("dst", ["float32", "float64", "float16", "bfloat16", "int32", "uint8"])
def test_astype_from_every_code(it, dst):
    x = np.arange(256, dtype=np.uint8)
    y = it.poison(256, dst)
    it.launch(from_bytes, (4,), x, y, 64)
    with np.errstate(over="ignore", invalid="ignore"):
        v = values(x)
        if it.is_float(dst):
            want = v.astype(np.float32).astype(it.np_dtype(dst))
        else:
            info = np.iinfo(dst)
            want = np.where(np.isnan(v), 0, np.clip(np.trunc(v), info.min, info.max)).astype(dst)
    it.assert_same(y, want)


@pytest.mark.parametrize("mode", [ct.RoundingMode.RN, ct.RoundingMode.RZ, ct.RoundingMode.RM,
                                  ct.RoundingMode.RP, ct.RoundingMode.RA])
@pytest.mark.parametrize("dst", ["float32", "float64"])
def test_rounding_modes_from_it_are_exact(it, mode, dst):
    """cuTile's test_rounding_from_f8e5m3fnu: every mode, the exact value."""
    x = np.arange(256, dtype=np.uint8)
    y = it.poison(256, dst)
    it.launch(from_bytes_rounded, (2,), x, y, 128, mode)
    it.assert_same(y, values(x).astype(dst))


def test_rz_to_float16_saturates(it):
    """65536 and up are beyond float16: RZ gives 65504 where RN gives inf."""
    x = np.array([0x78, 0xF0, 0xF8, 0xFE, 0x01, 0x00, 0xFF, 0xEF], np.uint8)
    y = it.poison(8, "float16")
    it.launch(from_bytes_rounded, (1,), x, y, 8, ct.RoundingMode.RZ)
    want = np.array([1.0, 32768.0, 65504.0, 65504.0, 2.0 ** -17, 0.0, np.nan, 30720.0], np.float16)
    it.assert_same(y, want)


@pytest.mark.parametrize("src", ["float32", "float64", "float16", "bfloat16", "int32"])
def test_astype_to_it(it, rng, src):
    n = 256
    if src == "int32":
        x = rng.integers(-5, 200000, n).astype(np.int32)
    else:
        top = 15 if src == "float16" else 18  # float16 ends at 65504
        x = (rng.standard_normal(n) * 2.0 ** rng.integers(-20, top, n)).astype(it.np_dtype(src))
        big = 65504.0 if src == "float16" else 118784.0  # a tie that rounds down to 114688
        x[:8] = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 114688.0, big, 1.0625])
    y = np.full(n, 0x5B, np.uint8)
    it.launch(to_bytes, (4,), x, y, 64)
    want = [encode(int(v) if src == "int32" else float(v)) for v in x.astype(np.float64)]
    assert [int(c) for c in y] == want


@ct.kernel
def constants(y):
    a = ct.full((4,), 1.5, ct.float8_e5m3fnu)
    b = ct.astile((ct.float8_e5m3fnu(200000.0), 2.0 ** -17, 0.0, 1.0625), dtype=ct.float8_e5m3fnu)
    ct.store(y, (0,), ct.cat((a.astype(ct.float32), b.astype(ct.float32)), 0))


def test_constants(it):
    """cuTile's test_full_f8e5m3fnu and test_float8_e5m3fnu_constructor; saturation."""
    y = it.poison(8, "float32")
    it.launch(constants, (1,), y)
    it.assert_same(y, np.array([1.5] * 4 + [114688.0, 2.0 ** -17, 0.0, 1.0], np.float32))


# ----- mma_scaled with float8_e5m3fnu scales -------------------------------------------------


@ct.kernel
def one_tile(X, XS, Y, YS, ACC, OUT, TM: ct.Constant[int], TN: ct.Constant[int],
             TK: ct.Constant[int], B: ct.Constant[int]):
    x = ct.unpack_from_bytes(ct.load(X, (0, 0), (TM, TK // 2)).reshape((-1,)),
                             ct.float4_e2m1fn).reshape((TM, TK))
    y = ct.unpack_from_bytes(ct.load(Y, (0, 0), (TK, TN // 2)).reshape((-1,)),
                             ct.float4_e2m1fn).reshape((TK, TN))
    xs = ct.unpack_from_bytes(ct.load(XS, (0, 0), (TM, TK // B)).reshape((-1,)),
                              ct.float8_e5m3fnu).reshape((TM, TK // B))
    ys = ct.unpack_from_bytes(ct.load(YS, (0, 0), (TK // B, TN)).reshape((-1,)),
                              ct.float8_e5m3fnu).reshape((TK // B, TN))
    acc = ct.load(ACC, (0, 0), (TM, TN))
    ct.store(OUT, (0, 0), ct.mma_scaled(x, xs, y, ys, acc))


def reference(xb, xs, yb, ys, acc, block: int) -> tuple[np.ndarray, np.ndarray]:
    x = decode_bytes(xb) * np.repeat(values(xs), block, axis=-1)
    y = decode_bytes(yb) * np.repeat(values(ys), block, axis=-2)
    a = acc.astype(np.float64)
    with np.errstate(invalid="ignore"):
        return x @ y + a, np.abs(x) @ np.abs(y) + np.abs(a)


def scale_bytes(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Codes 0..0xFE (subnormals, zero and 114688 included), as cuTile's test draws them."""
    return rng.integers(0, 255, shape).astype(np.uint8)


@pytest.mark.parametrize("block", [16, 32])
@pytest.mark.parametrize(("m", "n", "ks"), [(16, 16, 4), (37, 46, 3), (5, 70, 1), (64, 32, 2)])
def test_mma_scaled(it, rng, block, m, n, ks):
    k = ks * block
    x, y = codes(rng, (m, k)), codes(rng, (k, n))
    xs, ys = scale_bytes(rng, (m, ks)), scale_bytes(rng, (ks, n))
    acc = rng.standard_normal((m, n)).astype(np.float32)
    out = np.full((m, n), np.nan, np.float32)
    it.launch(one_tile, (1,), x, xs, y, ys, acc, out, m, n, k, block)
    check(out, *reference(x, xs, y, ys, acc, block), k)


def test_nan_scale_spoils_its_rows_and_columns_only(it, rng):
    m, n, k, block = 16, 16, 64, 16
    x, y = codes(rng, (m, k)), codes(rng, (k, n))
    xs, ys = scale_bytes(rng, (m, k // block)), scale_bytes(rng, (k // block, n))
    xs[3, 1] = ys[0, 7] = 0xFF
    acc = np.zeros((m, n), np.float32)
    out = np.full((m, n), np.nan, np.float32)
    it.launch(one_tile, (1,), x, xs, y, ys, acc, out, m, n, k, block)
    expected = np.zeros((m, n), bool)
    expected[3, :] = expected[:, 7] = True
    assert np.array_equal(np.isnan(out), expected)
    check(out, *reference(x, xs, y, ys, acc, block), k)


@ct.kernel
def gemm(A, AS, B, BS, C, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int],
         BLOCK: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    zero = ct.PaddingMode.ZERO
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(AS, axis=1, shape=(BM, BK // BLOCK))):
        ab = ct.load(A, (i, k), (BM, BK // 2), padding_mode=zero).reshape((-1,))
        a = ct.unpack_from_bytes(ab, ct.float4_e2m1fn).reshape((BM, BK))
        bb = ct.load(B, (k, j), (BK, BN // 2), padding_mode=zero).reshape((-1,))
        b = ct.unpack_from_bytes(bb, ct.float4_e2m1fn).reshape((BK, BN))
        sb = ct.load(AS, (i, k), (BM, BK // BLOCK), padding_mode=zero).reshape((-1,))
        s = ct.unpack_from_bytes(sb, ct.float8_e5m3fnu).reshape((BM, BK // BLOCK))
        tb = ct.load(BS, (k, j), (BK // BLOCK, BN), padding_mode=zero).reshape((-1,))
        t = ct.unpack_from_bytes(tb, ct.float8_e5m3fnu).reshape((BK // BLOCK, BN))
        acc = ct.mma_scaled(a, s, b, t, acc)
    ct.store(C, (i, j), acc)


@pytest.mark.parametrize("block", [16, 32])
@pytest.mark.parametrize(("m", "n", "k", "tiles"), [(100, 72, 160, (32, 32, 64)),
                                                    (33, 18, 96, (16, 16, 32))])
def test_gemm_loop_with_partial_tiles(it, rng, block, m, n, k, tiles):
    """Padded scale bytes are 0, the value zero: padded K blocks add nothing."""
    bm, bn, bk = tiles
    a, b = codes(rng, (m, k)), codes(rng, (k, n))
    s, t = scale_bytes(rng, (m, k // block)), scale_bytes(rng, (k // block, n))
    c = np.full((m, n), np.nan, np.float32)
    it.launch(gemm, (math.ceil(m / bm), math.ceil(n / bn)), a, s, b, t, c, bm, bn, bk, block)
    check(c, *reference(a, s, b, t, np.zeros((m, n), np.float32), block), k)
