"""ct.mma, ct.matmul and `@` on both backends, against float64 (or exact integer) references.

The interpreter computes a product in float64 and rounds it once to the accumulator dtype, so
there results must equal the reference exactly. On the GPU the tensor cores accumulate in their
own order and precision, so results must lie within the classic bound for a sum of K products:
|got - exact| <= 2 (K + 2) u (|a| @ |b| + |acc|), with u the accumulator's unit roundoff (for fp8
inputs, the 14-bit precision of Hopper's fp8 accumulation). Integer products are exact on both.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct
from tilelang.testing.kernels import make_matmul

UNIT_ROUNDOFF = {"float16": 2.0**-11, "float32": 2.0**-24, "float64": 2.0**-53}
FP8 = ("float8_e4m3fn", "float8_e5m2")
MMA_CASES = [  # (input dtype, accumulator dtype): cuTile's table
    ("float16", "float16"), ("float16", "float32"), ("bfloat16", "float32"),
    ("float32", "float32"), ("float64", "float64"), ("float8_e4m3fn", "float16"),
    ("float8_e4m3fn", "float32"), ("float8_e5m2", "float16"), ("float8_e5m2", "float32"),
    ("int8", "int32"), ("uint8", "int32"),
]
SHAPES = [(1, 1, 1), (3, 5, 7), (16, 16, 16), (17, 9, 33), (64, 32, 64)]  # (M, K, N)


@ct.kernel
def mma_kernel(A, B, C, AS: ct.Constant[tuple], BS: ct.Constant[tuple], CS: ct.Constant[tuple]):
    a = ct.load(A, (0,) * A.ndim, AS)
    b = ct.load(B, (0,) * B.ndim, BS)
    acc = ct.load(C, (0,) * C.ndim, CS)
    ct.store(C, (0,) * C.ndim, ct.mma(a, b, acc))


@ct.kernel
def mma_tf32_kernel(A, B, C, M: ct.Constant[int], K: ct.Constant[int], N: ct.Constant[int]):
    a = ct.load(A, (0, 0), (M, K)).astype(ct.tfloat32)
    b = ct.load(B, (0, 0), (K, N)).astype(ct.tfloat32)
    acc = ct.load(C, (0, 0), (M, N))
    ct.store(C, (0, 0), ct.mma(a, b, acc))


@ct.kernel
def matmul_kernel(A, B, C, AS: ct.Constant[tuple], BS: ct.Constant[tuple],
                  CS: ct.Constant[tuple], OPERATOR: ct.Constant[bool]):
    a = ct.load(A, (0,) * A.ndim, AS)
    b = ct.load(B, (0,) * B.ndim, BS)
    c = a @ b if OPERATOR else ct.matmul(a, b)
    ct.store(C, (0,) * C.ndim, c.reshape(CS))  # a 0-d product goes to a 1-element array


@ct.kernel
def gemm_kernel(A, B, C, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    """C = A @ B over a K loop; partial tiles read zeros past the edges."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(A, 1, (BM, BK))):
        a = ct.load(A, (i, k), (BM, BK), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, (k, j), (BK, BN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, (i, j), acc.astype(C.dtype))


int8_gemm_kernel = make_matmul(8, accumulator=ct.int32)  # C = A @ B exactly, int32 sums


# ----- data and references -----------------------------------------------------------------------


def data(it, rng, shape, dtype: str) -> np.ndarray:
    if dtype in FP8:
        return (rng.standard_normal(shape) * 4).astype(getattr(ml_dtypes, dtype))
    if dtype in ("int8", "uint8"):
        return it.rand(rng, shape, dtype)  # every value of the type
    if dtype == "int32":
        return it.rand(rng, shape, dtype, low=-1000, high=1000)
    return it.rand(rng, shape, dtype)


def exact(a: np.ndarray, b: np.ndarray, acc: np.ndarray | None = None) -> np.ndarray:
    """The product (plus acc) exactly for integers, to float64 precision for floats."""
    wide = np.int64 if a.dtype.kind in "iu" and b.dtype.kind in "iu" else np.float64
    product = np.matmul(a.astype(wide), b.astype(wide))
    return product if acc is None else product + acc.astype(wide)


def check(it, got: np.ndarray, want: np.ndarray, a: np.ndarray, b: np.ndarray,
          acc: np.ndarray | None, unit: float) -> None:
    """`got` is `want` (the exact a @ b + acc rounded as the op defines) on the interpreter; on
    the GPU, the exact value with an accumulation error within the bound (accumulating with
    unit roundoff `unit`), then rounded to got's dtype (at most one more ulp)."""
    if it.backend == "interpreter" or want.dtype.kind in "iu":
        it.assert_same(got, want)
        return
    size = np.matmul(np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64)))
    if acc is not None:
        size = size + np.abs(acc.astype(np.float64))
    finfo = ml_dtypes.finfo(want.dtype)
    eps, tiny = float(finfo.eps), float(finfo.smallest_subnormal)
    bound = 2 * (a.shape[-1] + 2) * unit * size * (1 + eps)
    bound += eps * np.abs(want.astype(np.float64)) + tiny
    error = np.abs(got.astype(np.float64) - want.astype(np.float64))
    assert got.dtype == want.dtype and got.shape == want.shape
    assert (error <= bound).all(), f"{(error > bound).sum()} of {error.size} elements differ"


def unit_roundoff(dtype: str, acc_dtype: str) -> float:
    """How precisely the GPU accumulates `dtype` products in `acc_dtype`."""
    if dtype in FP8 and acc_dtype == "float32":
        return 2.0**-14
    if dtype == "float32":  # three tfloat32 products: each accurate to about 2**-23
        return 2.0**-23
    return UNIT_ROUNDOFF.get(acc_dtype, 0.0)  # integers: exact


def to_tf32(x: np.ndarray) -> np.ndarray:
    """float32 values rounded to tfloat32 (10 mantissa bits), to nearest even."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    keep = (bits + 0xFFF + ((bits >> 13) & 1)) & ~np.uint64(0x1FFF)
    return keep.astype(np.uint32).view(np.float32)


# ----- mma ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("m", "k", "n"), SHAPES)
@pytest.mark.parametrize(("dtype", "acc_dtype"), MMA_CASES)
def test_mma_each_dtype(it, rng, dtype, acc_dtype, m, k, n):
    a, b = data(it, rng, (m, k), dtype), data(it, rng, (k, n), dtype)
    acc = data(it, rng, (m, n), acc_dtype)
    c = acc.copy()
    it.launch(mma_kernel, (1,), a, b, c, a.shape, b.shape, c.shape)
    want = exact(a, b, acc).astype(acc.dtype)
    check(it, c, want, a, b, acc, unit_roundoff(dtype, acc_dtype))


def test_mma_mixes_int8_and_uint8(it, rng):
    a, b = data(it, rng, (16, 32), "int8"), data(it, rng, (32, 8), "uint8")
    acc = data(it, rng, (16, 8), "int32")
    c = acc.copy()
    it.launch(mma_kernel, (1,), a, b, c, a.shape, b.shape, c.shape)
    it.assert_same(c, exact(a, b, acc).astype(np.int32))


def test_mma_int32_accumulator_wraps(it):
    """K products of 127 * 127 pushed past 2**31 wrap, as an int32 accumulator does."""
    a, b = np.full((16, 32), 127, np.int8), np.full((32, 16), 127, np.int8)
    acc = np.full((16, 16), 2**31 - 1000, np.int32)
    c = acc.copy()
    it.launch(mma_kernel, (1,), a, b, c, a.shape, b.shape, c.shape)
    assert (c == np.int32(-(2**31) - 1000 + 32 * 127 * 127)).all()


@pytest.mark.parametrize(("m", "k", "n"), [(8, 4, 2), (16, 8, 16), (5, 11, 3)])
def test_mma_tfloat32_inputs_are_rounded_first(it, rng, m, k, n):
    a, b = data(it, rng, (m, k), "float32"), data(it, rng, (k, n), "float32")
    acc = data(it, rng, (m, n), "float32")
    c = acc.copy()
    it.launch(mma_tf32_kernel, (1,), a, b, c, m, k, n)
    a32, b32 = to_tf32(a), to_tf32(b)
    check(it, c, exact(a32, b32, acc).astype(np.float32), a32, b32, acc, 2.0**-24)
    if it.backend == "interpreter":  # the rounding shows: the float32 product differs
        assert not np.array_equal(c, exact(a, b, acc).astype(np.float32))


def test_mma_float16_products_are_exact_and_accumulate_in_float32(it):
    """(1 + 2**-10)**2 needs 21 bits, and 2**-20 * K sums past float16: both survive."""
    a = np.full((16, 16), 1 + 2.0**-10, np.float16)
    acc = np.zeros((16, 16), np.float32)
    c = acc.copy()
    it.launch(mma_kernel, (1,), a, a, c, a.shape, a.shape, c.shape)
    assert (c == np.float32(16 * (1 + 2.0**-9 + 2.0**-20))).all()


BATCHED = [  # (x shape, y shape) with M=4, K=8, N=16; batch 3 or broadcast from 1 or none
    ((3, 4, 8), (3, 8, 16)), ((4, 8), (3, 8, 16)), ((3, 4, 8), (8, 16)),
    ((1, 4, 8), (3, 8, 16)), ((3, 4, 8), (1, 8, 16)), ((2, 5, 3), (2, 3, 7)),
]


@pytest.mark.parametrize(("xs", "ys"), BATCHED)
@pytest.mark.parametrize(("dtype", "acc_dtype"), [("float16", "float32"), ("float32", "float32"),
                                                  ("int8", "int32")])
def test_mma_batched(it, rng, xs, ys, dtype, acc_dtype):
    a, b = data(it, rng, xs, dtype), data(it, rng, ys, dtype)
    out = (*np.broadcast_shapes(xs[:-2], ys[:-2]), xs[-2], ys[-1])
    acc = data(it, rng, out, acc_dtype)
    c = acc.copy()
    it.launch(mma_kernel, (1,), a, b, c, a.shape, b.shape, c.shape)
    want = exact(a, b, acc).astype(acc.dtype)
    check(it, c, want, a, b, acc, unit_roundoff(dtype, acc_dtype))


def test_mma_special_values(it):
    """inf * 0 and NaN give NaN, a lone infinity stays, as in IEEE arithmetic."""
    a = np.ones((16, 16), np.float16)
    b = np.ones((16, 16), np.float16)
    a[0, 0], b[0, 0] = np.inf, 0  # row 0 x column 0: inf * 0 = NaN
    a[1, 3] = np.nan
    a[2, 5] = -np.inf  # row 2: -inf times columns whose row 5 is 1
    c = np.zeros((16, 16), np.float32)
    it.launch(mma_kernel, (1,), a, b, c, a.shape, b.shape, c.shape)
    assert np.isnan(c[0, 0]) and np.isnan(c[1]).all()
    assert np.isneginf(c[2]).all()
    assert (c[3:, 1:] == 16).all() and (c[3:, 0] == 15).all()  # b[0, 0] is 0
    assert (c[0, 1:] == np.inf).all()


# ----- matmul and @ -------------------------------------------------------------------------------

MATMUL_DTYPES = [  # (x dtype, y dtype, result dtype): promoted, accumulated at full precision
    ("float16", "float16", "float16"), ("bfloat16", "bfloat16", "bfloat16"),
    ("float16", "float32", "float32"), ("bfloat16", "float32", "float32"),
    ("float32", "float64", "float64"), ("int8", "int8", "int8"), ("uint8", "uint8", "uint8"),
    ("int8", "float16", "float16"), ("float8_e4m3fn", "float8_e4m3fn", "float8_e4m3fn"),
    ("float8_e5m2", "float8_e5m2", "float8_e5m2"),
]


def rounded(x: np.ndarray, dtype: str) -> np.ndarray:
    """The exact product as matmul returns it: rounded to the accumulator, then to `dtype`."""
    if x.dtype.kind in "iu":
        return x.astype(np.int32).astype(dtype)  # wraps twice, as the hardware does
    acc = x.astype(np.float64 if dtype == "float64" else np.float32)
    if dtype in FP8:  # the conversion saturates at the largest finite value
        limit = float(ml_dtypes.finfo(getattr(ml_dtypes, dtype)).max)
        acc = np.clip(acc, -limit, limit)
    return acc.astype(np.dtype(getattr(ml_dtypes, dtype, None) or dtype))


@pytest.mark.parametrize(("x_dtype", "y_dtype", "dtype"), MATMUL_DTYPES)
def test_matmul_dtypes(it, rng, x_dtype, y_dtype, dtype):
    a, b = data(it, rng, (16, 32), x_dtype), data(it, rng, (32, 16), y_dtype)
    c = it.poison((16, 16), rounded(np.zeros(1), dtype).dtype)
    it.launch(matmul_kernel, (1,), a, b, c, a.shape, b.shape, c.shape, False)
    accumulator = "float64" if dtype == "float64" else "float32"
    check(it, c, rounded(exact(a, b), dtype), a, b, None, unit_roundoff(dtype, accumulator))


RANKS = [  # x shape, y shape: NumPy's matmul shapes with K=8, M=4, N=16, batch 3
    ((8,), (8,)), ((8,), (8, 16)), ((4, 8), (8,)), ((8,), (3, 8, 16)), ((3, 4, 8), (8,)),
    ((4, 8), (8, 16)), ((4, 8), (3, 8, 16)), ((3, 4, 8), (3, 8, 16)), ((1, 4, 8), (3, 8, 16)),
    ((5, 3), (3, 7)),
]


@pytest.mark.parametrize("operator", [False, True], ids=["matmul", "operator"])
@pytest.mark.parametrize(("xs", "ys"), RANKS)
def test_matmul_shapes(it, rng, xs, ys, operator):
    a, b = data(it, rng, xs, "float32"), data(it, rng, ys, "float32")
    want = rounded(exact(a, b), "float32")
    c = it.poison(want.shape or (1,), np.float32)
    it.launch(matmul_kernel, (1,), a, b, c, a.shape, b.shape, c.shape, operator)
    check(it, c.reshape(want.shape), want, a, b, None, unit_roundoff("float32", "float32"))


@ct.kernel
def matmul_assign_kernel(A, B, C, N: ct.Constant[int]):
    x = ct.load(A, (0, 0), (N, N))
    x @= ct.load(B, (0, 0), (N, N))
    x @= x
    ct.store(C, (0, 0), x)


def test_matmul_augmented_assignment(it, rng):
    a = rng.integers(-3, 4, (8, 8)).astype(np.float32)
    b = rng.integers(-3, 4, (8, 8)).astype(np.float32)
    c = it.poison((8, 8), np.float32)
    it.launch(matmul_assign_kernel, (1,), a, b, c, 8)
    ab = a.astype(np.int64) @ b.astype(np.int64)
    it.assert_same(c, (ab @ ab).astype(np.float32))  # small integers: exact everywhere


# ----- a K loop over many blocks --------------------------------------------------------------


@pytest.mark.parametrize(("m", "n", "k", "block"), [
    (50, 70, 90, (16, 32, 16)), (64, 64, 64, (32, 32, 32)), (1, 3, 200, (16, 16, 64)),
])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_gemm_over_a_k_loop(it, rng, m, n, k, block, dtype):
    a, b = data(it, rng, (m, k), dtype), data(it, rng, (k, n), dtype)
    c = it.poison((m, n), np.float32)
    bm, bn, bk = block
    it.launch(gemm_kernel, (math.ceil(m / bm), math.ceil(n / bn)), a, b, c, bm, bn, bk)
    if it.backend == "interpreter":  # one rounding per K tile
        want = np.zeros((m, n), np.float32)
        for s in range(0, k, bk):
            want = exact(a[:, s:s + bk], b[s:s + bk], want).astype(np.float32)
        it.assert_same(c, want)
    else:
        check(it, c, exact(a, b).astype(np.float32), a, b, None, 2.0**-24)


@pytest.mark.parametrize(("m", "n", "k", "block"), [(200, 300, 520, (128, 128, 64)),
                                                    (129, 70, 100, (64, 64, 32))])
def test_int8_gemm_over_a_k_loop(it, rng, m, n, k, block):
    """Exact int32 sums of int8 products over a K loop, partial tiles at every edge. On sm_90
    its 64-wide K steps stay as written (tile-widen-k-steps widens only loops the staged path
    takes: int8 runs on mma.sync from registers, where 128-wide steps spilled 8 KB)."""
    a, b = data(it, rng, (m, k), "int8"), data(it, rng, (k, n), "int8")
    c = it.poison((m, n), np.int32)
    bm, bn, bk = block
    it.launch(int8_gemm_kernel, (math.ceil(m / bm), math.ceil(n / bn)), a, b, c, bm, bn, bk)
    it.assert_same(c, exact(a, b).astype(np.int32))
