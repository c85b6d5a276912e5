"""Language: expressions evaluated by Python while the kernel compiles."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from tilelang.language.stub import stub

T = TypeVar("T")


@stub
def static_eval(expr: T, /) -> T:
    """The value of the Python expression `expr`, evaluated while compiling with the kernel's
    names: constants as Python values, tiles and arrays as objects with `shape` and `dtype`.

    Example:
        >>> fn = tilelang.static_eval(OPS[op_id])   # pick a function by a constant
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def static_assert(condition: object, message: object = None, /) -> None:
    """Stop compiling with `TileStaticAssertionError` when the Python expression `condition`
    (evaluated as by static_eval) is False; `message`, evaluated the same way, is added.

    Example:
        >>> tilelang.static_assert(BLOCK % 16 == 0, "BLOCK must be a multiple of 16")
    """


@stub
def static_iter(iterable: Iterable[T]) -> Iterable[T]:
    """Only as the iterable of a `for` loop: `for x in tilelang.static_iter(expr)` evaluates
    `expr` with Python (as static_eval does) and emits the loop body once per item (at most
    1000), `x` bound to it; no break, continue or return inside.

    Example:
        >>> for k in tilelang.static_iter(range(4)):
        ...     acc = acc + ct.load(x, (k,), (16,))
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def ensure_constant(value: T, /) -> T:
    """`value`, which must be a compile-time constant (else TileStaticAssertionError).

    Example:
        >>> if tilelang.ensure_constant(N > 8):   # an `if` decided while compiling
        ...     ...
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits
