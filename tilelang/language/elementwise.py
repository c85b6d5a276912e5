"""Language: element-wise arithmetic, comparisons, selection and dtype conversion."""

from __future__ import annotations

from typing import Any

from tilelang.language.stub import stub

# Binary functions broadcast their operands (NumPy rules) and promote their dtypes (cuTile rules:
# a Python constant takes the other operand's dtype; signed with unsigned, or float16 with
# bfloat16, needs an explicit astype).


@stub
def add(x: Any, y: Any, /, *, rounding_mode: Any = None, flush_to_zero: bool = False) -> Any:
    """`x + y`."""


@stub
def sub(x: Any, y: Any, /, *, rounding_mode: Any = None, flush_to_zero: bool = False) -> Any:
    """`x - y`."""


@stub
def mul(x: Any, y: Any, /, *, rounding_mode: Any = None, flush_to_zero: bool = False) -> Any:
    """`x * y`."""


@stub
def truediv(x: Any, y: Any, /, *, rounding_mode: Any = None, flush_to_zero: bool = False) -> Any:
    """`x / y`; integers are divided as float32."""


@stub
def floordiv(x: Any, y: Any, /) -> Any:
    """`x // y`, rounding toward negative infinity as in Python."""


@stub
def mod(x: Any, y: Any, /) -> Any:
    """`x % y`; the result has the sign of `y`, as in Python."""


@stub
def pow(x: Any, y: Any, /) -> Any:
    """`x ** y`."""


@stub
def minimum(x: Any, y: Any, /, *, flush_to_zero: bool = False, propagate_nan: bool = False) -> Any:
    """Element-wise minimum; a NaN operand loses unless `propagate_nan=True`."""


@stub
def maximum(x: Any, y: Any, /, *, flush_to_zero: bool = False, propagate_nan: bool = False) -> Any:
    """Element-wise maximum; a NaN operand loses unless `propagate_nan=True`."""


@stub
def atan2(x: Any, y: Any, /) -> Any:
    """The angle of the point (y, x) as in `math.atan2(x, y)`, in radians within [-pi, pi]."""


@stub
def bitwise_and(x: Any, y: Any, /) -> Any:
    """`x & y` of integer or bool tiles of the same dtype."""


@stub
def bitwise_or(x: Any, y: Any, /) -> Any:
    """`x | y` of integer or bool tiles of the same dtype."""


@stub
def bitwise_xor(x: Any, y: Any, /) -> Any:
    """`x ^ y` of integer or bool tiles of the same dtype."""


@stub
def bitwise_lshift(x: Any, y: Any, /) -> Any:
    """`x << y` of integers."""


@stub
def bitwise_rshift(x: Any, y: Any, /) -> Any:
    """`x >> y`: arithmetic for signed integers, logical for unsigned ones."""


@stub
def bitwise_not(x: Any, /) -> Any:
    """`~x`: bitwise not of integers, logical not of bools."""


@stub
def negative(x: Any, /) -> Any:
    """`-x`; bools become int32 first."""


@stub
def equal(x: Any, y: Any, /) -> Any:
    """`x == y` as a bool tile."""


@stub
def not_equal(x: Any, y: Any, /) -> Any:
    """`x != y` as a bool tile."""


@stub
def less(x: Any, y: Any, /) -> Any:
    """`x < y` as a bool tile."""


@stub
def less_equal(x: Any, y: Any, /) -> Any:
    """`x <= y` as a bool tile."""


@stub
def greater(x: Any, y: Any, /) -> Any:
    """`x > y` as a bool tile."""


@stub
def greater_equal(x: Any, y: Any, /) -> Any:
    """`x >= y` as a bool tile."""


@stub
def where(cond: Any, x: Any, y: Any, /) -> Any:
    """Elements of `x` where `cond` is true, of `y` elsewhere; all three broadcast together.

    Example:
        >>> relu = tilelang.where(t > 0, t, 0.0)
    """


@stub
def astype(x: Any, dtype: Any, /, *, rounding_mode: Any = None) -> Any:
    """`x` converted to `dtype`. Float to integer truncates toward zero and saturates; NaN gives 0.

    Example:
        >>> h = tilelang.astype(t, tilelang.float16)
    """
