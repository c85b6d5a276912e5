"""float8_e8m0fnu (the block scales of mma_scaled), on both backends.

An e8m0 byte is an exponent alone: its value is 2**(bits - 127), 0xFF is NaN; there is no sign,
zero or infinity. Copies keep every byte; conversions from it are exact wherever the
destination holds the value; conversions to it round a positive value to the nearest power of
two (the tie 1.5 * 2**e up) and saturate (zero to 2**-127, +inf to 2**127), negative values and
NaN become NaN. The references are written from that definition, not from ml_dtypes (which the
interpreter holds the bytes in, and which would make zero NaN).
"""

from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct
from tilelang.testing.kernels import cast_1d, copy_1d

E8M0 = np.dtype(ml_dtypes.float8_e8m0fnu)
BF16 = np.dtype(ml_dtypes.bfloat16)


def decode(byte: int) -> float:
    return math.nan if byte == 0xFF else math.ldexp(1.0, byte - 127)


def encode(v: float) -> int:
    """The byte astype gives for `v` (exact arithmetic on Fractions)."""
    if math.isnan(v) or v < 0:  # -0.0 is not below zero: it is zero
        return 0xFF
    if v == 0:
        return 0
    if math.isinf(v):
        return 0xFE
    m = Fraction(v)
    e = math.floor(math.log2(v))
    while Fraction(2) ** (e + 1) <= m:
        e += 1
    while Fraction(2) ** e > m:
        e -= 1
    if m >= Fraction(3, 2) * Fraction(2) ** e:  # past the midpoint (or on it): up
        e += 1
    return min(max(e + 127, 0), 0xFE)


def e8m0(bytes_: np.ndarray) -> np.ndarray:
    return np.asarray(bytes_, np.uint8).view(E8M0)




@ct.kernel
def load_padded(x, y, PAD: ct.Constant):
    t = ct.load(x, (0,), (8,), padding_mode=PAD)
    ct.store(y, (0,), t.astype(ct.float32))


def test_copy_keeps_every_byte(it):
    x = e8m0(np.arange(256))
    y = e8m0(np.full(256, 0x5B))
    it.launch(copy_1d, (4,), x, y, 64)
    assert np.array_equal(y.view(np.uint8), x.view(np.uint8))


@pytest.mark.parametrize("dst", ["float32", "float64"])
def test_astype_from_e8m0_is_exact(it, dst):
    x = e8m0(np.arange(256))
    y = np.full(256, 7.0, dst)
    it.launch(cast_1d, (8,), x, y, 32)
    expected = np.array([decode(b) for b in range(256)])
    assert np.array_equal(y.astype(np.float64), expected, equal_nan=True)


@pytest.mark.parametrize("dst", ["float16", "bfloat16", "float8_e4m3fn"])
def test_astype_from_e8m0_to_narrow_floats(it, dst):
    """As float32 would convert: rounded (to zero below the range, saturated for fp8)."""
    x = e8m0(np.arange(256))
    d = BF16 if dst == "bfloat16" else np.dtype(getattr(ml_dtypes, dst, dst))
    y = np.zeros(256, d)
    it.launch(cast_1d, (8,), x, y, 32)
    via32 = np.array([decode(b) for b in range(256)], np.float32)
    expected = _convert_like_float32(via32, dst)
    assert np.array_equal(y.astype(np.float64), expected, equal_nan=True)


def _convert_like_float32(f: np.ndarray, dst: str) -> np.ndarray:
    if dst == "float8_e4m3fn":  # saturating, nearest even (the powers of two are exact or 0)
        f = np.where(np.isnan(f), f, np.minimum(f, 448.0))
        return f.astype(ml_dtypes.float8_e4m3fn).astype(np.float64)
    with np.errstate(over="ignore"):
        return f.astype(BF16 if dst == "bfloat16" else np.float16).astype(np.float64)


def interesting() -> list[float]:
    return [0.0, -0.0, 1.0, 2.0, 0.75, 0.7499999, 1.5, 3.0, 2.9999998, 0.3, 1e-3, -1.0, -1e-30,
            math.nan, math.inf, -math.inf, 2.0**-127, 2.0**-128, 1.5 * 2.0**-127,
            1.4 * 2.0**-127, 2.0**-149, 2.0**127, 1.5 * 2.0**127, 3.0e38, 1e-40, 12345.678]


@pytest.mark.parametrize("src", ["float32", "float64", "float16", "bfloat16"])
def test_astype_to_e8m0_rounds_and_saturates(it, rng, src):
    d = BF16 if src == "bfloat16" else np.dtype(src)
    with np.errstate(over="ignore", under="ignore"):
        x = np.concatenate([np.array(interesting()),
                            np.abs(rng.standard_normal(70)) * 10.0 ** rng.integers(-30, 30, 70),
                            -np.abs(rng.standard_normal(4))]).astype(d)
    y = e8m0(np.full(x.size, 0x5B))
    it.launch(cast_1d, (math.ceil(x.size / 32),), x, y, 32)
    expected = [encode(float(v)) for v in x.astype(np.float64)]
    got = y.view(np.uint8).tolist()
    bad = [(float(v), g, e) for v, g, e in zip(x.astype(np.float64), got, expected) if g != e]
    assert not bad, bad[:8]


def test_constants_and_comparisons(it):
    @ct.kernel
    def k(x, y):
        t = ct.load(x, (0,), (16,))
        two = ct.full((16,), 2.0, ct.float8_e8m0fnu)
        ct.store(y, (0,), ct.where(t > two, t, ct.zeros((16,), ct.float8_e8m0fnu)))

    x = e8m0(np.arange(120, 136))
    y = e8m0(np.full(16, 0x5B))
    it.launch(k, (1,), x, y)
    assert y.view(np.uint8).tolist() == [0] * 9 + list(range(129, 136))


@pytest.mark.parametrize(("mode", "byte"), [("ZERO", 0), ("NEG_ZERO", 0), ("NAN", 0xFF),
                                            ("POS_INF", 0xFE), ("NEG_INF", 0xFF)])
def test_padding_is_converted_as_astype_converts(it, mode, byte):
    """Zero padding is the smallest scale, 2**-127, not NaN: a padded block adds nothing."""
    x = e8m0([126, 127, 128])
    y = np.full(8, 7.0, np.float32)
    it.launch(load_padded, (1,), x, y, getattr(ct.PaddingMode, mode))
    expected = [0.5, 1.0, 2.0] + [decode(byte)] * 5
    assert np.array_equal(y.astype(np.float64), np.array(expected), equal_nan=True)


@pytest.mark.interpreter_only  # CPU tensors
def test_torch_e8m0_arguments(it):
    torch = pytest.importorskip("torch")
    x = torch.arange(256, dtype=torch.int32).to(torch.uint8).view(torch.float8_e8m0fnu)
    y = torch.zeros(256, dtype=torch.float32)
    it.launch(cast_1d, (8,), x, y, 32)
    assert torch.equal(y.isnan(), x.float().isnan())
    assert torch.equal(torch.nan_to_num(y), torch.nan_to_num(x.float()))
