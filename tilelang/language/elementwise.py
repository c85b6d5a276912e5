"""Language: element-wise arithmetic, comparisons, selection and dtype conversion."""

from __future__ import annotations

from tilelang.language.dtypes import DTypeLike
from tilelang.language.enums import RoundingMode
from tilelang.language.stub import stub
from tilelang.language.tile import TileLike

# Binary functions broadcast their operands (NumPy rules) and promote their dtypes (cuTile rules:
# a Python constant takes the other operand's dtype; signed with unsigned, or float16 with
# bfloat16, needs an explicit astype).


@stub
def add(x: TileLike, y: TileLike, /, *, rounding_mode: RoundingMode | None = None,
        flush_to_zero: bool = False) -> TileLike:
    """`x + y`."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def sub(x: TileLike, y: TileLike, /, *, rounding_mode: RoundingMode | None = None,
        flush_to_zero: bool = False) -> TileLike:
    """`x - y`."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def mul(x: TileLike, y: TileLike, /, *, rounding_mode: RoundingMode | None = None,
        flush_to_zero: bool = False) -> TileLike:
    """`x * y`."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def truediv(x: TileLike, y: TileLike, /, *, rounding_mode: RoundingMode | None = None,
            flush_to_zero: bool = False) -> TileLike:
    """`x / y`; integers are divided as float32."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def floordiv(x: TileLike, y: TileLike, /) -> TileLike:
    """`x // y`, rounding toward negative infinity as in Python."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def mod(x: TileLike, y: TileLike, /) -> TileLike:
    """`x % y`; the result has the sign of `y`, as in Python."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def pow(x: TileLike, y: TileLike, /) -> TileLike:
    """`x ** y`."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def minimum(x: TileLike, y: TileLike, /, *, flush_to_zero: bool = False,
            propagate_nan: bool = False) -> TileLike:
    """Element-wise minimum; a NaN operand loses unless `propagate_nan=True`."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def maximum(x: TileLike, y: TileLike, /, *, flush_to_zero: bool = False,
            propagate_nan: bool = False) -> TileLike:
    """Element-wise maximum; a NaN operand loses unless `propagate_nan=True`."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def atan2(x: TileLike, y: TileLike, /) -> TileLike:
    """The angle of the point (y, x) as in `math.atan2(x, y)`, in radians within [-pi, pi]."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def bitwise_and(x: TileLike, y: TileLike, /) -> TileLike:
    """`x & y` of integer or bool tiles of the same dtype."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def bitwise_or(x: TileLike, y: TileLike, /) -> TileLike:
    """`x | y` of integer or bool tiles of the same dtype."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def bitwise_xor(x: TileLike, y: TileLike, /) -> TileLike:
    """`x ^ y` of integer or bool tiles of the same dtype."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def bitwise_lshift(x: TileLike, y: TileLike, /) -> TileLike:
    """`x << y` of integers."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def bitwise_rshift(x: TileLike, y: TileLike, /) -> TileLike:
    """`x >> y`: arithmetic for signed integers, logical for unsigned ones."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def bitwise_not(x: TileLike, /) -> TileLike:
    """`~x`: bitwise not of integers, logical not of bools."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def negative(x: TileLike, /) -> TileLike:
    """`-x`; bools become int32 first."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def equal(x: TileLike, y: TileLike, /) -> TileLike:
    """`x == y` as a bool tile."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def not_equal(x: TileLike, y: TileLike, /) -> TileLike:
    """`x != y` as a bool tile."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def less(x: TileLike, y: TileLike, /) -> TileLike:
    """`x < y` as a bool tile."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def less_equal(x: TileLike, y: TileLike, /) -> TileLike:
    """`x <= y` as a bool tile."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def greater(x: TileLike, y: TileLike, /) -> TileLike:
    """`x > y` as a bool tile."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def greater_equal(x: TileLike, y: TileLike, /) -> TileLike:
    """`x >= y` as a bool tile."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def where(cond: TileLike, x: TileLike, y: TileLike, /) -> TileLike:
    """Elements of `x` where `cond` is true, of `y` elsewhere; all three broadcast together.

    Example:
        >>> relu = tilelang.where(t > 0, t, 0.0)
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def astype(x: TileLike, dtype: DTypeLike, /, *,
           rounding_mode: RoundingMode | None = None) -> TileLike:
    """`x` converted to `dtype`. Float to integer truncates toward zero and saturates; NaN gives 0.

    Example:
        >>> h = tilelang.astype(t, tilelang.float16)
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits
