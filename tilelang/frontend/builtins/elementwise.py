"""Front end: emitters for element-wise functions, comparisons, where and astype."""

from __future__ import annotations

from typing import Any

from tilelang.errors import TileTypeError, TileUnsupportedFeatureError
from tilelang.frontend import operators
from tilelang.frontend.builtins import lowers
from tilelang.frontend.builtins.common import as_dtype
from tilelang.frontend.values import TileValue
from tilelang.language import dtypes as dt
from tilelang.language import elementwise as ew
from tilelang.language import math as lm
from tilelang.language.enums import RoundingMode


def _check_rounding(name: str, x: Any, mode: Any, allowed: tuple[RoundingMode, ...]) -> None:
    if mode is None:
        return
    if not isinstance(mode, RoundingMode) or mode not in allowed:
        raise TileTypeError(f"rounding mode {mode!r} is not supported by {name}")
    if isinstance(x, TileValue) and not x.dtype.is_float:
        raise TileTypeError("a rounding mode can only be used with float operands")
    if mode in (RoundingMode.FULL, RoundingMode.APPROX) and isinstance(x, TileValue) \
            and x.dtype is not dt.float32:
        raise TileTypeError(f"rounding mode {mode.name} is only supported for float32")


def _check_ftz(name: str, flush_to_zero: Any, *operands: Any) -> None:
    if not flush_to_zero:
        return
    if any(isinstance(v, TileValue) and v.dtype is not dt.float32 for v in operands):
        raise TileTypeError(f"flush_to_zero is only supported for float32 operands of {name}")


_IEEE = (RoundingMode.RN, RoundingMode.RZ, RoundingMode.RM, RoundingMode.RP)
DIRECTED = (RoundingMode.RZ, RoundingMode.RM, RoundingMode.RP)


def _mode(mode: Any) -> str | None:
    """The op attribute for a rounding mode; None for the default (round to nearest)."""
    if mode in DIRECTED:
        raise TileUnsupportedFeatureError(
            f"rounding mode {mode.name} is not supported yet (RN, FULL and APPROX are)"
        )
    return "approx" if mode is RoundingMode.APPROX else None


def _make_binary(name: str) -> None:
    fn = getattr(ew, name, None) or getattr(lm, name, None)

    @lowers(fn)
    def emit(em: Any, x: Any, y: Any, **options: Any) -> Any:
        _check_ftz(name, options.get("flush_to_zero"), x, y)
        rounding = options.get("rounding_mode")
        allowed = _IEEE + ((RoundingMode.FULL, RoundingMode.APPROX) if name == "truediv" else ())
        _check_rounding(name, x, rounding, allowed)
        if options.get("propagate_nan"):
            return _propagating(name, x, y)
        return operators.binary(name, x, y, rounding_mode=_mode(rounding))


def _propagating(name: str, x: Any, y: Any) -> Any:
    """minimum/maximum with propagate_nan=True: a NaN operand wins."""
    result = operators.binary(name, x, y)
    if not isinstance(result, TileValue) or not result.dtype.is_float:
        return result
    nan = operators.where(operators.math_unary("isnan", x), x, y)
    either = operators.binary(
        "bitwise_or", operators.math_unary("isnan", x), operators.math_unary("isnan", y)
    )
    return operators.where(either, nan, result)


for _name in operators.BINARY:
    _make_binary(_name)


def _make_compare(name: str) -> None:
    @lowers(getattr(ew, name))
    def emit(em: Any, x: Any, y: Any) -> Any:
        return operators.compare(name, x, y)


for _name in operators.COMPARE:
    _make_compare(_name)

_UNARY_ROUNDING = {
    "exp": (RoundingMode.FULL, RoundingMode.APPROX),
    "tanh": (RoundingMode.FULL, RoundingMode.APPROX),
    "sqrt": (*_IEEE, RoundingMode.APPROX),
}


def _make_math(name: str) -> None:
    @lowers(getattr(lm, name))
    def emit(em: Any, x: Any, **options: Any) -> Any:
        _check_ftz(name, options.get("flush_to_zero"), x)
        rounding = options.get("rounding_mode")
        _check_rounding(name, x, rounding, _UNARY_ROUNDING.get(name, ()))
        return operators.math_unary(name, x, rounding_mode=_mode(rounding))


for _name in operators.MATH_UNARY:
    _make_math(_name)


@lowers(lm.abs)
def emit_abs(em: Any, x: Any) -> Any:
    return operators.absolute(x)


@lowers(ew.negative)
def emit_negative(em: Any, x: Any) -> Any:
    return operators.negative(x)


@lowers(ew.bitwise_not)
def emit_bitwise_not(em: Any, x: Any) -> Any:
    return operators.bitwise_not(x)


@lowers(ew.where)
def emit_where(em: Any, cond: Any, x: Any, y: Any) -> Any:
    return operators.where(cond, x, y)


@lowers(ew.astype)
def emit_astype(em: Any, x: Any, dtype: Any, rounding_mode: Any) -> Any:
    dtype = as_dtype(dtype)
    if rounding_mode is not None and not (dtype.is_float and getattr(x, "dtype", dtype).is_float):
        raise TileTypeError("astype's rounding_mode is only supported from float to float")
    _mode(rounding_mode)  # directed rounding is not supported (yet) anywhere
    return operators.astype(x, dtype)
