"""Language: printing and run-time assertions from kernels (for debugging)."""

from __future__ import annotations

from tilelang.language.stub import stub
from tilelang.language.tile import TileLike


@stub
def print(*args: object, sep: str = " ", end: str = "\n") -> None:
    """Print `args` like Python's `print`, once per block: strings, f-strings, constants,
    tuples and tiles (a tile prints as a nested list of its elements).

    Example:
        >>> tilelang.print(f"block {tilelang.bid(0)}: x={x:.3f}")
    """


@stub
def printf(format: str, *args: TileLike) -> None:
    """Print with a C printf format, once per block; each `%` conversion (d i u o x X e E f F g
    G a A) takes one scalar or tile argument (a tile prints as a nested list, each element
    formatted by the conversion).

    Example:
        >>> tilelang.printf("block %d: %.3f\\n", tilelang.bid(0), x)
    """


@stub
def assert_(cond: TileLike, /, message: str | None = None) -> None:
    """Stop the kernel with `message` unless every element of the bool tile `cond` is true.

    Example:
        >>> tilelang.assert_(x >= 0, "x must be non-negative")
    """
