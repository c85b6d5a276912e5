"""Result dtypes of tile-vs-constant, tile-vs-scalar and tile-vs-tile operations, and rejections."""

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct


@ct.kernel
def with_constant(a, out, C: ct.Constant, OP: ct.Constant[str], RT: ct.Constant):
    x = ct.load(a, (0,), (16,))
    if OP == "+":
        r = x + C
    elif OP == "r+":
        r = C + x
    elif OP == "-":
        r = x - C
    elif OP == "r-":
        r = C - x
    elif OP == "*":
        r = x * C
    elif OP == "/":
        r = x / C
    elif OP == "r/":
        r = C / x
    elif OP == "//":
        r = x // C
    elif OP == "r//":
        r = C // x
    elif OP == "%":
        r = x % C
    elif OP == "r%":
        r = C % x
    elif OP == "**":
        r = x**C
    elif OP == "r**":
        r = C**x
    elif OP == "&":
        r = x & C
    elif OP == "r|":
        r = C | x
    elif OP == "^":
        r = x ^ C
    elif OP == "<<":
        r = x << C
    elif OP == ">>":
        r = x >> C
    elif OP == "<":
        r = x < C
    elif OP == "r==":
        r = C == x  # noqa: SIM300 - the reflected comparison is the point
    elif OP == "min":
        r = ct.minimum(x, C)
    else:
        r = ct.maximum(C, x)
    assert r.dtype == RT, "unexpected result dtype"
    ct.store(out, (0,), r)


def py_apply(op: str, x, c):
    fns = {"+": lambda: x + c, "r+": lambda: c + x, "-": lambda: x - c, "r-": lambda: c - x,
           "*": lambda: x * c, "//": lambda: x // c, "r//": lambda: c // x, "%": lambda: x % c,
           "r%": lambda: c % x, "**": lambda: x**c, "r**": lambda: c**x, "&": lambda: x & c,
           "r|": lambda: c | x, "^": lambda: x ^ c, "<<": lambda: x << c, ">>": lambda: x >> c,
           "<": lambda: x < c, "r==": lambda: c == x, "min": lambda: min(x, c),
           "max": lambda: max(c, x)}
    return fns[op]()


# (tile dtype, constant, op, result dtype): integer results are exact Python arithmetic wrapped
INTEGER_CASES = [
    ("int8", 1, "+", "int8"), ("int8", 100, "r+", "int8"), ("int8", -128, "-", "int8"),
    ("int8", 3, "r-", "int8"), ("uint8", 1, "-", "uint8"), ("uint8", 0, "r-", "uint8"),
    ("int16", 300, "*", "int16"), ("int8", 7, "//", "int8"), ("int8", -7, "r//", "int8"),
    ("int32", -3, "%", "int32"), ("int64", 10, "r%", "int64"), ("uint16", 3, "**", "uint16"),
    ("int8", 2, "r**", "int8"), ("uint8", 0x0F, "&", "uint8"), ("int16", -256, "r|", "int16"),
    ("uint64", 2**64 - 1, "^", "uint64"), ("int32", 3, "<<", "int32"), ("int8", 9, ">>", "int8"),
    ("uint32", 2**32 - 1, "max", "uint32"), ("int64", -(2**62), "min", "int64"),
    ("bool_", 1, "+", "int32"), ("bool_", 5, "r-", "int32"), ("bool_", True, "&", "bool_"),
    ("bool_", False, "r|", "bool_"), ("bool_", True, "^", "bool_"), ("int8", 1, "<", "bool_"),
    ("uint8", 255, "r==", "bool_"), ("int64", 2**40, "+", "int64"),
]


def integer_data(it, rng, dtype: str, op: str, c) -> np.ndarray:
    d = it.np_dtype(dtype)
    if d.kind == "b":
        return it.rand(rng, 16, d)
    if op in ("r//", "r%"):
        return it.rand(rng, 16, d, low=1, high=50) * rng.choice([-1, 1], 16).astype(d) \
            if d.kind == "i" else it.rand(rng, 16, d, low=1, high=50)
    if op == "**":
        return it.rand(rng, 16, d, low=0, high=40)
    if op == "r**":
        return it.rand(rng, 16, d, low=0, high=9)
    x = it.rand(rng, 16, d)
    x[:2] = [np.iinfo(d).max, np.iinfo(d).min]
    return x


@pytest.mark.parametrize(("dtype", "c", "op", "rt"), INTEGER_CASES)
def test_integer_tile_with_constant(it, rng, dtype, c, op, rt):
    x = integer_data(it, rng, dtype, op, c)
    r = it.np_dtype(rt)
    out = it.poison(16, "int8" if r.kind == "b" else r)
    it.launch(with_constant, (1,), x, out, c, op, getattr(ct, rt))
    values = [py_apply(op, int(v) if r.kind != "b" or dtype != "bool_" else bool(v), c)
              for v in x]
    bits = 8 * (1 if r.kind == "b" else r.itemsize)
    want = np.array([int(v) % 2**bits for v in values], np.uint64).astype(out.dtype)
    it.assert_same(out, want)


FLOAT_CASES = [
    ("float16", 2.0, "*", "float16"), ("float16", 3, "+", "float16"),
    ("bfloat16", 0.1, "r-", "bfloat16"), ("float64", 1.5, "+", "float64"),
    ("float64", 0.1, "*", "float64"), ("int32", 1.5, "+", "float32"),
    ("int64", 1.5, "+", "float32"), ("uint8", 0.5, "r-", "float32"), ("bool_", 2.5, "*", "float32"),
    ("int32", 2, "/", "float32"), ("int8", 3, "r/", "float32"), ("int64", 7, "/", "float32"),
    ("float16", 4, "/", "float16"), ("float32", 2.5, "//", "float32"),
    ("float32", 7.5, "r%", "float32"), ("float64", -2.0, "%", "float64"),
    ("float32", 2, "**", "float32"), ("float16", 0.5, "**", "float16"),
    ("int16", 1.5, "<", "bool_"), ("float32", 0.0, "max", "float32"),
    ("float16", 1e5, "+", "float16"), ("float32", 2**40, "+", "float32"),
]


@pytest.mark.parametrize(("dtype", "c", "op", "rt"), FLOAT_CASES)
def test_tile_with_constant_float_results(it, rng, dtype, c, op, rt):
    d, r = it.np_dtype(dtype), it.np_dtype(rt)
    x = it.rand(rng, 16, d, nonzero=True) if d.kind != "b" else it.rand(rng, 16, d)
    if d.kind in "iu":
        x = it.rand(rng, 16, d, low=1 if d.kind == "u" else -100, high=100, nonzero=True)
    out = it.poison(16, "int8" if r.kind == "b" else r)
    it.launch(with_constant, (1,), x, out, c, op, getattr(ct, rt))
    # the constant takes the result dtype, then the op runs in it (half types via float32)
    w = np.float64 if r == np.float64 else np.float32
    with np.errstate(all="ignore"):
        xs = x.astype(r).astype(w) if r.kind != "b" else x.astype(np.float64)
        cs = np.asarray(c).astype(r).astype(w) if r.kind != "b" else np.float64(c)
        if op.startswith("r"):
            xs, cs, op = cs, xs, op[1:]
        if op == "//":
            want = np.floor(xs / cs)
        elif op == "%":
            want = np.where(np.fmod(xs, cs) * cs < 0, np.fmod(xs, cs) + cs, np.fmod(xs, cs))
        elif op == "**":
            want = np.power(xs.astype(np.float64), np.float64(cs))
        else:
            want = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide,
                    "<": np.less, "max": np.fmax}[op](xs, cs)
        want = want.astype(w).astype(out.dtype) if r.kind != "b" else want.astype(np.int8)
    if op == "**":
        it.assert_close(out, want, ulps=2)
    else:
        it.assert_same(out, want)


@pytest.mark.parametrize(("dtype", "c", "op"), [
    ("uint8", 300, "+"), ("uint32", -1, "+"), ("int8", 128, "*"), ("int16", 2**40, "-"),
    ("uint8", 256, "<"), ("uint64", 2**64, "+"), ("int8", 1.5, "&"), ("float32", 1, "&"),
    ("bool_", True, "+"), ("bool_", True, "min"), ("float32", 2, "<<"),
])
def test_constant_rejections(it, dtype, c, op):
    x = np.zeros(16, it.np_dtype(dtype))
    with pytest.raises((ct.TileTypeError, ct.TileValueError)):
        it.launch(with_constant, (1,), x, np.zeros(16, np.float64), c, op, ct.float64)


@ct.kernel
def with_scalar(a, out, s, RT: ct.Constant):
    x = ct.load(a, (0,), (8,))
    r = x * s + s
    assert r.dtype == RT
    ct.store(out, (0,), r)


@pytest.mark.parametrize(("dtype", "s", "rt"), [
    ("int8", 3, "int32"),  # a Python int argument is an int32 scalar
    ("int16", 2**40, "int64"),  # ... or int64 when it needs 64 bits
    ("int64", -5, "int64"), ("float16", 0.5, "float32"),  # a Python float is float32
    ("float64", 0.1, "float64"), ("int32", 0.1, "float32"), ("bool_", 7, "int32"),
    ("bfloat16", 3, "bfloat16"), ("uint8", True, "uint8"), ("float16", False, "float16"),
])
def test_tile_with_runtime_scalar(it, rng, dtype, s, rt):
    d = it.np_dtype(dtype)
    x = it.rand(rng, 8, d, low=0 if d.kind == "u" else -50, high=50) if d.kind != "b" \
        else it.rand(rng, 8, d)
    out = it.poison(8, rt)
    it.launch(with_scalar, (1,), x, out, s, getattr(ct, rt))
    r = it.np_dtype(rt)
    sd = np.bool_ if isinstance(s, bool) else np.float32 if isinstance(s, float) else \
        np.int32 if -(2**31) <= s < 2**31 else np.int64
    sv = np.array(s, sd).astype(r)
    if it.is_float(r):
        w = np.float64 if r == np.float64 else np.float32
        prod = (x.astype(r).astype(w) * sv.astype(w)).astype(r).astype(w)
        want = (prod + sv.astype(w)).astype(r)
    else:
        with np.errstate(over="ignore"):
            want = (x.astype(r) * sv + sv).astype(r)
    it.assert_same(out, want)


@pytest.mark.parametrize(("dtype", "s"), [("uint8", 3), ("uint32", -1), ("uint64", 2**40)])
def test_signed_unsigned_scalar_is_rejected(it, dtype, s):
    with pytest.raises(ct.TileError):
        it.launch(with_scalar, (1,), np.zeros(8, it.np_dtype(dtype)), np.zeros(8, np.float64), s,
                  ct.float64)


@ct.kernel
def tile_pair(a, b, out, RT: ct.Constant):
    x = ct.load(a, (0,), (8,))
    y = ct.load(b, (0,), (8,))
    r = x + y
    r2 = ct.where(x == x, x, y)
    assert r.dtype == RT and r2.dtype == RT
    ct.store(out, (0,), r)


@pytest.mark.parametrize(("da", "db", "rt"), [
    ("int8", "int32", "int32"), ("int16", "int8", "int16"), ("uint8", "uint16", "uint16"),
    ("uint64", "uint32", "uint64"), ("bool_", "int8", "int8"), ("uint16", "bool_", "uint16"),
    ("int64", "float16", "float16"), ("int32", "bfloat16", "bfloat16"),
    ("bool_", "float32", "float32"), ("float16", "float32", "float32"),
    ("bfloat16", "float64", "float64"), ("float32", "float64", "float64"),
    ("uint64", "float32", "float32"),
])
def test_tile_tile_promotion(it, rng, da, db, rt):
    a = it.rand(rng, 8, da, low=0, high=100) if da != "bool_" else it.rand(rng, 8, da)
    b = it.rand(rng, 8, db, low=0, high=100) if db != "bool_" else it.rand(rng, 8, db)
    out = it.poison(8, rt)
    it.launch(tile_pair, (1,), a, b, out, getattr(ct, rt))
    r = it.np_dtype(rt)
    w = np.float64 if r == np.float64 else np.float32 if it.is_float(r) else r
    with np.errstate(over="ignore"):
        want = (a.astype(r).astype(w) + b.astype(r).astype(w)).astype(r)
    it.assert_same(out, want)


@pytest.mark.parametrize(("da", "db"), [("int8", "uint8"), ("int64", "uint32"),
                                        ("float16", "bfloat16"), ("bool_", "bool_")])
def test_tile_tile_rejections(it, da, db):
    with pytest.raises(ct.TileTypeError):
        it.launch(tile_pair, (1,), np.zeros(8, it.np_dtype(da)), np.zeros(8, it.np_dtype(db)),
                  np.zeros(8, np.float64), ct.float64)


@ct.kernel
def bitwise_mixed(a, b, out):
    ct.store(out, (0,), ct.load(a, (0,), (8,)) & ct.load(b, (0,), (8,)))


def test_bitwise_needs_one_dtype(it):
    with pytest.raises(ct.TileTypeError):
        it.launch(bitwise_mixed, (1,), np.zeros(8, np.int8), np.zeros(8, np.int16),
                  np.zeros(8, np.int16))
    with pytest.raises(ct.TileTypeError):
        it.launch(bitwise_mixed, (1,), np.zeros(8, np.float32), np.zeros(8, np.float32),
                  np.zeros(8, np.float32))


@ct.kernel
def loose_folding(out, C: ct.Constant[int]):
    ct.store(out, (0,), 7 // 2 + C)  # loose constants fold with Python semantics
    ct.store(out, (1,), -7 % 3 + C)
    ct.store(out, (2,), (7 / 2) * 2 + C)
    ct.store(out, (3,), ct.int16(5) + 2 + C)  # strict int16 + loose
    ct.store(out, (4,), 2**40 // 2**38 + C)


def test_loose_constants_fold(it):
    out = it.poison(5, np.float64)
    it.launch(loose_folding, (1,), out, 10)
    it.assert_same(out, np.array([13, 12, 17, 17, 14], np.float64))
