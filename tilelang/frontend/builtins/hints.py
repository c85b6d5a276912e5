"""Front end: emitters for assume_divisible_by (`tile.assume_div_by`) and the grid dependency
control of programmatic dependent launch."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tilelang.dialect import ops
from tilelang.errors import TileTypeError
from tilelang.frontend import build
from tilelang.frontend.builtins.registry import NOT_IN_COMBINERS, lowers
from tilelang.frontend.semantics import describe
from tilelang.frontend.values import TileValue, is_loose
from tilelang.language import hints as lang

if TYPE_CHECKING:
    from tilelang.frontend.emitter import Emitter

for _name in ("grid_dependency_control_wait", "grid_dependency_control_launch_dependents"):
    NOT_IN_COMBINERS[_name] = "memory"


@lowers(lang.assume_divisible_by)
def emit_assume_divisible_by(em: Emitter, x: Any, divisor: object) -> object:
    if isinstance(divisor, bool) or not isinstance(divisor, int):
        raise TileTypeError("`assume_divisible_by` requires the divisor to be an integer "
                            f"constant, got {describe(divisor)}")
    if divisor < 1:
        raise TileTypeError(f"`assume_divisible_by` requires a positive divisor, got {divisor}")
    integer = (is_loose(x) and not isinstance(x, bool | float)) or (
        isinstance(x, TileValue) and not x.shape and x.dtype.is_integer)
    if not integer:
        raise TileTypeError(f"`assume_divisible_by` requires an integer scalar, got "
                            f"{describe(x)}")
    known = x if is_loose(x) else build.constant_value(x)
    if known is not None:  # a constant: the promise is checked now, nothing is emitted
        if int(known) % divisor:
            raise TileTypeError(f"Value {known} is not divisible by {divisor}: "
                                "`assume_divisible_by` contradicts a known constant")
        return x
    if divisor == 1:
        return x
    return build.op("assume_div_by", [x], x.dtype, (), divisor=divisor)


@lowers(lang.grid_dependency_control_wait)
def emit_grid_dependency_control_wait(em: Emitter) -> None:
    ops.create("grid_dependency_control_wait", [])


@lowers(lang.grid_dependency_control_launch_dependents)
def emit_grid_dependency_control_launch_dependents(em: Emitter) -> None:
    ops.create("grid_dependency_control_launch_dependents", [])
