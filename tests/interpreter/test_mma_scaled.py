"""mma_scaled (block-scaled products) on both backends, against a float64 reference.

The reference decodes every operand and scale from its definition (fp8 through ml_dtypes'
exact conversion, e8m0 bytes as 2**(byte - 127)), multiplies and sums in float64. Both backends
compute the exact products (the scaled operands are exact in bfloat16) and differ from it only
by the float32 accumulation: at most about K * 2**-24 of sum |terms| (the bound checked, with
margin). Outputs are poisoned (NaN), so an element never written fails.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct
from tilelang.testing.kernels import scaled_gemm as gemm

E8M0 = np.dtype(ml_dtypes.float8_e8m0fnu)
FP8 = ["float8_e4m3fn", "float8_e5m2"]
BLOCK = 32  # cuTile's scaling block size for fp8 operands


def fp8(rng: np.random.Generator, shape: tuple[int, ...], name: str) -> np.ndarray:
    """Random fp8 values of every magnitude the format has (no NaN or infinity)."""
    x = rng.standard_normal(shape) * 2.0 ** rng.integers(-8, 6, shape)
    return x.astype(getattr(ml_dtypes, name))


def scales(rng: np.random.Generator, shape: tuple[int, ...], spread: int = 12) -> np.ndarray:
    return rng.integers(127 - spread, 127 + spread + 1, shape).astype(np.uint8).view(E8M0)


def decode_scales(s: np.ndarray) -> np.ndarray:
    b = s.view(np.uint8).astype(np.float64)
    return np.where(b == 0xFF, np.nan, np.exp2(b - 127))


def reference(x, xs, y, ys, acc) -> tuple[np.ndarray, np.ndarray]:
    """The float64 result and the bound of its terms' magnitudes (for the tolerance)."""
    xd = x.astype(np.float64) * np.repeat(decode_scales(xs), BLOCK, axis=-1)
    yd = y.astype(np.float64) * np.repeat(decode_scales(ys), BLOCK, axis=-2)
    a = acc.astype(np.float64)
    return xd @ yd + a, np.abs(xd) @ np.abs(yd) + np.abs(a)


def check(out: np.ndarray, ref: np.ndarray, bound: np.ndarray, k: int) -> None:
    assert out.dtype == np.float32
    tol = (k + 2) * 2.0**-22 * bound + 1e-30  # float32 accumulation, with margin
    nan = np.isnan(ref)
    assert np.array_equal(np.isnan(out), nan), "NaN where the reference has none (or not)"
    err = np.abs(out.astype(np.float64) - ref)
    bad = np.argwhere(~nan & ~(err <= tol))
    assert bad.size == 0, f"{len(bad)} elements off, e.g. {[tuple(i) for i in bad[:6]]}"


@ct.kernel
def one_tile(X, XS, Y, YS, ACC, OUT, TM: ct.Constant[int], TN: ct.Constant[int],
             TK: ct.Constant[int]):
    x = ct.load(X, (0, 0), (TM, TK))
    xs = ct.load(XS, (0, 0), (TM, TK // 32))
    y = ct.load(Y, (0, 0), (TK, TN))
    ys = ct.load(YS, (0, 0), (TK // 32, TN))
    acc = ct.load(ACC, (0, 0), (TM, TN))
    ct.store(OUT, (0, 0), ct.mma_scaled(x, xs, y, ys, acc))


@pytest.mark.parametrize("name", FP8)
@pytest.mark.parametrize(("m", "n", "ks"), [(16, 16, 2), (37, 45, 3), (5, 70, 1), (64, 32, 4)])
def test_one_tile(it, rng, name, m, n, ks):
    k = ks * BLOCK
    x, y = fp8(rng, (m, k), name), fp8(rng, (k, n), name)
    xs, ys = scales(rng, (m, ks)), scales(rng, (ks, n))
    acc = rng.standard_normal((m, n)).astype(np.float32)
    out = np.full((m, n), np.nan, np.float32)
    it.launch(one_tile, (1,), x, xs, y, ys, acc, out, m, n, k)
    check(out, *reference(x, xs, y, ys, acc), k)


@pytest.mark.parametrize("name", FP8)
def test_extreme_scales_stay_exact(it, rng, name):
    """Scales of 2**+-100 on opposite operands: the scaled operands are far outside float16's
    range (hence bfloat16) while their products are ordinary numbers."""
    m, n, k = 16, 24, 64
    x, y = fp8(rng, (m, k), name), fp8(rng, (k, n), name)
    xs = rng.choice([127 + 100, 127 + 90], (m, 2)).astype(np.uint8).view(E8M0)
    ys = rng.choice([127 - 100, 127 - 95], (2, n)).astype(np.uint8).view(E8M0)
    acc = np.zeros((m, n), np.float32)
    out = np.full((m, n), np.nan, np.float32)
    ref, bound = reference(x, xs, y, ys, acc)
    it.launch(one_tile, (1,), x, xs, y, ys, acc, out, m, n, k)
    check(out, ref, bound, k)


def test_nan_scale_spoils_its_rows_and_columns_only(it, rng):
    m, n, k = 16, 16, 64
    x, y = fp8(rng, (m, k), "float8_e4m3fn"), fp8(rng, (k, n), "float8_e4m3fn")
    xs, ys = scales(rng, (m, 2)), scales(rng, (2, n))
    xs.view(np.uint8)[3, 1] = 0xFF
    ys.view(np.uint8)[0, 7] = 0xFF
    acc = np.zeros((m, n), np.float32)
    out = np.full((m, n), np.nan, np.float32)
    it.launch(one_tile, (1,), x, xs, y, ys, acc, out, m, n, k)
    nan = np.zeros((m, n), bool)
    nan[3, :] = nan[:, 7] = True
    assert np.array_equal(np.isnan(out), nan)
    check(out, *reference(x, xs, y, ys, acc), k)


@ct.kernel
def batched(X, XS, Y, YS, ACC, OUT, TB: ct.Constant[int], TM: ct.Constant[int],
            TN: ct.Constant[int], TK: ct.Constant[int]):
    x = ct.load(X, (0, 0), (TM, TK))
    xs = ct.load(XS, (0, 0), (TM, TK // 32))
    y = ct.load(Y, (0, 0, 0), (TB, TK, TN))
    ys = ct.load(YS, (0, 0, 0), (TB, TK // 32, TN))
    acc = ct.load(ACC, (0, 0, 0), (TB, TM, TN))
    ct.store(OUT, (0, 0, 0), ct.mma_scaled(x, xs, y, ys, acc))


def test_batch_broadcasts_x_and_its_scales(it, rng):
    b, m, n, k = 3, 16, 24, 128
    x, y = fp8(rng, (m, k), "float8_e4m3fn"), fp8(rng, (b, k, n), "float8_e4m3fn")
    xs, ys = scales(rng, (m, k // BLOCK)), scales(rng, (b, k // BLOCK, n))
    acc = rng.standard_normal((b, m, n)).astype(np.float32)
    out = np.full((b, m, n), np.nan, np.float32)
    it.launch(batched, (1,), x, xs, y, ys, acc, out, b, m, n, k)
    check(out, *reference(x, xs, y, ys, acc), k)



@pytest.mark.parametrize("name", FP8)
@pytest.mark.parametrize(("m", "n", "ks", "tiles"), [(100, 72, 5, (32, 32, 64)),
                                                     (64, 128, 4, (64, 64, 128)),
                                                     (33, 17, 3, (16, 16, 32))])
def test_gemm_loop_with_partial_tiles(it, rng, name, m, n, ks, tiles):
    """Edge tiles are zero-padded: the padded scales are 2**-127 (zero saturates), not NaN, so
    the padded K blocks add nothing."""
    k = ks * BLOCK
    bm, bn, bk = tiles
    a, b = fp8(rng, (m, k), name), fp8(rng, (k, n), name)
    s, t = scales(rng, (m, ks)), scales(rng, (ks, n))
    c = np.full((m, n), np.nan, np.float32)
    it.launch(gemm, (math.ceil(m / bm), math.ceil(n / bn)), a, s, b, t, c, bm, bn, bk)
    check(c, *reference(a, s, b, t, np.zeros((m, n), np.float32)), k)


def test_torch_arrays(it, rng):
    """The arrays cuTile's tests pass: torch fp8 operands and float8_e8m0fnu scales."""
    torch = pytest.importorskip("torch")
    m, n, k = 16, 16, 64
    x = torch.randn(m, k).to(torch.float8_e4m3fn)
    y = torch.randn(k, n).to(torch.float8_e4m3fn)
    xs = torch.randn(m, k // BLOCK).to(torch.float8_e8m0fnu)
    ys = torch.randn(k // BLOCK, n).to(torch.float8_e8m0fnu)
    acc = torch.randn(m, n)
    ref = ((x.float() * xs.float().repeat_interleave(BLOCK, 1))
           @ (y.float() * ys.float().repeat_interleave(BLOCK, 0)) + acc)
    host = [v.view(torch.uint8).numpy().view(getattr(ml_dtypes, str(v.dtype)[6:]))
            for v in (x, xs, y, ys)]
    out = np.full((m, n), np.nan, np.float32)
    it.launch(one_tile, (1,), *host, acc.numpy(), out, m, n, k)
    np.testing.assert_allclose(out, ref.numpy(), rtol=1e-5, atol=1e-5)
