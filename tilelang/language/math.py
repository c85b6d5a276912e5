"""Language: element-wise math functions (integer inputs are computed as float32)."""

from __future__ import annotations

from typing import Any

from tilelang.language.stub import stub


@stub
def abs(x: Any, /) -> Any:
    """Absolute value, keeping the dtype."""


@stub
def exp(x: Any, /, *, rounding_mode: Any = None) -> Any:
    """e ** x; `rounding_mode=RoundingMode.APPROX` uses the fast hardware approximation."""


@stub
def exp2(x: Any, /, *, flush_to_zero: bool = False) -> Any:
    """2 ** x."""


@stub
def log(x: Any, /) -> Any:
    """Natural logarithm."""


@stub
def log2(x: Any, /) -> Any:
    """Base-2 logarithm."""


@stub
def sqrt(x: Any, /, *, rounding_mode: Any = None, flush_to_zero: bool = False) -> Any:
    """Square root."""


@stub
def rsqrt(x: Any, /, *, flush_to_zero: bool = False) -> Any:
    """1 / sqrt(x)."""


@stub
def sin(x: Any, /) -> Any:
    """Sine of radians."""


@stub
def cos(x: Any, /) -> Any:
    """Cosine of radians."""


@stub
def tan(x: Any, /) -> Any:
    """Tangent of radians."""


@stub
def sinh(x: Any, /) -> Any:
    """Hyperbolic sine."""


@stub
def cosh(x: Any, /) -> Any:
    """Hyperbolic cosine."""


@stub
def tanh(x: Any, /, *, rounding_mode: Any = None) -> Any:
    """Hyperbolic tangent; `rounding_mode=RoundingMode.APPROX` uses `tanh.approx`."""


@stub
def floor(x: Any, /) -> Any:
    """Largest integral value not greater than x (floats only)."""


@stub
def ceil(x: Any, /) -> Any:
    """Smallest integral value not less than x (floats only)."""


@stub
def isnan(x: Any, /) -> Any:
    """True where x is NaN (floats only)."""
