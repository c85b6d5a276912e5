"""Front end: emitters for element-wise functions, comparisons, where and astype."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilelang.errors import TileTypeError
from tilelang.frontend import build, operators, rounding_modes, semantics
from tilelang.frontend.builtins.common import as_dtype
from tilelang.frontend.builtins.registry import lowers
from tilelang.frontend.values import TileValue, is_loose
from tilelang.language import dtypes as dt
from tilelang.language import elementwise as ew
from tilelang.language import math as lm
from tilelang.language.dtypes import DType
from tilelang.language.enums import RoundingMode

if TYPE_CHECKING:
    from tilelang.frontend.emitter import Emitter


def check_rounding_and_ftz(fn: str, dtype: DType | None, rounding: object, ftz: object,
                           allowed: tuple[RoundingMode, ...]) -> None:
    """cuTile's rules (and wording) for `rounding_mode` and `flush_to_zero`, checked on the
    dtype the op computes in (after promotion; None for constants, which are folded)."""
    if rounding is not None:
        if not isinstance(rounding, RoundingMode) or rounding not in allowed:
            value = getattr(rounding, "value", repr(rounding))
            raise TileTypeError(f"Rounding mode {value} is not supported for {fn}")
        if dtype is not None and not dtype.is_float:
            raise TileTypeError("Rounding mode can only be used for unrestricted float types, "
                                f"but got {dtype.name}")
        if rounding in (RoundingMode.FULL, RoundingMode.APPROX) and dtype not in (None, dt.float32):
            raise TileTypeError(f"Rounding mode {rounding.value} can only be used for float32 "
                                f"type, but got {dtype.name}")
    if ftz and dtype not in (None, dt.float32):  # (the signatures say which ops take it)
        raise TileTypeError(f"Flush to zero can only be used for float32 type, but got "
                            f"{dtype.name}")


_IEEE = (RoundingMode.RN, RoundingMode.RZ, RoundingMode.RM, RoundingMode.RP)
DIRECTED = (RoundingMode.RZ, RoundingMode.RM, RoundingMode.RP)


def rounding_attribute(mode: object) -> str | None:
    """The op's `rounding_mode` attribute for a checked mode: "zero", "negative_inf" or
    "positive_inf" for RZ, RM, RP (dialect/directed.py), "approx"; None for the default
    (round to nearest, FULL)."""
    if mode in DIRECTED or mode is RoundingMode.APPROX:
        assert isinstance(mode, RoundingMode)
        return mode.value
    return None


def _make_binary(name: str) -> None:
    fn = getattr(ew, name, None) or getattr(lm, name, None)

    @lowers(fn)
    def emit(em: Emitter, x: object, y: object, **options: object) -> object:
        rounding = options.get("rounding_mode")
        allowed = _IEEE + ((RoundingMode.FULL, RoundingMode.APPROX) if name == "truediv" else ())
        check_rounding_and_ftz(name, operators.binary_dtype(name, x, y), rounding,
                               options.get("flush_to_zero"), allowed)
        if options.get("propagate_nan"):
            return _propagating(name, x, y)
        return operators.binary(name, x, y, rounding_mode=rounding_attribute(rounding))


def _propagating(name: str, x: object, y: object) -> object:
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
    def emit(em: Emitter, x: object, y: object) -> object:
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
    def emit(em: Emitter, x: object, **options: object) -> object:
        rounding = options.get("rounding_mode")
        check_rounding_and_ftz(name, operators.math_unary_dtype(name, x), rounding,
                               options.get("flush_to_zero"), _UNARY_ROUNDING.get(name, ()))
        # exp2's flush_to_zero is the bare hardware instruction (ex2.approx.ftz); elsewhere
        # it is accepted and ignored
        ftz = True if name == "exp2" and options.get("flush_to_zero") else None
        return operators.math_unary(name, x, rounding_mode=rounding_attribute(rounding),
                                    flush_to_zero=ftz)


for _name in operators.MATH_UNARY:
    _make_math(_name)


@lowers(lm.abs)
def emit_abs(em: Emitter, x: object) -> object:
    return operators.absolute(x)


@lowers(ew.negative)
def emit_negative(em: Emitter, x: object) -> object:
    return operators.negative(x)


@lowers(ew.bitwise_not)
def emit_bitwise_not(em: Emitter, x: object) -> object:
    if isinstance(x, bool):  # unlike `~True`, ct.bitwise_not(True) is `not True` (cuTile)
        return not x
    return operators.bitwise_not(x)


@lowers(ew.where)
def emit_where(em: Emitter, cond: object, x: object, y: object) -> object:
    return operators.where(cond, x, y)


@lowers(ew.astype)
def emit_astype(em: Emitter, x: object, dtype: object, rounding_mode: object) -> object:
    dtype = as_dtype(dtype)
    source = x.dtype if isinstance(x, TileValue) else \
        semantics.constant_dtype(x) if is_loose(x) else None
    mode = rounding_modes.cast_attribute(source, dtype, rounding_mode)
    if mode is None:
        return operators.astype(x, dtype)
    value = build.to_tile(x)  # a constant converts from its own dtype (float32), then folds
    return build.op("cast", [value], dtype, value.shape, rounding_mode=mode)
