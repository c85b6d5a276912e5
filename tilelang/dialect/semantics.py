"""Dialect: the meaning of each `tile` op, as NumPy functions.

The interpreter runs these; constant folding evaluates them; the GPU lowering must agree with
them. They live below both, so each op's meaning is defined once:
- integer arithmetic wraps; `//` and `%` round toward negative infinity (Python); integer
  division by zero is undefined on the GPU and gives 0 here (a padded lane of a partial tile
  may divide by zero harmlessly, so it must not stop the run);
- float `//` is floor(x / y) and float `%` takes the sign of the divisor;
- shifts by a negative amount or by the bit width or more give 0 (`>>` of a negative signed
  value gives -1), as PTX's clamped shifts do;
- float minimum/maximum ignore a NaN operand (fmin/fmax);
- float to integer casts truncate toward zero and saturate, NaN gives 0 (PTX cvt.rzi);
- float16/bfloat16 math is computed in float32 and rounded once;
- conversions to the restricted floats (tfloat32, 8-bit floats) are in dialect/restricted.py.
"""

from __future__ import annotations

from collections.abc import Callable

import ml_dtypes
import numpy as np

from tilelang.dialect import op_table
from tilelang.dialect.float8_e5m3 import E5M3FNU, e5m3_codes, widen_restricted
from tilelang.dialect.round_to_odd import round_to_odd_float32
from tilelang.language import dtypes as dt
from tilelang.language.dtypes import DType


def np_dtype(dtype: DType) -> np.dtype:
    """The NumPy dtype holding `dtype`'s values (ml_dtypes' for bfloat16 and the 8-bit floats;
    float32 for tfloat32; E5M3FNU's bytes for float8_e5m3fnu)."""
    if dtype is dt.float8_e5m3fnu:
        return E5M3FNU
    return np.dtype(getattr(ml_dtypes, dtype.numpy, None) or dtype.numpy)


def hold(value: object, dtype: DType) -> np.ndarray:
    """An array of `dtype` holding `value` (a Python number or nested sequence of them, already
    representable: a constant's value)."""
    if dtype is dt.float8_e5m3fnu:
        return e5m3_codes(np.asarray(value, np.float32)).view(E5M3FNU)
    return np.asarray(value, np_dtype(dtype))


def _wide(x: np.ndarray) -> np.ndarray:
    """Half-precision (and 8-bit float) operands are computed in float32."""
    x = widen_restricted(x)
    return x.astype(np.float32) if x.dtype.itemsize <= 2 and _is_float(x) else x


def _is_float(x: np.ndarray) -> bool:
    return x.dtype.kind == "f" or x.dtype in _ML_FLOATS


_ML_FLOATS = tuple(np.dtype(t) for t in (ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn,
                                         ml_dtypes.float8_e5m2, ml_dtypes.float8_e8m0fnu,
                                         ml_dtypes.float4_e2m1fn))
_E8M0 = np.dtype(ml_dtypes.float8_e8m0fnu)


def _float_op(fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    def apply(*xs: np.ndarray) -> np.ndarray:
        return fn(*(_wide(x) for x in xs)).astype(xs[0].dtype)

    return apply


def _arith(fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    def apply(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        if _is_float(x):
            return fn(_wide(x), _wide(y)).astype(x.dtype)
        return fn(x, y).astype(x.dtype)

    return apply


def floordiv(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if _is_float(x):  # floor of the quotient rounded to the dtype (a divide, then a floor)
        quotient = (_wide(x) / _wide(y)).astype(x.dtype)
        return np.floor(_wide(quotient)).astype(x.dtype)
    safe = np.where(y == 0, 1, y)
    return np.where(y == 0, 0, np.floor_divide(x, safe)).astype(x.dtype)


def mod(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if _is_float(x):
        a, b = _wide(x), _wide(y)
        r = np.fmod(a, b)
        fix = (r != 0) & ((r < 0) != (b < 0))
        return np.where(fix, r + b, r).astype(x.dtype)
    safe = np.where(y == 0, 1, y)
    return np.where(y == 0, 0, np.remainder(x, safe)).astype(x.dtype)


def power(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if _is_float(x):
        return np.power(_wide(x), _wide(y)).astype(x.dtype)
    return _int_power(x, y)


def _int_power(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Integer power by squaring with wrap-around; a negative exponent truncates 1/x**n."""
    x, y = np.broadcast_arrays(x, y)
    result = np.ones_like(x)
    base, exp = x.copy(), y.astype(np.int64 if y.dtype.kind == "i" else np.uint64)
    neg = exp < 0
    exp = np.where(neg, 0, exp)
    while np.any(exp > 0):
        odd = (exp & 1) == 1
        result = np.where(odd, result * base, result)
        base = base * base
        exp >>= 1
    inverse = np.where(x == 1, 1, np.where(x == -1, np.where(y % 2 == 0, 1, -1), 0))
    # in x's dtype: int64 mixed with uint64 would make NumPy compute in float64
    return np.where(neg, inverse.astype(x.dtype), result).astype(x.dtype)


def shift_left(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    bits = x.dtype.itemsize * 8
    ok = (y >= 0) & (y < bits)
    return np.where(ok, np.left_shift(x, np.where(ok, y, 0).astype(x.dtype)), 0).astype(x.dtype)


def shift_right(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    bits = x.dtype.itemsize * 8
    ok = (y >= 0) & (y < bits)
    shifted = np.right_shift(x, np.where(ok, y, 0).astype(x.dtype))
    fill = np.where(x < 0, -1, 0) if x.dtype.kind == "i" else 0
    return np.where(ok, shifted, fill).astype(x.dtype)


def minimum(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return _arith(np.fmin)(x, y) if _is_float(x) else np.minimum(x, y)


def maximum(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return _arith(np.fmax)(x, y) if _is_float(x) else np.maximum(x, y)


def abs_(x: np.ndarray) -> np.ndarray:
    return np.abs(x).astype(x.dtype)


def cast(x: np.ndarray, dtype: np.dtype | DType) -> np.ndarray:
    """astype to `dtype` (a DType where it may be a restricted float: tfloat32 is held as
    float32, so only the DType tells that a conversion to it must round)."""
    if isinstance(dtype, DType):
        if dtype.restricted:
            from tilelang.dialect.restricted import to_restricted

            return to_restricted(x, dtype)
        dtype = np_dtype(dtype)
    x = widen_restricted(x)  # float8_e5m3fnu: exactly to float32
    if _is_float(x) and x.dtype.itemsize == 1:  # 8- and 4-bit floats: exactly through float16,
        x = x.astype(np.float32 if x.dtype == _E8M0 else np.float16)  # e8m0 through float32
    if dtype == np.bool_:
        return x != 0
    if _is_float(x) and dtype.kind in "iu":
        info = np.iinfo(dtype)
        v = np.trunc(x.astype(np.float64))
        v = np.where(np.isnan(v), 0, np.clip(v, info.min, info.max))
        # float64 cannot hold every int64 bound exactly: saturate explicitly at the top.
        big = x.astype(np.float64) >= float(info.max)
        return np.where(big, info.max, v.astype(dtype)).astype(dtype)
    if dtype == ml_dtypes.bfloat16 and x.dtype.itemsize >= 4 and x.dtype != np.float32:
        # ml_dtypes converts through float32, which rounds twice: round to odd first instead
        return round_to_odd_float32(x).astype(dtype)
    return x.astype(dtype)


# the NumPy meaning of op_table.BINARY's and op_table.UNARY's records, keyed by their names
# (tests/dialect/test_op_table.py checks that each record has one)
BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    op_table.ADD.name: _arith(np.add),
    op_table.SUB.name: _arith(np.subtract),
    op_table.MUL.name: _arith(np.multiply),
    op_table.DIV.name: _arith(np.true_divide),
    op_table.FLOORDIV.name: floordiv,
    op_table.MOD.name: mod,
    op_table.POW.name: power,
    op_table.MINIMUM.name: minimum,
    op_table.MAXIMUM.name: maximum,
    op_table.AND.name: np.bitwise_and,
    op_table.OR.name: np.bitwise_or,
    op_table.XOR.name: np.bitwise_xor,
    op_table.SHL.name: shift_left,
    op_table.SHR.name: shift_right,
    op_table.ATAN2.name: _arith(np.arctan2),
}

UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    op_table.NEG.name: lambda x: np.negative(x).astype(x.dtype),
    op_table.INVERT.name: np.invert,
    op_table.ABS.name: abs_,
    op_table.EXP.name: _float_op(np.exp),
    op_table.EXP2.name: _float_op(np.exp2),
    op_table.LOG.name: _float_op(np.log),
    op_table.LOG2.name: _float_op(np.log2),
    op_table.SQRT.name: _float_op(np.sqrt),
    op_table.RSQRT.name: _float_op(lambda x: 1 / np.sqrt(x)),
    op_table.SIN.name: _float_op(np.sin),
    op_table.COS.name: _float_op(np.cos),
    op_table.TAN.name: _float_op(np.tan),
    op_table.SINH.name: _float_op(np.sinh),
    op_table.COSH.name: _float_op(np.cosh),
    op_table.TANH.name: _float_op(np.tanh),
    op_table.FLOOR.name: _float_op(np.floor),
    op_table.CEIL.name: _float_op(np.ceil),
    op_table.ISNAN.name: lambda x: np.isnan(_wide(x)),
}

COMPARE: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal,
}


def compare(predicate: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return COMPARE[predicate](_wide(x), _wide(y))


def select(c: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.where(c, x, y).astype(x.dtype)


# ----- matrix products ---------------------------------------------------------------------------


def mma(a: np.ndarray, b: np.ndarray, acc: np.ndarray) -> np.ndarray:
    """`a @ b + acc` in acc's dtype (batched over a leading dimension, if any).

    Integer inputs: exact, wrapping to int32 as the hardware's int32 accumulator does. Float
    inputs: every product and the sum are computed in float64 (products of inputs of up to 24
    significant bits, float32 included, are exact), then rounded once to acc's dtype: at least
    the precision of a float32 accumulator, in no particular order. tfloat32 values are held
    already rounded, so they need no rounding here. float64 inputs multiply in float64.
    """
    if a.dtype.kind in "iu":
        wide = np.matmul(a.astype(np.int64), b.astype(np.int64)) + acc.astype(np.int64)
        return wide.astype(acc.dtype)
    with np.errstate(all="ignore"):
        wide = np.matmul(a.astype(np.float64), b.astype(np.float64)) + acc.astype(np.float64)
    return cast(wide, acc.dtype)


# ----- memory: what an out-of-bounds element of a load reads ------------------------------------

PADDING = {
    "undetermined": 0.0,  # the GPU reads zeros too
    "zero": 0.0,
    "neg_zero": -0.0,
    "nan": float("nan"),
    "pos_inf": float("inf"),
    "neg_inf": float("-inf"),
}


def padding_value(mode: str, dtype: np.dtype) -> bool | int | float:
    value = PADDING[mode]
    if dtype.kind in "iu":  # infinities saturate to the integer range
        info = np.iinfo(dtype)
        return info.max if value == float("inf") else info.min if value == float("-inf") else 0
    if dtype.kind == "b":
        return False
    if dtype == _E8M0:  # converted as astype converts (ml_dtypes would make zero NaN)
        from tilelang.dialect.restricted import to_restricted

        return float(to_restricted(np.array([value]), dt.float8_e8m0fnu)[0])
    return value


def flush_to_zero(fn):
    """`fn` with subnormal float32 results flushed to zero (the GPU's .ftz instructions)."""
    smallest = np.float32(np.finfo(np.float32).tiny)

    def flushed(x):
        y = np.asarray(fn(x))
        return np.where(np.abs(y) < smallest, np.zeros_like(y), y)

    return flushed
