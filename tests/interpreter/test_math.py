"""Element-wise math (exp ... isnan, atan2), where, minimum and maximum."""

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct

FLOATS = ["float16", "bfloat16", "float32", "float64"]
SHAPE = (5, 24)

# name -> (NumPy reference in float64, input range)
UNARY = {
    "exp": (np.exp, (-10, 10)), "exp2": (np.exp2, (-20, 20)), "log": (np.log, (0, 100)),
    "log2": (np.log2, (0, 100)), "sqrt": (np.sqrt, (0, 100)),
    "rsqrt": (lambda x: 1 / np.sqrt(x), (0, 100)), "sin": (np.sin, (-7, 7)),
    "cos": (np.cos, (-7, 7)), "tan": (np.tan, (-1.5, 1.5)), "sinh": (np.sinh, (-5, 5)),
    "cosh": (np.cosh, (-5, 5)), "tanh": (np.tanh, (-5, 5)), "floor": (np.floor, (-50, 50)),
    "ceil": (np.ceil, (-50, 50)),
}
EXACT = ("floor", "ceil", "sqrt")  # correctly rounded (sqrt) or exact


@ct.kernel
def unary_math(a, out, FN: ct.Constant):
    i = ct.bid(0)
    x = ct.load(a, (i, 0), (4, 32))
    r = FN(x)
    assert r.shape == x.shape and r.dtype == out.dtype
    ct.store(out, (i, 0), r)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_math(it, rng, name, dtype):
    ref, (lo, hi) = UNARY[name]
    x = it.rand(rng, SHAPE, dtype, low=lo, high=hi)
    x.flat[:6] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0]
    out = it.poison(SHAPE, dtype)
    it.launch(unary_math, (2,), x, out, getattr(ct, name))
    with np.errstate(all="ignore"):
        want = ref(x.astype(np.float64)).astype(x.dtype)
    if name in EXACT:
        it.assert_same(out, want)
    else:  # half types are computed in float32 and rounded once: at most 1 ulp off
        it.assert_close(out, want, ulps=1 if x.dtype.itemsize == 2 else 4)
    it.assert_same(out.flat[:5], want.flat[:5], signed_zero=False)  # special values exactly


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "int64", "bool_"])
@pytest.mark.parametrize("name", ["exp", "log2", "sqrt", "sin", "tanh", "rsqrt"])
def test_unary_math_of_integers_is_float32(it, rng, name, dtype):
    d = it.np_dtype(dtype)
    x = it.rand(rng, SHAPE, d, low=0, high=20) if d.kind != "b" else it.rand(rng, SHAPE, d)
    out = it.poison(SHAPE, np.float32)
    it.launch(unary_math, (2,), x, out, getattr(ct, name))
    with np.errstate(all="ignore"):
        want = UNARY[name][0](x.astype(np.float32).astype(np.float64)).astype(np.float32)
    it.assert_close(out, want, ulps=4)


@pytest.mark.parametrize("name", ["floor", "ceil", "isnan"])
def test_float_only_functions_reject_integers(it, name):
    with pytest.raises(ct.TileTypeError):
        it.launch(unary_math, (1,), np.zeros((4, 32), np.int32), np.zeros((4, 32), np.float32),
                  getattr(ct, name))


@ct.kernel
def isnan_kernel(a, out):
    i = ct.bid(0)
    r = ct.isnan(ct.load(a, (i, 0), (4, 32)))
    assert r.dtype == ct.bool_
    ct.store(out, (i, 0), r)


@pytest.mark.parametrize("dtype", FLOATS)
def test_isnan(it, rng, dtype):
    x = it.rand(rng, SHAPE, dtype, special=True)
    out = it.poison(SHAPE, "int8")
    it.launch(isnan_kernel, (2,), x, out)
    it.assert_same(out, np.isnan(x.astype(np.float64)).astype(np.int8))


@ct.kernel
def rounding_modes(a, out):
    x = ct.load(a, (0,), (16,))
    ct.store(out, (0,), ct.exp(x, rounding_mode=ct.RoundingMode.APPROX))
    ct.store(out, (1,), ct.tanh(x, rounding_mode=ct.RoundingMode.FULL))
    ct.store(out, (2,), ct.sqrt(ct.abs(x), rounding_mode=ct.RoundingMode.RN, flush_to_zero=True))
    ct.store(out, (3,), ct.exp2(x, flush_to_zero=True))
    ct.store(out, (4,), ct.rsqrt(ct.abs(x), flush_to_zero=True))


def test_math_options_are_accepted(it, rng):
    x = it.rand(rng, 16, "float32", low=-3, high=3)
    out = it.poison(80, np.float32)
    it.launch(rounding_modes, (1,), x, out)
    x64 = x.astype(np.float64)
    want = np.concatenate([np.exp(x64), np.tanh(x64), np.sqrt(np.abs(x64)), np.exp2(x64),
                           1 / np.sqrt(np.abs(x64))]).astype(np.float32)
    it.assert_close(out, want, ulps=8)


@ct.kernel
def exp2_flushed(a, out):
    x = ct.load(a, (0,), (16,))
    ct.store(out, (0,), ct.exp2(x, flush_to_zero=True))
    ct.store(out, (1,), ct.exp2(x))


def test_exp2_flush_to_zero_flushes_subnormal_results(it, rng):
    """exp2(flush_to_zero=True) is the bare ex2.approx.ftz: 2**x below 2**-126 is 0, where the
    default keeps the subnormal; elsewhere both are within a few ulp."""
    x = np.concatenate([[-127.5, -130.0, -149.0, -126.0],
                        it.rand(rng, 12, "float32", low=-30, high=30)])
    x = x.astype(np.float32)
    out = it.poison(32, np.float32)
    it.launch(exp2_flushed, (1,), x, out)
    want = np.exp2(x.astype(np.float64)).astype(np.float32)
    it.assert_close(out[16:], want, ulps=8)
    assert (out[:3] == 0).all() and (out[16:19] > 0).all()
    it.assert_close(out[3:16], want[3:], ulps=8)


@ct.kernel
def atan2_kernel(a, b, out):
    x = ct.load(a, (0, 0), (8, 8))
    y = ct.load(b, (0, 0), (8, 8))
    ct.store(out, (0, 0), ct.atan2(x, y))


@pytest.mark.parametrize("dtype", [*FLOATS, "int16", "uint8"])
def test_atan2(it, rng, dtype):
    d = it.np_dtype(dtype)
    a = it.rand(rng, (8, 8), d, low=-5 if d.kind != "u" else 0, high=5)
    b = it.rand(rng, (8, 8), d, low=-5 if d.kind != "u" else 0, high=5)
    if it.is_float(d):
        a.flat[:6], b.flat[:6] = [0.0, 0.0, 1.0, -1.0, np.nan, np.inf], [-1.0, 1.0, 0, 0, 1, 1]
    rd = d if it.is_float(d) else np.dtype(np.float32)
    out = it.poison((8, 8), rd)
    it.launch(atan2_kernel, (1,), a, b, out)
    want = np.arctan2(a.astype(np.float64), b.astype(np.float64)).astype(rd)
    it.assert_close(out, want, ulps=1 if rd.itemsize == 2 else 4)
    r = out.astype(np.float64)
    assert np.all(np.abs(r[~np.isnan(r)]) <= np.pi + 1e-6)


@ct.kernel
def minmax(a, b, out, NAN: ct.Constant[bool]):
    i = ct.bid(0)
    x = ct.load(a, (i,), (16,))
    y = ct.load(b, (i,), (16,))
    n = x.shape[0]
    ct.store(out, (0, i), ct.minimum(x, y, propagate_nan=NAN)[None, :])
    ct.store(out, (1, i), ct.maximum(x, y, propagate_nan=NAN)[None, :])
    if not NAN:
        ct.store(out, (2, i), min(x, y)[None, :])
        ct.store(out, (3, i), max(x, y, ct.full((n,), 0, x.dtype))[None, :])


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int64", "uint32", *FLOATS])
@pytest.mark.parametrize("propagate_nan", [False, True])
def test_minimum_maximum(it, rng, dtype, propagate_nan):
    d = it.np_dtype(dtype)
    a = it.rand(rng, 40, d, special=True)
    b = np.where(rng.random(40) < 0.2, a, it.rand(rng, 40, d, special=True))
    out = it.poison((4, 40), d)
    it.launch(minmax, (3,), a, b, out, propagate_nan)
    w = np.float64 if it.is_float(d) else d
    x, y = a.astype(w), b.astype(w)
    lo, hi = (np.minimum, np.maximum) if propagate_nan else (np.fmin, np.fmax)
    it.assert_same(out[0], lo(x, y).astype(d), signed_zero=False)
    it.assert_same(out[1], hi(x, y).astype(d), signed_zero=False)
    if not propagate_nan:
        it.assert_same(out[2], np.fmin(x, y).astype(d), signed_zero=False)
        it.assert_same(out[3], np.fmax(np.fmax(x, y), 0).astype(d), signed_zero=False)
    else:
        it.assert_same(out[2:], it.poison((2, 40), d))


@ct.kernel
def where_kernel(c, a, b, out, out2, out3):
    i = ct.bid(0)
    cond = ct.load(c, (i, 0), (4, 8))
    x = ct.load(a, (i, 0), (4, 8))
    y = ct.load(b, (i, 0), (4, 8))
    ct.store(out, (i, 0), ct.where(cond, x, y))
    ct.store(out2, (i, 0), ct.where(x > y, x, 0))  # a constant operand takes x's dtype
    ct.store(out3, (i, 0), ct.where(cond, 1.5, y))  # ... or wins by category


@pytest.mark.parametrize("cond_dtype", ["bool_", "int8", "float32"])
@pytest.mark.parametrize("dtype", ["int16", "uint64", "bfloat16", "float64"])
def test_where(it, rng, cond_dtype, dtype):
    d = it.np_dtype(dtype)
    c = it.rand(rng, (7, 8), cond_dtype, low=-1, high=2)
    a, b = it.rand(rng, (7, 8), d), it.rand(rng, (7, 8), d)
    r3 = d if it.is_float(d) else np.dtype(np.float32)
    out, out2, out3 = it.poison((7, 8), d), it.poison((7, 8), d), it.poison((7, 8), r3)
    it.launch(where_kernel, (2,), c, a, b, out, out2, out3)
    cb = c != 0
    it.assert_same(out, np.where(cb, a, b))
    it.assert_same(out2, np.where(a > b, a, np.zeros_like(a)))
    it.assert_same(out3, np.where(cb, np.asarray(1.5, r3), b.astype(r3)))


@ct.kernel
def where_broadcast(a, out):
    x = ct.load(a, (0,), (8,))
    col = x[:, None]  # (8, 1)
    row = x[None, :]  # (1, 8)
    ct.store(out, (0, 0), ct.where(col > row, col, row * 2))
    ct.store(out, (8, 0), ct.where(x > 0, 1, -1)[None, :])  # tile (8, 0) of shape (1, 8): row 8


def test_where_broadcasts(it, rng):
    x = it.rand(rng, 8, "int32", low=-10, high=10)
    out = it.poison((16, 8), np.int32)
    it.launch(where_broadcast, (1,), x, out)
    col, row = x[:, None], x[None, :]
    it.assert_same(out[:8], np.where(col > row, col, row * 2))
    want = it.poison((8, 8), np.int32)
    want[0] = np.where(x > 0, 1, -1)
    it.assert_same(out[8:], want)


@ct.kernel
def where_constant_condition(a, out, out2, FLAG: ct.Constant[bool]):
    x = ct.load(a, (0,), (4,))
    r = ct.where(FLAG, 0, x)  # decided at compile time, but still broadcast ...
    r2 = ct.where(FLAG, x, 2.5)  # ... and promoted
    assert r.shape == (4,) and r.dtype == ct.int32 and r2.dtype == ct.float32
    ct.store(out, (0,), r)
    ct.store(out2, (0,), r2)


@pytest.mark.parametrize("flag", [True, False])
def test_where_with_constant_condition(it, rng, flag):
    x = it.rand(rng, 4, "int32", low=-100, high=100)
    out, out2 = it.poison(4, np.int32), it.poison(4, np.float32)
    it.launch(where_constant_condition, (1,), x, out, out2, flag)
    it.assert_same(out, np.zeros(4, np.int32) if flag else x)
    it.assert_same(out2, x.astype(np.float32) if flag else np.full(4, 2.5, np.float32))


@ct.kernel
def exp2_of_scaled(a, b, out, SIGN: ct.Constant[int]):
    x = ct.load(a, (0,), (64,))
    m = ct.load(b, (0,), (64,))
    if SIGN > 0:
        ct.store(out, (0,), ct.exp2(x * 1.4426950408889634 - m, flush_to_zero=True))
    else:
        ct.store(out, (0,), ct.exp2(m - x * 0.5, flush_to_zero=True))
    ct.store(out, (1,), ct.exp2(x * 1.5 - m))  # exact: no fusion


@pytest.mark.parametrize("sign", [1, -1])
def test_exp2_flush_to_zero_fuses_its_scaled_argument(it, rng, sign):
    """With flush_to_zero the argument's final product and sum are one fma (within the
    approximate exponential's own error), on the GPU; the default exp2 keeps two roundings."""
    x = it.rand(rng, 64, "float32", low=-20, high=20).astype(np.float32)
    m = it.rand(rng, 64, "float32", low=-4, high=4).astype(np.float32)
    out = it.poison(128, np.float32)
    it.launch(exp2_of_scaled, (1,), x, m, out, sign)
    x64, m64 = x.astype(np.float64), m.astype(np.float64)
    arg = x64 * 1.4426950408889634 - m64 if sign > 0 else m64 - x64 * 0.5
    want = np.exp2(arg).astype(np.float32)
    it.assert_close(out[:64], want, ulps=16)
    it.assert_close(out[64:], np.exp2(x64 * 1.5 - m64).astype(np.float32), ulps=16)
    ptx = ct.compile(exp2_of_scaled, (x, m, out, sign), arch="sm_90").ptx
    assert ptx.count("fma.rn.f32") >= 1
