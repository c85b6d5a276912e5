"""Interface: the kernel options (hints) of `@kernel` and `replace_hints`: which values each
allows, and their `ByTarget` values resolved for the architecture a kernel is compiled for."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from tilelang.errors import TileOptionError
from tilelang.language.by_target import ByTarget

T = TypeVar("T")


def _int_in(name: str, allowed: tuple[int, ...], what: str) -> Callable[[object], None]:
    def check(value: object) -> None:
        if value is not None and (type(value) is not int or value not in allowed):
            raise TileOptionError(f"{name} {what}, got {value!r}")

    return check


# the options that take a ByTarget, each with its check (None is always allowed: "choose")
CHECKS: dict[str, Callable[[Any], None]] = {
    "num_warps": _int_in("num_warps", (1, 2, 4, 8, 16, 32), "must be a power of two up to 32"),
    "num_ctas": _int_in("num_ctas", (1, 2, 4, 8, 16), "must be a power of two from 1 to 16"),
    "occupancy": _int_in("occupancy", tuple(range(1, 33)), "must be an int from 1 to 32"),
    "opt_level": _int_in("opt_level", (0, 1, 2, 3), "must be an int from 0 to 3"),
    "num_worker_warps": _int_in("num_worker_warps", (4, 8), "should be either 4 or 8"),
}


def check_option(name: str, value: object) -> None:
    """Raise TileOptionError unless `value` is allowed for option `name` (a ByTarget: each of
    its values)."""
    if isinstance(value, ByTarget):
        if name not in CHECKS:
            raise TileOptionError(f"{name} cannot be a ByTarget; the options that can are "
                                  f"{', '.join(CHECKS)}")
        for arch, item in [*value.by_target.items(), ("default", value.default)]:
            if isinstance(item, ByTarget):
                raise TileOptionError(f"{name}: a ByTarget cannot hold another ByTarget")
            try:
                CHECKS[name](None if arch == "default" and item is _UNSET else item)
            except TileOptionError as e:
                raise TileOptionError(f"{e.message} (ByTarget entry {arch})") from None
    elif name in CHECKS:
        CHECKS[name](value)
    elif name == "interpret" and value not in (None, True, False):
        raise TileOptionError(f"interpret must be True, False or None, got {value!r}")


_UNSET = ByTarget().default  # a ByTarget's default when it has none


def resolve(value: T | ByTarget[T], arch: str, fallback: T | None) -> T | None:
    """The value of one option for `arch`: a ByTarget's entry for it (or its default, else
    `fallback`); any other value as it is."""
    return value.resolve(arch, fallback) if isinstance(value, ByTarget) else value


@dataclass(frozen=True)
class TargetHints:
    """A kernel's options for one architecture: plain values, no ByTarget."""

    arch: str
    num_warps: int | None  # None: the compiler chooses (`num_worker_warps` when given)
    num_ctas: int | None
    occupancy: int | None
    opt_level: int


def for_arch(options: object, arch: str) -> TargetHints:
    """The plain values of `options` (KernelOptions) for `arch`."""
    def value(name: str, fallback: int | None = None) -> int | None:
        return resolve(getattr(options, name), arch, fallback)

    num_warps = value("num_warps")
    opt_level = value("opt_level", 3)
    return TargetHints(arch, value("num_worker_warps") if num_warps is None else num_warps,
                       value("num_ctas"), value("occupancy"), 3 if opt_level is None else opt_level)
