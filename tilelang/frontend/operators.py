"""Front end: Python operators and element-wise functions on tiles, with cuTile's typing rules."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import overload

from tilelang.dialect.ops import AttrValue
from tilelang.errors import TileTypeError, TileValueError
from tilelang.frontend import build, semantics
from tilelang.frontend import values as frontend_values
from tilelang.frontend.semantics import describe
from tilelang.frontend.values import TileValue, is_loose
from tilelang.language import dtypes as dt
from tilelang.language.dtypes import DType

Value = object

# name -> (Python function for loose constants, tile op, kind)
# kinds: "arith" (promoted, no bool), "float" (result is float), "bitwise" (same int/bool dtype),
# "shift" (ints), "math2" (ints computed as float32)
BINARY: dict[str, tuple[Callable, str, str]] = {
    "add": (operator.add, "add", "arith"),
    "sub": (operator.sub, "sub", "arith"),
    "mul": (operator.mul, "mul", "arith"),
    "truediv": (operator.truediv, "div", "float"),
    "floordiv": (operator.floordiv, "floordiv", "arith"),
    "mod": (operator.mod, "mod", "arith"),
    "pow": (operator.pow, "pow", "arith"),
    "minimum": (min, "minimum", "arith"),
    "maximum": (max, "maximum", "arith"),
    "bitwise_and": (operator.and_, "and", "bitwise"),
    "bitwise_or": (operator.or_, "or", "bitwise"),
    "bitwise_xor": (operator.xor, "xor", "bitwise"),
    "bitwise_lshift": (operator.lshift, "shl", "shift"),
    "bitwise_rshift": (operator.rshift, "shr", "shift"),
    "atan2": (math.atan2, "atan2", "math2"),
}

COMPARE: dict[str, tuple[Callable, str]] = {
    "equal": (operator.eq, "eq"),
    "not_equal": (operator.ne, "ne"),
    "less": (operator.lt, "lt"),
    "less_equal": (operator.le, "le"),
    "greater": (operator.gt, "gt"),
    "greater_equal": (operator.ge, "ge"),
}


def fold(fn: Callable, *args: object) -> object:
    """Evaluate on loose constants with Python semantics; Python errors become tile errors."""
    try:
        return fn(*args)
    except ZeroDivisionError as e:
        raise TileValueError(f"constant expression divides by zero: {e}") from None
    except (ValueError, OverflowError) as e:
        raise TileValueError(f"constant expression is invalid: {e}") from None
    except TypeError as e:
        raise TileTypeError(f"constant expression is invalid: {e}") from None


def common_dtype(lhs: Value, rhs: Value) -> DType:
    """Promotion of two operands, at least one of which is a tile."""
    if isinstance(lhs, TileValue) and isinstance(rhs, TileValue):
        return semantics.promote(lhs.dtype, rhs.dtype)
    tile, const = (lhs, rhs) if isinstance(lhs, TileValue) else (rhs, lhs)
    if not isinstance(tile, TileValue) or not is_loose(const):
        raise TileTypeError(f"unsupported operands {describe(lhs)} and {describe(rhs)}")
    return semantics.promote_with_constant(tile.dtype, const)


def coerce(values: list[Value], dtype: DType) -> list[TileValue]:
    """Materialize and cast every operand to `dtype`, then broadcast them to a common shape."""
    tiles = [build.to_tile(v, dtype) for v in values]
    shape = semantics.broadcast_shapes(*(t.shape for t in tiles))
    return [build.broadcast_to(t, shape) for t in tiles]


@overload
def binary(name: str, lhs: TileValue, rhs: Value, **attrs: AttrValue | None) -> TileValue: ...
@overload
def binary(name: str, lhs: Value, rhs: TileValue, **attrs: AttrValue | None) -> TileValue: ...
@overload
def binary(name: str, lhs: Value, rhs: Value, **attrs: AttrValue | None) -> Value: ...
def binary(name: str, lhs: Value, rhs: Value, **attrs: AttrValue | None) -> Value:
    """`lhs <name> rhs`; `attrs` (e.g. rounding_mode) go on the emitted op."""
    fn, tile_op, _ = BINARY[name]
    dtype = binary_dtype(name, lhs, rhs)
    if dtype is None:
        return fold(fn, lhs, rhs)
    a, b = coerce([lhs, rhs], dtype)
    return build.elementwise(tile_op, [a, b], None, **{k: v for k, v in attrs.items() if v})


def _check_operand(value: Value, name: str) -> None:
    if not isinstance(value, TileValue) and not is_loose(value):
        raise TileTypeError(f"{name} does not accept {describe(value)}")


def binary_dtype(name: str, lhs: Value, rhs: Value) -> DType | None:
    """The dtype `lhs <name> rhs` computes in; None when both are constants (folded)."""
    if is_loose(lhs) and is_loose(rhs):
        return None
    _check_operand(lhs, name)
    _check_operand(rhs, name)
    return _binary_dtype(name, BINARY[name][2], lhs, rhs)


def _binary_dtype(name: str, kind: str, lhs: Value, rhs: Value) -> DType:
    if kind == "bitwise":
        return _bitwise_dtype(lhs, rhs)
    if kind == "shift":
        _check_shift_operands(lhs, rhs)
    for side, value in (("Left", lhs), ("Right", rhs)):
        if isinstance(value, TileValue) and not value.dtype.is_arithmetic:
            raise TileTypeError(
                f"{side}-hand side has non-arithmetic dtype {value.dtype.name}",
                hint="convert it with .astype(tilelang.float32) first")
    dtype = common_dtype(lhs, rhs)
    if kind in ("float", "math2") and not dtype.is_float:
        return dt.float32
    if dtype is dt.bool_:
        raise TileTypeError(f"Binary arithmetic op `{name}` does not support bool, please cast "
                            "bool to int", hint="cast to an int first: .astype(tilelang.int32)")
    return dtype


def _operand_dtype(value: Value) -> DType:
    """A tile's dtype, or the default dtype of a constant (cuTile's view of loose operands)."""
    return value.dtype if isinstance(value, TileValue) else semantics.constant_dtype(value)  # type: ignore[arg-type]


def _check_shift_operands(lhs: Value, rhs: Value) -> None:
    for side, value in (("left", lhs), ("right", rhs)):
        dtype = _operand_dtype(value)
        if not dtype.is_integer:
            raise TileTypeError(
                f"Bitwise shift requires an integer for {side}-hand side, got: {dtype.name}")


def _bitwise_dtype(lhs: Value, rhs: Value) -> DType:
    """cuTile's rules: integer or bool operands of one dtype (a constant adapts to a tile)."""
    dtypes = [_operand_dtype(v) for v in (lhs, rhs)]
    if any(d.is_float for d in dtypes):
        raise TileTypeError(
            "Bitwise operations require integers or booleans. Use an explicit bitcast() "
            "for non-integer operands.")
    if is_loose(lhs) == is_loose(rhs) and dtypes[0] is not dtypes[1]:
        raise TileTypeError(
            f"Bitwise operands must have same data type, got: {dtypes[0].name} and "
            f"{dtypes[1].name}",
            hint="convert one operand with .astype(...)",
        )
    tile, const = (lhs, rhs) if isinstance(lhs, TileValue) else (rhs, lhs)
    assert isinstance(tile, TileValue), "binary_dtype folds two constants before"
    if is_loose(const):
        semantics.check_fits(const, tile.dtype)
    return tile.dtype


@overload
def compare(name: str, lhs: TileValue, rhs: Value) -> TileValue: ...
@overload
def compare(name: str, lhs: Value, rhs: TileValue) -> TileValue: ...
@overload
def compare(name: str, lhs: Value, rhs: Value) -> Value: ...
def compare(name: str, lhs: Value, rhs: Value) -> Value:
    fn, predicate = COMPARE[name]
    if is_loose(lhs) and is_loose(rhs):
        return fold(fn, lhs, rhs)
    _check_operand(lhs, name)
    _check_operand(rhs, name)
    a, b = coerce([lhs, rhs], common_dtype(lhs, rhs))
    return build.elementwise("cmp", [a, b], dt.bool_, predicate=predicate)


def negative(x: Value) -> Value:
    if is_loose(x):
        return fold(operator.neg, x)
    t = _arithmetic(_tile(x, "negation"), "negation")
    if t.dtype is dt.bool_:
        t = build.cast(t, dt.int32)
    return build.elementwise("neg", [t])


def positive(x: Value) -> Value:
    if is_loose(x):
        return fold(operator.pos, x)
    t = _tile(x, "unary +")
    return build.cast(t, dt.int32) if t.dtype is dt.bool_ else t


def bitwise_not(x: Value) -> Value:
    if isinstance(x, bool):
        raise TileTypeError("~ of a bool constant is ambiguous", hint="use `not` instead")
    if is_loose(x):
        return fold(operator.invert, x)
    t = _tile(x, "~")
    if t.dtype.is_float:
        raise TileTypeError(f"~ requires an integer or bool operand, got {t.dtype.name}")
    return build.elementwise("invert", [t])


@overload
def logical_not(x: TileValue) -> TileValue: ...
@overload
def logical_not(x: Value) -> Value: ...
def logical_not(x: Value) -> Value:
    if is_loose(x):
        return not x
    t = _tile(x, "not")
    if t.shape:
        raise TileTypeError(
            f"`not` needs a scalar, got {describe(t)}", hint="use ~ for element-wise not of bools"
        )
    return build.elementwise("invert", [build.bool_of(t)])


def absolute(x: Value) -> Value:
    if is_loose(x):
        return fold(abs, x)
    t = _arithmetic(_tile(x, "abs"), "abs")
    return t if t.dtype.kind in "bu" else build.elementwise("abs", [t])


def _tile(x: Value, what: str) -> TileValue:
    if not isinstance(x, TileValue):
        raise TileTypeError(f"{what} does not accept {describe(x)}")
    return x


def _arithmetic(t: TileValue, what: str) -> TileValue:
    """Restricted floats (tfloat32, 8-bit floats) support no arithmetic, as in cuTile."""
    if not t.dtype.is_arithmetic:
        raise TileTypeError(f"{what} does not support the non-arithmetic dtype {t.dtype.name}",
                            hint="convert it with .astype(tilelang.float32) first")
    return t


MATH_UNARY: dict[str, Callable] = {
    "exp": math.exp, "exp2": lambda v: 2.0**v, "log": math.log, "log2": math.log2,
    "sqrt": math.sqrt, "rsqrt": lambda v: 1 / math.sqrt(v), "sin": math.sin, "cos": math.cos,
    "tan": math.tan, "sinh": math.sinh, "cosh": math.cosh, "tanh": math.tanh,
    "floor": math.floor, "ceil": math.ceil, "isnan": math.isnan,
}
FLOAT_ONLY = ("floor", "ceil", "isnan")


def math_unary_dtype(name: str, x: Value) -> DType | None:
    """The dtype a math function computes in: float32 for integers; None for constants."""
    if is_loose(x):
        return None
    t = _arithmetic(_tile(x, name), name)
    if t.dtype.is_float:
        return t.dtype
    if name in FLOAT_ONLY:
        raise TileTypeError(f"{name} requires a float operand, got {t.dtype.name}")
    return dt.float32


def math_unary(name: str, x: Value, **attrs: AttrValue | None) -> Value:
    """exp, log, ...: integer inputs are computed as float32; floor/ceil/isnan need floats."""
    dtype = math_unary_dtype(name, x)
    if dtype is None:
        return fold(MATH_UNARY[name], x)
    t = build.cast(x, dtype)  # type: ignore[arg-type]
    if name == "isnan":
        return build.elementwise("isnan", [t], dt.bool_)
    return build.elementwise(name, [t], None,
                             **{k: v for k, v in attrs.items() if v is not None})


@overload
def where(cond: TileValue, x: Value, y: Value) -> TileValue: ...
@overload
def where(cond: Value, x: TileValue, y: Value) -> TileValue: ...
@overload
def where(cond: Value, x: Value, y: TileValue) -> TileValue: ...
@overload
def where(cond: Value, x: Value, y: Value) -> Value: ...
def where(cond: Value, x: Value, y: Value) -> Value:
    if is_loose(cond) and is_loose(x) and is_loose(y):
        return x if cond else y
    if is_loose(x) and is_loose(y):
        dtype = semantics.promote(semantics.constant_dtype(x), semantics.constant_dtype(y))
    else:
        dtype = common_dtype(x, y)
    a, b = coerce([x, y], dtype)
    if is_loose(cond):  # chosen at compile time, still with the promoted dtype and shape
        return a if cond else b
    c = build.bool_of(_tile(cond, "where"))
    shape = semantics.broadcast_shapes(c.shape, a.shape)
    c, a, b = (build.broadcast_to(v, shape) for v in (c, a, b))
    return build.op("select", [c, a, b], dtype, shape)


def astype(x: Value, dtype: DType) -> TileValue:
    if is_loose(x):
        return build.constant(_convert_constant(x, dtype), dtype)
    return build.cast(_tile(x, "astype"), dtype)


def _convert_constant(x: bool | int | float, dtype: DType) -> bool | int | float:
    """A constant converted as astype converts values at run time: integers wrap to the
    dtype's width (`ct.uint32(-3)` is 4294967293), floats saturate (NaN is 0)."""
    if dtype.kind == "b":
        return bool(x)
    if dtype.is_float:
        # float8_e8m0fnu, float8_e5m3fnu: unsigned; -0.0, -inf and -nan too (cuTile's error)
        if dtype.name.endswith("fnu") and math.copysign(1.0, x) < 0:
            raise TileValueError("Negative values cannot be represented in an unsigned float "
                                 f"format ({dtype.name})")
        if dtype is dt.float4_e2m1fn and math.isnan(x):  # cuTile's error: no NaN in e2m1
            raise TileValueError(f"NaN cannot be represented in {dtype.name}")
        return float(x)
    lo, hi = semantics.int_range(dtype)
    if isinstance(x, float):
        return 0 if math.isnan(x) else int(min(max(x, lo), hi))
    bits = 1 << dtype.bitwidth
    value = int(x) % bits
    return value - bits if value > hi else value


frontend_values.STATIC.binary = binary  # static_eval's `a + b`
frontend_values.STATIC.compare = compare  # and `a < b`
