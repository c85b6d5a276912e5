"""mma_scaled with float4_e2m1fn operands on both backends, against a float64 reference.

The operands come as cuTile's tests pass them: uint8 arrays of two fp4 codes a byte (the low 4
bits first) read with unpack_from_bytes, the scales float8_e8m0fnu (blocks of 16 or 32) or
float8_e4m3fn (blocks of 16). The reference decodes every code and scale from its definition
and computes in float64; the backends' products are exact (fp4 times a scale fits bfloat16) and
only the float32 accumulation differs (the bound of test_mma_scaled.check). Outputs are poisoned.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from test_float4_e2m1 import decode_bytes
from test_mma_scaled import check, decode_scales

import tilelang as ct

E4M3 = np.dtype(ml_dtypes.float8_e4m3fn)
E8M0 = np.dtype(ml_dtypes.float8_e8m0fnu)
SCALINGS = [("float8_e8m0fnu", 32), ("float8_e8m0fnu", 16), ("float8_e4m3fn", 16)]


def codes(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Random packed fp4 bytes: shape (..., K) of values is (..., K // 2) of bytes."""
    return rng.integers(0, 256, (*shape[:-1], shape[-1] // 2), dtype=np.uint8)


def scales(rng: np.random.Generator, shape: tuple[int, ...], name: str) -> np.ndarray:
    if name == "float8_e8m0fnu":
        return rng.integers(127 - 12, 127 + 13, shape).astype(np.uint8).view(E8M0)
    s = rng.standard_normal(shape) * 2.0 ** rng.integers(-9, 6, shape)  # subnormals, negatives
    return s.astype(E4M3)


def decode_scale(s: np.ndarray) -> np.ndarray:
    return decode_scales(s) if s.dtype == E8M0 else s.astype(np.float64)


def reference(xb, xs, yb, ys, acc, block: int) -> tuple[np.ndarray, np.ndarray]:
    """Float64 result and the bound of its terms' magnitudes; x is (..., M, K) as bytes
    (..., M, K/2), y is (..., K, N) as bytes (..., K, N/2)."""
    x = decode_bytes(xb) * np.repeat(decode_scale(xs), block, axis=-1)
    y = decode_bytes(yb) * np.repeat(decode_scale(ys), block, axis=-2)
    a = acc.astype(np.float64)
    with np.errstate(invalid="ignore"):
        return x @ y + a, np.abs(x) @ np.abs(y) + np.abs(a)


@ct.kernel
def one_tile(X, XS, Y, YS, ACC, OUT, TM: ct.Constant[int], TN: ct.Constant[int],
             TK: ct.Constant[int], B: ct.Constant[int]):
    xb = ct.load(X, (0, 0), (TM, TK // 2)).reshape((-1,))
    x = ct.unpack_from_bytes(xb, ct.float4_e2m1fn).reshape((TM, TK))
    yb = ct.load(Y, (0, 0), (TK, TN // 2)).reshape((-1,))
    y = ct.unpack_from_bytes(yb, ct.float4_e2m1fn).reshape((TK, TN))
    xs = ct.load(XS, (0, 0), (TM, TK // B))
    ys = ct.load(YS, (0, 0), (TK // B, TN))
    acc = ct.load(ACC, (0, 0), (TM, TN))
    ct.store(OUT, (0, 0), ct.mma_scaled(x, xs, y, ys, acc))


@pytest.mark.parametrize(("scale", "block"), SCALINGS)
@pytest.mark.parametrize(("m", "n", "ks"), [(16, 16, 2), (37, 46, 3), (5, 70, 1), (64, 32, 4)])
def test_one_tile(it, rng, scale, block, m, n, ks):
    k = ks * block
    x, y = codes(rng, (m, k)), codes(rng, (k, n))
    xs, ys = scales(rng, (m, ks), scale), scales(rng, (ks, n), scale)
    acc = rng.standard_normal((m, n)).astype(np.float32)
    out = np.full((m, n), np.nan, np.float32)
    it.launch(one_tile, (1,), x, xs, y, ys, acc, out, m, n, k, block)
    check(out, *reference(x, xs, y, ys, acc, block), k)


@pytest.mark.parametrize(("scale", "block"), SCALINGS)
def test_nan_scale_spoils_its_rows_and_columns_only(it, rng, scale, block):
    m, n, k = 16, 16, 64
    x, y = codes(rng, (m, k)), codes(rng, (k, n))
    xs, ys = scales(rng, (m, k // block), scale), scales(rng, (k // block, n), scale)
    nan = 0xFF if scale == "float8_e8m0fnu" else 0x7F
    xs.view(np.uint8)[3, 1] = nan
    ys.view(np.uint8)[0, 7] = nan
    acc = np.zeros((m, n), np.float32)
    out = np.full((m, n), np.nan, np.float32)
    it.launch(one_tile, (1,), x, xs, y, ys, acc, out, m, n, k, block)
    expected = np.zeros((m, n), bool)
    expected[3, :] = expected[:, 7] = True
    assert np.array_equal(np.isnan(out), expected)
    check(out, *reference(x, xs, y, ys, acc, block), k)


def test_extreme_e8m0_scales_stay_exact(it, rng):
    """2**+-100 on opposite operands: the scaled operands only fit bfloat16's range."""
    m, n, k = 16, 24, 64
    x, y = codes(rng, (m, k)), codes(rng, (k, n))
    xs = rng.choice([127 + 100, 127 + 90], (m, 4)).astype(np.uint8).view(E8M0)
    ys = rng.choice([127 - 100, 127 - 95], (4, n)).astype(np.uint8).view(E8M0)
    acc = np.zeros((m, n), np.float32)
    out = np.full((m, n), np.nan, np.float32)
    it.launch(one_tile, (1,), x, xs, y, ys, acc, out, m, n, k, 16)
    check(out, *reference(x, xs, y, ys, acc, 16), k)


@ct.kernel
def batched(X, XS, Y, YS, ACC, OUT, TB: ct.Constant[int], TM: ct.Constant[int],
            TN: ct.Constant[int], TK: ct.Constant[int], B: ct.Constant[int]):
    xb = ct.load(X, (0, 0), (TM, TK // 2)).reshape((-1,))
    x = ct.unpack_from_bytes(xb, ct.float4_e2m1fn).reshape((TM, TK))
    yb = ct.load(Y, (0, 0, 0), (TB, TK, TN // 2)).reshape((-1,))
    y = ct.unpack_from_bytes(yb, ct.float4_e2m1fn).reshape((TB, TK, TN))
    xs = ct.load(XS, (0, 0), (TM, TK // B))
    ys = ct.load(YS, (0, 0, 0), (TB, TK // B, TN))
    acc = ct.load(ACC, (0, 0, 0), (TB, TM, TN))
    ct.store(OUT, (0, 0, 0), ct.mma_scaled(x, xs, y, ys, acc))


def test_batch_broadcasts_x_and_its_scales(it, rng):
    b, m, n, k, block = 3, 16, 24, 96, 16
    x, y = codes(rng, (m, k)), codes(rng, (b, k, n))
    xs, ys = scales(rng, (m, k // block), "float8_e4m3fn"), \
        scales(rng, (b, k // block, n), "float8_e4m3fn")
    acc = rng.standard_normal((b, m, n)).astype(np.float32)
    out = np.full((b, m, n), np.nan, np.float32)
    it.launch(batched, (1,), x, xs, y, ys, acc, out, b, m, n, k, block)
    check(out, *reference(x, xs, y, ys, acc, block), k)


@ct.kernel
def gemm(A, AS, B, BS, C, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int],
         BLOCK: ct.Constant[int]):
    """C = A @ B with A (M, K) as bytes (M, K/2) and B (K, N) as bytes (K, N/2)."""
    i, j = ct.bid(0), ct.bid(1)
    zero = ct.PaddingMode.ZERO
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(AS, axis=1, shape=(BM, BK // BLOCK))):
        ab = ct.load(A, (i, k), (BM, BK // 2), padding_mode=zero).reshape((-1,))
        a = ct.unpack_from_bytes(ab, ct.float4_e2m1fn).reshape((BM, BK))
        bb = ct.load(B, (k, j), (BK, BN // 2), padding_mode=zero).reshape((-1,))
        b = ct.unpack_from_bytes(bb, ct.float4_e2m1fn).reshape((BK, BN))
        s = ct.load(AS, (i, k), (BM, BK // BLOCK), padding_mode=zero)
        t = ct.load(BS, (k, j), (BK // BLOCK, BN), padding_mode=zero)
        acc = ct.mma_scaled(a, s, b, t, acc)
    ct.store(C, (i, j), acc)


@pytest.mark.parametrize(("scale", "block"), SCALINGS)
@pytest.mark.parametrize(("m", "n", "k", "tiles"), [(100, 72, 160, (32, 32, 64)),
                                                    (64, 128, 256, (64, 64, 128)),
                                                    (33, 18, 96, (16, 16, 32))])
def test_gemm_loop_with_partial_tiles(it, rng, scale, block, m, n, k, tiles):
    """Edge tiles are zero-padded: padded bytes are +0 values and padded scales 2**-127 (e8m0)
    or 0 (e4m3), so the padded K blocks add nothing."""
    bm, bn, bk = tiles
    a, b = codes(rng, (m, k)), codes(rng, (k, n))
    s, t = scales(rng, (m, k // block), scale), scales(rng, (k // block, n), scale)
    c = np.full((m, n), np.nan, np.float32)
    it.launch(gemm, (math.ceil(m / bm), math.ceil(n / bn)), a, s, b, t, c, bm, bn, bk, block)
    check(c, *reference(a, s, b, t, np.zeros((m, n), np.float32), block), k)


def test_torch_arrays(it, rng):
    """cuTile's test's arrays: torch uint8 bytes and float8_e8m0fnu scales."""
    torch = pytest.importorskip("torch")
    m, n, k, block = 16, 16, 64, 32
    x = torch.randint(0, 256, (m, k // 2), dtype=torch.uint8)
    y = torch.randint(0, 256, (k, n // 2), dtype=torch.uint8)
    xs = torch.randn(m, k // block).to(torch.float8_e8m0fnu)
    ys = torch.randn(k // block, n).to(torch.float8_e8m0fnu)
    acc = torch.randn(m, n)
    host = [x.numpy(), xs.view(torch.uint8).numpy().view(E8M0), y.numpy(),
            ys.view(torch.uint8).numpy().view(E8M0)]
    out = np.full((m, n), np.nan, np.float32)
    it.launch(one_tile, (1,), *host, acc.numpy(), out, m, n, k, block)
    check(out, *reference(*host, acc.numpy(), block), k)
