"""Language: element-wise math functions (integer inputs are computed as float32)."""

from __future__ import annotations

from tilelang.language.enums import RoundingMode
from tilelang.language.stub import stub
from tilelang.language.tile import TileLike


@stub
def abs(x: TileLike, /) -> TileLike:
    """Absolute value, keeping the dtype."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def exp(x: TileLike, /, *, rounding_mode: RoundingMode | None = None) -> TileLike:
    """e ** x; `rounding_mode=RoundingMode.APPROX` uses the fast hardware approximation."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def exp2(x: TileLike, /, *, flush_to_zero: bool = False) -> TileLike:
    """2 ** x."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def log(x: TileLike, /) -> TileLike:
    """Natural logarithm."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def log2(x: TileLike, /) -> TileLike:
    """Base-2 logarithm."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def sqrt(x: TileLike, /, *, rounding_mode: RoundingMode | None = None,
         flush_to_zero: bool = False) -> TileLike:
    """Square root."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def rsqrt(x: TileLike, /, *, flush_to_zero: bool = False) -> TileLike:
    """1 / sqrt(x)."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def sin(x: TileLike, /) -> TileLike:
    """Sine of radians."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def cos(x: TileLike, /) -> TileLike:
    """Cosine of radians."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def tan(x: TileLike, /) -> TileLike:
    """Tangent of radians."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def sinh(x: TileLike, /) -> TileLike:
    """Hyperbolic sine."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def cosh(x: TileLike, /) -> TileLike:
    """Hyperbolic cosine."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def tanh(x: TileLike, /, *, rounding_mode: RoundingMode | None = None) -> TileLike:
    """Hyperbolic tangent; `rounding_mode=RoundingMode.APPROX` uses `tanh.approx`."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def floor(x: TileLike, /) -> TileLike:
    """Largest integral value not greater than x (floats only)."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def ceil(x: TileLike, /) -> TileLike:
    """Smallest integral value not less than x (floats only)."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def isnan(x: TileLike, /) -> TileLike:
    """True where x is NaN (floats only)."""
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits
