"""The restricted floats: float8_e4m3fn, float8_e5m2 and tfloat32, on both backends.

They are moved and converted, not computed with. Copies keep every byte; astype rounds to
nearest even once, saturating at the largest finite value for the 8-bit floats (NaN stays NaN);
conversions from them are exact. The references are exact (Fractions) and written from the
formats' definitions, not from ml_dtypes, which the interpreter uses.
"""

from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
import torch

import tilelang as ct

FLOAT8 = ["float8_e4m3fn", "float8_e5m2"]
# explicit mantissa bits, exponent bits, bias, largest finite value
FORMATS = {"float8_e4m3fn": (3, 4, 7, 448.0), "float8_e5m2": (2, 5, 15, 57344.0)}


def np8(name: str) -> np.dtype:
    return np.dtype(getattr(ml_dtypes, name))


def decode(bits: int, name: str) -> float:
    """The value of an 8-bit float's bit pattern."""
    mant_bits, exp_bits, bias, _ = FORMATS[name]
    sign = -1.0 if bits & 0x80 else 1.0
    e, m = (bits >> mant_bits) & ((1 << exp_bits) - 1), bits & ((1 << mant_bits) - 1)
    top = (1 << exp_bits) - 1
    if name == "float8_e4m3fn" and e == top and m == (1 << mant_bits) - 1:
        return math.nan  # e4m3fn: no infinities, S.1111.111 is NaN
    if name == "float8_e5m2" and e == top:
        return sign * math.inf if m == 0 else math.nan
    if e == 0:
        return sign * m * 2.0 ** (1 - bias - mant_bits)
    return sign * (1 + m / (1 << mant_bits)) * 2.0 ** (e - bias)


def round_to(v: float, mant: int, emin: int) -> Fraction:
    """|v| rounded to nearest even with `mant` explicit bits, subnormal below 2**emin."""
    m = abs(Fraction(v))
    if m == 0:
        return m
    e = max(emin, m.numerator.bit_length() - m.denominator.bit_length() - 1)
    while Fraction(2) ** (e + 1) <= m:
        e += 1
    while e > emin and Fraction(2) ** e > m:
        e -= 1
    ulp = Fraction(2) ** (e - mant)
    q, r = divmod(m, ulp)
    if r * 2 > ulp or (r * 2 == ulp and q % 2 == 1):
        q += 1
    return q * ulp


def to_float8(v: float, name: str) -> float:
    """cuTile's (and PTX cvt.rn.satfinite's) conversion: nearest even, then saturation."""
    mant_bits, _, bias, largest = FORMATS[name]
    if math.isnan(v):
        return math.nan
    if math.isinf(v):
        return math.copysign(largest, v)
    r = float(min(round_to(v, mant_bits, 1 - bias), Fraction(largest)))
    return math.copysign(r, v)


def to_tfloat32(v: float) -> float:
    if not math.isfinite(v):
        return v
    r = round_to(v, 10, -126)
    largest = Fraction(2) ** 127 * (2 - Fraction(2) ** -10)
    return math.copysign(math.inf if r > largest else float(r), v)


def values_of(a: np.ndarray) -> list[float]:
    """The values of an array of any float dtype, 8-bit floats decoded from their bytes."""
    if a.dtype.name in FORMATS:
        return [decode(int(b), a.dtype.name) for b in a.view(np.uint8).reshape(-1)]
    return [float(v) for v in a.astype(np.float64).reshape(-1)]


def assert_values(actual: np.ndarray, expected: list[float]) -> None:
    """Element-wise equality of values: NaN matches NaN (any sign), -0.0 does not match 0.0."""
    got = values_of(actual)
    bad = [(i, g, e) for i, (g, e) in enumerate(zip(got, expected, strict=True))
           if not (math.isnan(g) and math.isnan(e))
           and not (g == e and math.copysign(1, g) == math.copysign(1, e))]
    assert not bad, f"{len(bad)} of {len(got)} differ, e.g. {bad[:6]}"


def poison8(shape, name: str) -> np.ndarray:
    return np.full(shape, 0x5B, np.uint8).view(np8(name))


@ct.kernel
def copy_1d(x, y, T: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (T,))
    ct.store(y, (ct.bid(0),), t)


@ct.kernel
def copy_2d(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0), ct.bid(1)), (TM, TN))
    ct.store(y, (ct.bid(0), ct.bid(1)), t)


@ct.kernel
def cast_1d(x, y, T: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (T,))
    ct.store(y, (ct.bid(0),), t.astype(y.dtype))


# ----- moving bytes ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", FLOAT8)
@pytest.mark.parametrize(("n", "tile", "step"), [(300, 64, 1), (1000, 128, 1), (257, 16, 3)])
def test_copy_1d_keeps_every_byte(it, rng, name, n, tile, step):
    bits = np.concatenate([np.arange(256, dtype=np.uint8),
                           rng.integers(0, 256, n * step, dtype=np.uint8)])
    x = bits[: n * step].view(np8(name))[::step]  # every pattern, NaNs included
    y = poison8(n * step, name)[::step]
    it.launch(copy_1d, (math.ceil(n / tile),), x, y, tile)
    assert np.array_equal(y.view(np.uint8), x.view(np.uint8))


@pytest.mark.parametrize("name", FLOAT8)
@pytest.mark.parametrize("transposed", [False, True])
def test_copy_2d_keeps_every_byte(it, rng, name, transposed):
    x = rng.integers(0, 256, (70, 45), dtype=np.uint8).view(np8(name))
    y = poison8((70, 45), name)
    if transposed:
        x, y = x.T, y.T
    it.launch(copy_2d, (math.ceil(x.shape[0] / 16), math.ceil(x.shape[1] / 32)), x, y, 16, 32)
    assert np.array_equal(y.view(np.uint8), x.view(np.uint8))


@ct.kernel
def load_padded(x, y, PAD: ct.Constant):
    t = ct.load(x, (0,), (8,), padding_mode=PAD)
    ct.store(y, (0,), t.astype(ct.float32))


@pytest.mark.parametrize("name", FLOAT8)
@pytest.mark.parametrize("mode", ["ZERO", "NEG_ZERO", "NAN", "POS_INF", "NEG_INF"])
def test_padding_of_partial_tiles(it, name, mode):
    x = np.array([1.5, -2, 3], np8(name))
    y = np.full(8, 7.0, np.float32)
    it.launch(load_padded, (1,), x, y, getattr(ct.PaddingMode, mode))
    pad = {"ZERO": 0.0, "NEG_ZERO": -0.0, "NAN": math.nan, "POS_INF": math.inf,
           "NEG_INF": -math.inf}[mode]
    if name == "float8_e4m3fn" and math.isinf(pad):
        pad = math.nan  # e4m3fn has no infinity
    assert_values(y, [1.5, -2.0, 3.0] + [pad] * 5)


# ----- conversions to the 8-bit floats ----------------------------------------------------------


def interesting(name: str) -> list[float]:
    """Ties, values just off ties, subnormals, overflow and specials of the format `name`."""
    mant_bits, _, bias, largest = FORMATS[name]
    ulp1 = 2.0 ** -mant_bits
    tiny = 2.0 ** (1 - bias - mant_bits)
    return [0.0, -0.0, math.nan, math.inf, -math.inf, 1.0, 1 + ulp1 / 2, 1 + 3 * ulp1 / 2,
            1 + ulp1 / 2 + 2.0**-20, -(1 + 3 * ulp1 / 2 - 2.0**-20), tiny, tiny / 2, tiny * 1.5,
            -tiny / 2 - 2.0**-30, tiny / 4, largest, largest * (1 + ulp1 / 4),
            largest * (1 + ulp1 / 2), -largest * 1.5, 1e30, 3.14159, -0.1, 100.0, 7.0e-3]


@pytest.mark.parametrize("name", FLOAT8)
@pytest.mark.parametrize("src", ["float32", "float16", "bfloat16", "float64"])
def test_astype_to_float8_rounds_once_and_saturates(it, rng, name, src):
    d = np.dtype(ml_dtypes.bfloat16) if src == "bfloat16" else np.dtype(src)
    with np.errstate(over="ignore"):
        x = np.concatenate([np.array(interesting(name)),
                            rng.standard_normal(80) * 10.0 ** rng.integers(-6, 6, 80)]).astype(d)
    y = poison8(x.size, name)
    it.launch(cast_1d, (math.ceil(x.size / 32),), x, y, 32)
    assert_values(y, [to_float8(v, name) for v in values_of(x)])


NEAR_TIES = {  # float64 just off a tie of the 8-bit float: rounding through float32 would tie
    "float8_e4m3fn": [1 + 2**-4 + 2**-40, -(1 + 2**-4 + 2**-35), 1 + 3 * 2**-4 - 2**-40, 1 + 2**-4],
    "float8_e5m2": [1 + 2**-3 + 2**-40, -(1 + 2**-3 + 2**-35), 2**-17 + 2**-50, 1 + 2**-3],
}


@pytest.mark.parametrize("name", FLOAT8)
def test_astype_from_float64_rounds_once(it, name):
    x = np.array(NEAR_TIES[name], np.float64)
    y = poison8(4, name)
    it.launch(cast_1d, (1,), x, y, 4)
    assert_values(y, [to_float8(v, name) for v in NEAR_TIES[name]])


@pytest.mark.parametrize("name", FLOAT8)
@pytest.mark.parametrize("src", ["int32", "int8", "uint64", "bool"])
def test_astype_integers_to_float8(it, rng, name, src):
    fixed = [0, 1, -1, 17, 100, 127, -128, 300, 449, 460, 470, 60000, 2**20 + 1, -(2**30)]
    x = np.array([*fixed, *rng.integers(-1000, 1000, 18)], np.int64)
    x = (x != 0) if src == "bool" else x.astype(src)
    y = poison8(x.size, name)
    it.launch(cast_1d, (1,), x, y, 32)
    assert_values(y, [to_float8(float(int(v)), name) for v in x.reshape(-1)])


# ----- conversions from the 8-bit floats --------------------------------------------------------


def from_value(v: float, dst: str) -> float:
    """An exact value converted as astype does (floats exact; ints truncate and saturate)."""
    d = np.dtype(dst)
    if d.kind == "b":
        return float(v != 0)  # NaN is true
    if d.kind in "iu":
        info = np.iinfo(d)
        if math.isnan(v):
            return 0.0
        return float(min(max(math.trunc(v) if math.isfinite(v) else v, info.min), info.max))
    return v


@pytest.mark.parametrize("name", FLOAT8)
@pytest.mark.parametrize("dst", ["float32", "float16", "bfloat16", "float64", "int32", "int8",
                                 "uint8", "bool"])
def test_astype_from_float8_is_exact(it, name, dst):
    x = np.arange(256, dtype=np.uint8).view(np8(name))
    d = np.dtype(ml_dtypes.bfloat16) if dst == "bfloat16" else np.dtype(dst)
    y = np.zeros(256, d)
    it.launch(cast_1d, (4,), x, y, 64)
    expected = [from_value(decode(b, name), "float32" if dst == "bfloat16" else dst)
                for b in range(256)]
    assert_values(y, expected)


@pytest.mark.parametrize(("src", "dst"), [FLOAT8, FLOAT8[::-1]])
def test_float8_to_float8(it, src, dst):
    x = np.arange(256, dtype=np.uint8).view(np8(src))
    y = poison8(256, dst)
    it.launch(cast_1d, (2,), x, y, 128)
    assert_values(y, [to_float8(decode(b, src), dst) for b in range(256)])


# ----- tfloat32 ----------------------------------------------------------------------------------


@ct.kernel
def through_tfloat32(x, y, T: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (T,))
    tf = t.astype(ct.tfloat32)
    assert tf.dtype == ct.tfloat32
    ct.store(y, (ct.bid(0),), ct.astype(tf, ct.float32))


@pytest.mark.parametrize("src", ["float32", "float64", "int32", "float16"])
def test_tfloat32_rounds_to_nearest_even(it, rng, src):
    special = [1 + 2**-11, -(1 + 2**-11), 1 + 3 * 2**-11, 1 + 2**-11 + 2**-20,
               1 + 2**-11 + 2**-40, -(1 + 2**-11 + 2**-45), 0.0, -0.0,  # float64: off the tie
               math.inf, -math.inf, math.nan, 3.4e38, 1e-40, 2.0**-149, 65504.0, 2.0**24 + 1]
    x = np.array(special + list(rng.standard_normal(50) * 1e4))
    with np.errstate(over="ignore", invalid="ignore"):
        x = np.nan_to_num(x, nan=0, posinf=7, neginf=-7).astype(src) if src[0] == "i" \
            else x.astype(src)
    y = np.full(x.size, 5.0, np.float32)
    it.launch(through_tfloat32, (math.ceil(x.size / 16),), x, y, 16)
    assert_values(y, [to_tfloat32(v) for v in values_of(x.astype(np.float64))])
    bits = y.view(np.uint32)
    finite = np.isfinite(y)
    assert not (bits[finite] & 0x1FFF).any()  # the dropped mantissa bits are zero


# ----- constants, where, comparisons --------------------------------------------------------------


@ct.kernel
def constants(y, z, DT: ct.Constant):
    ct.store(y, (0,), ct.full((4,), 1.0e6, DT))  # beyond the largest finite value: saturates
    ct.store(y, (1,), ct.astile((0, 1, 0.1, -4), dtype=DT))
    ct.store(y, (2,), ct.astile((True, False, True, True), dtype=DT))
    s = DT(3.14)
    ct.store(z, (0,), ct.full((4,), s, DT).astype(ct.float32))


@pytest.mark.parametrize("name", FLOAT8)
def test_constants(it, name):
    dtype = getattr(ct, name)
    y = poison8(12, name)
    z = np.zeros(4, np.float32)
    it.launch(constants, (1,), y, z, dtype)
    largest = FORMATS[name][3]
    expected = [largest] * 4 + [to_float8(v, name) for v in (0, 1, 0.1, -4)] + [1.0, 0, 1, 1]
    assert_values(y, expected)
    assert_values(z, [to_float8(3.14, name)] * 4)


@ct.kernel
def clamp_low(x, y, c, T: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (T,))
    low = ct.full((T,), 0.5, x.dtype)
    kept = ct.where(t > low, t, low)
    ct.store(y, (ct.bid(0),), kept)
    ct.store(c, (ct.bid(0),), t == low)


@pytest.mark.parametrize("name", FLOAT8)
def test_where_and_comparisons(it, name):
    x = np.arange(256, dtype=np.uint8).view(np8(name))
    y = poison8(256, name)
    c = np.zeros(256, np.bool_)
    it.launch(clamp_low, (4,), x, y, c, 64)
    values = [decode(b, name) for b in range(256)]
    assert_values(y, [v if v > 0.5 else 0.5 for v in values])
    assert c.tolist() == [v == 0.5 for v in values]


@ct.kernel
def fill_scalar(y, s):
    ct.store(y, (0,), ct.full((4,), s, y.dtype))


@pytest.mark.parametrize("name", FLOAT8)
def test_scalar_argument(it, name):
    s = np8(name).type(-2.5)
    y = poison8(4, name)
    it.launch(fill_scalar, (1,), y, s)
    assert_values(y, [to_float8(-2.5, name)] * 4)


# ----- torch tensors -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", FLOAT8)
def test_torch_float8_tensors_match_torch_conversions(backend, name):
    """Arguments from torch: the conversion agrees with torch's own `.to()` in range."""
    device = "cuda" if backend == "gpu" else "cpu"
    largest = FORMATS[name][3]
    gen = torch.Generator().manual_seed(7)
    x = (torch.randn(1000, generator=gen) * largest / 8).clamp(-largest, largest).to(device)
    y = torch.zeros(1000, dtype=getattr(torch, name), device=device)
    ct.launch(None, (8,), cast_1d, (x, y, 128))
    expected = x.to(getattr(torch, name))
    assert torch.equal(y.view(torch.uint8), expected.view(torch.uint8))
    back = torch.zeros(1000, dtype=torch.float32, device=device)
    ct.launch(None, (8,), cast_1d, (y, back, 128))
    assert torch.equal(back, expected.float())


def _larger(a, b):
    return ct.where(a > b, a, b)


@ct.kernel
def max_by_select(x, y, z):
    t = ct.load(x, (0, 0), (8, 32))
    ct.store(y, (0,), ct.reduce(t, 1, _larger, float("-inf")))
    ct.store(z, (0, 0), ct.scan(t, 1, _larger, float("-inf")))


@pytest.mark.parametrize("name", FLOAT8)
def test_reduce_and_scan_with_a_selecting_combiner(it, rng, name):
    """Only cuTile's arithmetic reductions (sum, max, ...) reject these dtypes; a combiner that
    only compares and selects works (its identity -inf saturates in float8_e4m3fn)."""
    x = (rng.standard_normal((8, 32)) * 50).astype(np8(name))
    y, z = poison8(8, name), poison8((8, 32), name)
    it.launch(max_by_select, (1,), x, y, z)
    v = np.array(values_of(x)).reshape(8, 32)
    assert_values(y, list(v.max(axis=1)))
    assert_values(z, list(np.maximum.accumulate(v, axis=1).reshape(-1)))
