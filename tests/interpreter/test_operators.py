"""Python operators on tiles (and the matching tilelang functions), for every dtype.

Integer results are compared exactly against Python integer arithmetic (wrapping to the dtype);
float results against NumPy computing the same operation (half types in float32, rounded once).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import tilelang as ct

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
SHAPE, TILE, GRID = (6, 13), (4, 8), (2, 2)


@ct.kernel
def binop(a, b, out, out2, OP: ct.Constant[str], RT: ct.Constant):
    i, j = ct.bid(0), ct.bid(1)
    x = ct.load(a, (i, j), (4, 8))
    # padding y with a non-zero value keeps integer // and % of the padded lanes defined (the
    # interpreter raises on integer division by zero even in lanes that are never stored)
    y = ct.load(b, (i, j), (4, 8), padding_mode=ct.PaddingMode.POS_INF)
    if OP == "+":
        r, f = x + y, ct.add(x, y)
    elif OP == "-":
        r, f = x - y, ct.sub(x, y)
    elif OP == "*":
        r, f = x * y, ct.mul(x, y)
    elif OP == "/":
        r, f = x / y, ct.truediv(x, y)
    elif OP == "//":
        r, f = x // y, ct.floordiv(x, y)
    elif OP == "%":
        r, f = x % y, ct.mod(x, y)
    elif OP == "**":
        r, f = x**y, ct.pow(x, y)
    elif OP == "&":
        r, f = x & y, ct.bitwise_and(x, y)
    elif OP == "|":
        r, f = x | y, ct.bitwise_or(x, y)
    elif OP == "^":
        r, f = x ^ y, ct.bitwise_xor(x, y)
    elif OP == "<<":
        r, f = x << y, ct.bitwise_lshift(x, y)
    elif OP == ">>":
        r, f = x >> y, ct.bitwise_rshift(x, y)
    elif OP == "==":
        r, f = x == y, ct.equal(x, y)
    elif OP == "!=":
        r, f = x != y, ct.not_equal(x, y)
    elif OP == "<":
        r, f = x < y, ct.less(x, y)
    elif OP == "<=":
        r, f = x <= y, ct.less_equal(x, y)
    elif OP == ">":
        r, f = x > y, ct.greater(x, y)
    else:
        r, f = x >= y, ct.greater_equal(x, y)
    assert r.dtype == RT and f.dtype == RT and r.shape == (4, 8)
    ct.store(out, (i, j), r)
    ct.store(out2, (i, j), f)


def wrap(values: list[int], dtype: np.dtype) -> np.ndarray:
    return np.array([v % 2 ** (8 * dtype.itemsize) for v in values], np.uint64).astype(dtype)


def py_floordiv(a: int, b: int) -> int:
    return a // b


def py_shift(op: str, a: int, s: int, bits: int) -> int:
    if 0 <= s < bits:
        return a << s if op == "<<" else a >> s
    return -1 if op == ">>" and a < 0 else 0


def py_int_pow(a: int, e: int) -> int:
    if e >= 0:
        return a**e
    return 1 if a == 1 else (1 if e % 2 == 0 else -1) if a == -1 else 0


INT_OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
           "//": py_floordiv, "%": lambda a, b: a % b, "**": py_int_pow,
           "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b}
COMPARES = {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal,
            ">": np.greater, ">=": np.greater_equal}


def int_operands(it, rng, op: str, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    d = it.np_dtype(dtype)
    info = np.iinfo(d)
    a, b = it.rand(rng, SHAPE, d), it.rand(rng, SHAPE, d)
    small = rng.random(SHAPE) < 0.5  # many small values of both signs
    lo = max(info.min, -20)
    a = np.where(small, it.rand(rng, SHAPE, d, low=lo, high=21), a)
    b = np.where(rng.random(SHAPE) < 0.5, it.rand(rng, SHAPE, d, low=lo, high=21), b)
    if op in ("//", "%"):
        b = np.where(b == 0, d.type(7), b)
        if info.min < 0:
            b = np.where((a == info.min) & (b == -1), d.type(3), b)  # overflow is undefined
    elif op == "**":
        a = it.rand(rng, SHAPE, d, low=max(info.min, -6), high=7)
        b = it.rand(rng, SHAPE, d, low=-3 if info.min < 0 else 0, high=12)
        a = np.where(b < 0, np.where(a == 0, d.type(2), a), a)
        a.flat[:3] = [3, 200 % (info.max + 1), 2]  # large powers wrap
        b.flat[:3] = [40, 5, 8 * d.itemsize]
    elif op in ("<<", ">>"):
        bits = 8 * d.itemsize
        b = it.rand(rng, SHAPE, d, low=-2 if info.min < 0 else 0, high=bits + 3)
    return a, b


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("op", ["+", "-", "*", "//", "%", "**", "&", "|", "^", "<<", ">>"])
def test_integer_binary(it, rng, op, dtype):
    d = it.np_dtype(dtype)
    a, b = int_operands(it, rng, op, dtype)
    bt = np.ascontiguousarray(b.T).T  # the second operand is a column-major view
    out, out2 = it.poison(SHAPE, d), it.poison(SHAPE, d)
    it.launch(binop, GRID, a, bt, out, out2, op, getattr(ct, dtype))
    pa, pb = [int(v) for v in a.ravel()], [int(v) for v in b.ravel()]
    if op in ("<<", ">>"):
        want = [py_shift(op, x, s, 8 * d.itemsize) for x, s in zip(pa, pb, strict=True)]
    else:
        want = [INT_OPS[op](x, y) for x, y in zip(pa, pb, strict=True)]
    want = wrap(want, d).reshape(SHAPE)
    it.assert_same(out, want)
    it.assert_same(out2, want)


def test_floor_division_and_modulo_signs(it):
    """Python semantics: // rounds toward negative infinity and % has the sign of the divisor."""
    a = np.array([7, -7, 7, -7, 0, 1, -1, 6, -6, 5, -5, 127, -128, 3, -3, 100] * 2,
                 np.int8).reshape(4, 8)
    b = np.array([2, 2, -2, -2, 3, -3, 3, -3, 3, 1, -1, -128, 127, 4, 4, -7] * 2,
                 np.int8).reshape(4, 8)
    for op in ("//", "%"):
        out, out2 = it.poison((4, 8), np.int8), it.poison((4, 8), np.int8)
        it.launch(binop, (1, 1), a, b, out, out2, op, ct.int8)
        fn = INT_OPS[op]
        want = np.array([[fn(int(x), int(y)) for x, y in zip(ra, rb, strict=True)]
                         for ra, rb in zip(a, b, strict=True)], np.int8)
        it.assert_same(out, want)
        it.assert_same(out2, want)
    assert want[0, :4].tolist() == [1, 1, -1, -1]  # 7 % 2, -7 % 2, 7 % -2, -7 % -2


@ct.kernel
def divide_by_zero(a, b, out):
    ct.store(out, (0,), ct.load(a, (0,), (4,)) // ct.load(b, (0,), (4,)))


@pytest.mark.interpreter_only  # undefined on the GPU
def test_integer_division_by_zero_gives_zero(it):
    """Undefined behaviour on the GPU; the interpreter gives 0 rather than stopping, because a
    padded lane of a partial tile (padding is zero by default) divides by zero harmlessly."""
    out = it.poison(4, np.int32)
    it.launch(divide_by_zero, (1,), np.full(4, 7, np.int32), np.array([1, 2, 0, 3], np.int32),
              out)
    it.assert_same(out, np.array([7, 3, 0, 2], np.int32))


def float_reference(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    d = a.dtype
    w = np.float64 if d == np.float64 else np.float32
    x, y = a.astype(w), b.astype(w)
    with np.errstate(all="ignore"):
        if op == "//":  # the quotient rounds to the dtype, then the floor (as in cuTile)
            r = np.floor((x / y).astype(d).astype(w))
        elif op == "%":
            r = np.array([_py_mod(float(p), float(q)) for p, q in zip(x.ravel(), y.ravel(),
                                                                     strict=True)])
            r = r.reshape(x.shape)
        else:
            r = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}[op](x, y)
        return r.astype(w).astype(d)


def _py_mod(p: float, q: float) -> float:
    if math.isnan(p) or math.isnan(q) or math.isinf(p) or q == 0:
        return math.nan
    if math.isinf(q):  # Python: the dividend if the signs agree, else the (infinite) divisor
        return p if (p < 0) == (q < 0) or p == 0 else q
    return p % q


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ["+", "-", "*", "/", "//", "%"])
def test_float_binary(it, rng, op, dtype):
    a = it.rand(rng, SHAPE, dtype, special=True)
    b = it.rand(rng, SHAPE, dtype, special=True)
    a.flat[:4], b.flat[:4] = [5.5, -5.5, 5.5, -4.0], [2.25, 2.25, -2.25, 2.0]
    # quotients just below 3 in float32 that round to 3.0 in the half types
    a.flat[4:6], b.flat[4:6] = [3.578125, 3.2304688], [1.1953125, 1.0771484]
    out, out2 = it.poison(SHAPE, dtype), it.poison(SHAPE, dtype)
    it.launch(binop, GRID, a, b[::-1].copy()[::-1], out, out2, op, getattr(ct, dtype))
    want = float_reference(op, a, b)
    it.assert_same(out, want, signed_zero=op != "%")
    it.assert_same(out2, want, signed_zero=op != "%")


@pytest.mark.parametrize("dtype", [*INTS, "bool_"])
def test_integer_true_division_is_float32(it, rng, dtype):
    a = it.rand(rng, SHAPE, dtype)
    b = it.rand(rng, SHAPE, dtype)
    out, out2 = it.poison(SHAPE, np.float32), it.poison(SHAPE, np.float32)
    it.launch(binop, GRID, a, b, out, out2, "/", ct.float32)
    with np.errstate(all="ignore"):
        want = a.astype(np.float32) / b.astype(np.float32)
    it.assert_same(out, want)
    it.assert_same(out2, want)


@pytest.mark.parametrize("dtype", FLOATS)
def test_float_power(it, rng, dtype):
    a = it.rand(rng, SHAPE, dtype, low=0.0, high=4.0)
    b = it.rand(rng, SHAPE, dtype, low=-3.0, high=3.0)
    a.flat[:6] = [-2.0, -2.0, 0.0, -0.5, np.nan, 1.0]
    b.flat[:6] = [3.0, 2.0, -1.0, 0.5, 0.0, np.nan]
    out, out2 = it.poison(SHAPE, dtype), it.poison(SHAPE, dtype)
    it.launch(binop, GRID, a, b, out, out2, "**", getattr(ct, dtype))
    with np.errstate(all="ignore"):
        want = np.power(a.astype(np.float64), b.astype(np.float64)).astype(a.dtype)
    it.assert_close(out, want, ulps=2)
    it.assert_same(out, out2)
    it.assert_same(out.flat[:6], want.flat[:6])  # exact special cases (inf, nan, 1)


@pytest.mark.parametrize("op", ["&", "|", "^"])
def test_bool_bitwise(it, rng, op):
    a, b = it.rand(rng, SHAPE, "bool_"), it.rand(rng, SHAPE, "bool_")
    out, out2 = it.poison(SHAPE, "bool_"), it.poison(SHAPE, "bool_")
    out[...] = out2[...] = True
    out[0], out2[0] = False, False
    it.launch(binop, GRID, a, b, out, out2, op, ct.bool_)
    want = {"&": a & b, "|": a | b, "^": a ^ b}[op]
    it.assert_same(out, want)
    it.assert_same(out2, want)


@pytest.mark.parametrize("dtype", ["bool_", *INTS, *FLOATS])
@pytest.mark.parametrize("op", list(COMPARES))
def test_comparisons(it, rng, op, dtype):
    a = it.rand(rng, SHAPE, dtype, special=True)
    b = np.where(rng.random(SHAPE) < 0.3, a, it.rand(rng, SHAPE, dtype, special=True))
    out, out2 = it.poison(SHAPE, "int8"), it.poison(SHAPE, "int8")  # bool stored as 0 / 1
    it.launch(binop, GRID, a, b, out, out2, op, ct.bool_)
    w = np.float64 if it.is_float(dtype) else a.dtype
    want = COMPARES[op](a.astype(w), b.astype(w)).astype(np.int8)
    it.assert_same(out, want)
    it.assert_same(out2, want)


@ct.kernel
def unary(a, neg, neg2, inv, inv2, pos, ab, ab2):
    x = ct.load(a, (0, 0), (8, 8))
    ct.store(neg, (0, 0), -x)
    ct.store(neg2, (0, 0), ct.negative(x))
    if not x.dtype.is_float:
        ct.store(inv, (0, 0), ~x)
        ct.store(inv2, (0, 0), ct.bitwise_not(x))
    ct.store(pos, (0, 0), +x)
    ct.store(ab, (0, 0), abs(x))
    ct.store(ab2, (0, 0), ct.abs(x))


@pytest.mark.parametrize("dtype", [*INTS, "bool_", *FLOATS])
def test_unary_operators(it, rng, dtype):
    d = it.np_dtype(dtype)
    x = it.rand(rng, (7, 8), dtype, special=True)
    if d.kind == "i":
        x.flat[:3] = [np.iinfo(d).min, -1, 0]
    is_bool = d.kind == "b"
    rd = np.dtype(np.int32) if is_bool else d  # - and + make bools int32
    outs = [it.poison((7, 8), rd), it.poison((7, 8), rd), it.poison((7, 8), d),
            it.poison((7, 8), d), it.poison((7, 8), rd), it.poison((7, 8), d),
            it.poison((7, 8), d)]
    if is_bool:
        for o in (outs[2], outs[3]):
            o[...] = ~x  # poison bool outputs with the wrong answer
    it.launch(unary, (1,), x, *outs)
    xi = x.astype(rd)
    if it.is_float(d):
        neg = -x
        absx = np.abs(x)
    else:
        neg = wrap([-int(v) for v in xi.ravel()], rd).reshape(x.shape)
        absx = x if d.kind in "ub" else wrap([abs(int(v)) for v in x.ravel()], d).reshape(x.shape)
    it.assert_same(outs[0], neg)
    it.assert_same(outs[1], neg)
    if not it.is_float(d):
        inv = ~x if is_bool else wrap([~int(v) for v in x.ravel()], d).reshape(x.shape)
        it.assert_same(outs[2], inv)
        it.assert_same(outs[3], inv)
    it.assert_same(outs[4], xi)
    it.assert_same(outs[5], absx)
    it.assert_same(outs[6], absx)


@ct.kernel
def scalar_not(out, v):
    ct.store(out, (0,), not v)
    ct.store(out, (1,), not (v > 3))


@pytest.mark.parametrize("v", [0, 1, 5, -2])
def test_not_on_scalars(it, v):
    out = it.poison(2, "int8")
    it.launch(scalar_not, (1,), out, v)
    it.assert_same(out, np.array([not v, not v > 3], np.int8))


@ct.kernel
def chained(a, out):
    x = ct.load(a, (0,), (16,))
    ct.store(out, (0,), 0 < x < 10)
    ct.store(out, (1,), (x > 2) & (x <= 7) | (x == -1))


def test_chained_comparison_and_logic(it, rng):
    a = it.rand(rng, 16, "int32", low=-3, high=13)
    out = it.poison(32, "int8")
    it.launch(chained, (1,), a, out)
    want = np.concatenate([(a > 0) & (a < 10), (a > 2) & (a <= 7) | (a == -1)])
    it.assert_same(out, want.astype(np.int8))


@ct.kernel
def bitwise_not_of_bools(out):
    nan = float("nan")
    ct.store(out, (0, 0), ct.full((1, 2), ct.bitwise_not(nan == nan), ct.bool_))  # not False
    ct.store(out, (1, 0), ct.full((1, 2), ct.bitwise_not(True), ct.bool_))


def test_bitwise_not_of_bool_constants_is_not(it):
    out = it.poison((2, 2), "bool_")
    it.launch(bitwise_not_of_bools, (1,), out)
    it.assert_same(out, np.array([[True, True], [False, False]]))
