"""Interface: a kernel's parameters, in order, with what their annotations ask of the arguments
(interface/kinds.py), and the check of a launch's argument count."""

from __future__ import annotations

import contextlib
import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tilelang.errors import TileArgumentError, TileTypeError
from tilelang.interface.kinds import INFERRED, Const, Kind, parameter_kind


@dataclass(frozen=True)
class Parameter:
    name: str
    constant: bool
    kind: Kind = INFERRED  # what the annotation asks of the argument (interface/kinds.py)


def kernel_parameters(fn: Callable[..., Any]) -> tuple[Parameter, ...]:
    """The kernel's parameters, in order, with what their annotations ask of the arguments."""
    hints = _type_hints(fn)
    params = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise TileTypeError(
                f"kernel parameter `{p.name}`: *args and **kwargs are not supported"
            )
        kind = parameter_kind(hints.get(p.name))
        params.append(Parameter(p.name, isinstance(kind, Const), kind))
    return tuple(params)


def _type_hints(fn: Any) -> dict[str, Any]:
    """The annotations as objects; a string annotation (`from __future__ import annotations`)
    is evaluated with the function's globals and closure, and left out if that fails."""
    try:
        return typing.get_type_hints(fn, include_extras=True)
    except Exception:
        pass
    closure = {}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=False):
        with contextlib.suppress(ValueError):  # an empty cell: assigned later, outside
            closure[name] = cell.cell_contents
    hints = {}
    for name, hint in getattr(fn, "__annotations__", {}).items():
        if isinstance(hint, str):
            try:
                hint = eval(hint, fn.__globals__, closure)  # the user's own annotation
            except Exception:
                continue
        hints[name] = hint
    return hints


def _count(n: int) -> str:
    return f"{n} argument" if n == 1 else f"{n} arguments"


def check_arity(name: str, params: tuple[Parameter, ...], count: int) -> None:
    if count != len(params):
        listed = ", ".join(p.name for p in params)
        raise TileArgumentError(  # cuTile's wording, then which kernel
            f"Kernel expects {_count(len(params))} but {count} "
            f"{'was' if count == 1 else 'were'} given: {name}({listed})",
            hint="pass the kernel's arguments as one tuple: launch(stream, grid, kernel, (a, b))",
        )
