"""float4_e2m1fn (the 4-bit operands of mma_scaled), on both backends.

An fp4 code is a sign bit, 2 exponent bits (bias 1) and 1 mantissa bit: the magnitudes 0, 0.5,
1, 1.5, 2, 3, 4, 6; no infinity or NaN. Arrays hold two codes a byte (the first element in the
low 4 bits) and kernels read them with unpack_from_bytes. Conversions from it are exact;
conversions to it round to nearest, ties to even, saturate at 6 (infinities too), keep the sign
of a value rounded to zero, and take NaN to +6. The references below are written from that
definition with exact arithmetic, not from ml_dtypes (which the interpreter holds the codes in).
"""

from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct

MAGNITUDES = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
BF16 = np.dtype(ml_dtypes.bfloat16)
E4M3 = np.dtype(ml_dtypes.float8_e4m3fn)
E8M0 = np.dtype(ml_dtypes.float8_e8m0fnu)


def decode(code: int) -> float:
    return math.copysign(MAGNITUDES[code & 7], -1.0 if code & 8 else 1.0)


def decode_bytes(b: np.ndarray) -> np.ndarray:
    """Two values a byte, the low 4 bits first: shape (..., n) -> (..., 2n)."""
    table = np.array([decode(c) for c in range(16)])
    return np.stack([table[b & 15], table[b >> 4]], axis=-1).reshape(*b.shape[:-1], -1)


def encode(v: float) -> int:
    """The code astype gives for `v` (exact arithmetic on Fractions)."""
    if math.isnan(v):
        return 7
    sign = 8 if math.copysign(1.0, v) < 0 else 0
    if math.isinf(v):
        return 7 | sign
    a = abs(Fraction(v))
    distance = [abs(a - Fraction(m)) for m in MAGNITUDES]
    best = min(distance)
    candidates = [c for c, d in enumerate(distance) if d == best]
    code = candidates[0] if len(candidates) == 1 else next(c for c in candidates if c % 2 == 0)
    return code | sign


def pack_codes(codes: list[int]) -> np.ndarray:
    c = np.asarray(codes, np.uint8).reshape(-1, 2)
    return (c[:, 0] | (c[:, 1] << 4)).astype(np.uint8)


@ct.kernel
def unpack_to(x, y, T: ct.Constant[int]):
    t = ct.unpack_from_bytes(ct.load(x, (ct.bid(0),), (T,)), ct.float4_e2m1fn)
    ct.store(y, (ct.bid(0),), t.astype(y.dtype))


@ct.kernel
def repack(x, y, T: ct.Constant[int]):
    t = ct.unpack_from_bytes(ct.load(x, (ct.bid(0),), (T,)), ct.float4_e2m1fn)
    ct.store(y, (ct.bid(0),), ct.pack_to_bytes(t))


@ct.kernel
def convert_and_pack(x, y, T: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (2 * T,)).astype(ct.float4_e2m1fn)
    ct.store(y, (ct.bid(0),), ct.pack_to_bytes(t))


@ct.kernel
def unpack_2d(x, y, BM: ct.Constant[int], BN: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    b = ct.load(x, (i, j), (BM, BN), padding_mode=ct.PaddingMode.ZERO).reshape((-1,))
    t = ct.unpack_from_bytes(b, ct.float4_e2m1fn).reshape((BM, 2 * BN))
    ct.store(y, (i, j), t.astype(ct.float32))


@pytest.mark.parametrize("dst", ["float32", "float64", "float16", "bfloat16"])
def test_unpack_decodes_every_byte_low_nibble_first(it, dst):
    x = np.arange(256, dtype=np.uint8)
    d = BF16 if dst == "bfloat16" else np.dtype(dst)
    y = np.full(512, 7.0, d)
    it.launch(unpack_to, (8,), x, y, 32)
    got = y.astype(np.float64)
    expected = decode_bytes(x)
    assert np.array_equal(got, expected)
    assert np.array_equal(np.signbit(got), np.signbit(expected))  # -0 stays -0


@pytest.mark.parametrize("dst", ["int32", "uint8", "int8", "bool_", "float8_e4m3fn"])
def test_astype_from_fp4_to_other_dtypes(it, dst):
    """Integers truncate and saturate (-6 is 0 as uint8), e4m3 holds every value exactly."""
    x = np.arange(256, dtype=np.uint8)
    d = np.dtype(getattr(ml_dtypes, dst, None) or dst.rstrip("_"))
    y = np.zeros(512, d)
    it.launch(unpack_to, (4,), x, y, 64)
    values = decode_bytes(x)
    if dst == "bool_":
        expected = values != 0
    elif dst == "float8_e4m3fn":
        expected = values.astype(E4M3)
    else:
        info = np.iinfo(d)
        expected = np.clip(np.trunc(values), info.min, info.max).astype(d)
    assert np.array_equal(y.astype(np.float64), expected.astype(np.float64))


def test_astype_from_fp4_to_e8m0(it):
    """The nearest power of two, the tie up (3 -> 4, 6 -> 8); zero is 2**-127; negatives NaN."""
    x = np.arange(256, dtype=np.uint8)
    y = np.zeros(512, E8M0)
    it.launch(unpack_to, (2,), x, y, 128)
    expected = {0.0: 0, 0.5: 126, 1.0: 127, 1.5: 128, 2.0: 128, 3.0: 129, 4.0: 129, 6.0: 130}
    for v, b in zip(decode_bytes(x), y.view(np.uint8)):
        assert b == (0xFF if v < 0 else expected[abs(v)]), (v, b)


@pytest.mark.parametrize("n", [32, 37, 64])
def test_pack_of_unpack_keeps_every_byte(it, rng, n):
    x = rng.integers(0, 256, n * 3, dtype=np.uint8)
    y = np.full(n * 3, 0x5B, np.uint8)
    it.launch(repack, (3,), x, y, n)
    assert np.array_equal(y, x)


def interesting() -> list[float]:
    ties = [0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0]
    near = [t * (1 + s * 2.0**-20) for t in ties for s in (-1, 1)]
    return [0.0, -0.0, *ties, *[-t for t in ties], *near, 6.0, 6.5, 7.0, 1e30, -1e30, 0.3,
            -0.3, 1e-30, -1e-30, 2.0**-140, math.inf, -math.inf, math.nan, -math.nan]


@pytest.mark.parametrize("src", ["float32", "float64", "float16", "bfloat16"])
def test_astype_to_fp4_rounds_to_even_and_saturates(it, rng, src):
    d = BF16 if src == "bfloat16" else np.dtype(src)
    values = interesting() + list(rng.standard_normal(98) * 3)
    values += [0.0] * (-len(values) % 32)
    with np.errstate(over="ignore", under="ignore"):
        x = np.array(values).astype(d)
    y = np.full(x.size // 2, 0x5B, np.uint8)
    it.launch(convert_and_pack, (x.size // 32,), x, y, 16)
    expected = pack_codes([encode(float(v)) for v in x.astype(np.float64)])
    bad = np.argwhere(y != expected).ravel()
    assert bad.size == 0, [(x[2 * i:2 * i + 2].tolist(), y[i], expected[i]) for i in bad[:6]]


def test_float64_rounds_once(it):
    """Just past a tie in float64 (and not in float32): no double rounding through float32."""
    ties = [0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0]
    x = np.array([t * (1 + s * 2.0**-40) for t in ties for s in (-1, 1)] + [0.0, 0.0])
    y = np.zeros(8, np.uint8)
    it.launch(convert_and_pack, (1,), x, y, 8)
    assert np.array_equal(y, pack_codes([encode(float(v)) for v in x]))


@pytest.mark.parametrize("src", ["int32", "int8", "uint16", "int64"])
def test_astype_integers_to_fp4(it, src):
    info = np.iinfo(src)
    values = [0, 1, 2, 3, 4, 5, 6, 7, 100, info.max, info.min, -1, -3, -5, 0, 0]
    x = np.array([v for v in values if info.min <= v <= info.max], src)
    x = np.concatenate([x, np.zeros(-x.size % 16, src)])
    y = np.zeros(x.size // 2, np.uint8)
    it.launch(convert_and_pack, (1,), x, y, x.size // 2)
    assert np.array_equal(y, pack_codes([encode(float(v)) for v in x]))


@pytest.mark.parametrize(("value", "code"), [(math.inf, 7), (-7.0, 15), (2.5, 4), (0.3, 1),
                                             (-0.1, 8), (5.0, 6)])
def test_constants_round_and_saturate(it, value, code):
    @ct.kernel
    def k(y, V: ct.Constant[float]):
        ct.store(y, (0,), ct.pack_to_bytes(ct.full((4,), V, ct.float4_e2m1fn)))

    y = np.zeros(2, np.uint8)
    it.launch(k, (1,), y, value)
    assert y.tolist() == [code | code << 4] * 2


@pytest.mark.parametrize(("m", "n", "tiles"), [(5, 19, (4, 8)), (16, 32, (16, 32)),
                                                (37, 45, (16, 16))])
def test_unpacked_2d_tiles_with_partial_edges(it, rng, m, n, tiles):
    """Rows of bytes (M, N) read as (M, 2N) values, zero-padded edge tiles."""
    x = rng.integers(0, 256, (m, n), dtype=np.uint8)
    y = np.full((m, 2 * n), np.nan, np.float32)
    bm, bn = tiles
    it.launch(unpack_2d, (math.ceil(m / bm), math.ceil(n / bn)), x, y, bm, bn)
    assert np.array_equal(y.astype(np.float64), decode_bytes(x))


def test_where_and_comparisons(it):
    @ct.kernel
    def k(x, y):
        t = ct.unpack_from_bytes(ct.load(x, (0,), (8,)), ct.float4_e2m1fn)
        one = ct.full((16,), 1.0, ct.float4_e2m1fn)
        ct.store(y, (0,), ct.pack_to_bytes(ct.where(t > one, t, one)))

    x = np.arange(0, 256, 17, dtype=np.uint8)[:8]
    y = np.zeros(8, np.uint8)
    it.launch(k, (1,), x, y)
    values = decode_bytes(x)
    expected = pack_codes([encode(max(v, 1.0)) for v in values])
    assert np.array_equal(y, expected)
