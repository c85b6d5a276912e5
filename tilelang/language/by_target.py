"""Language: `ByTarget`, a kernel hint whose value depends on the GPU architecture compiled for.

`@kernel(num_ctas=ByTarget(sm_100=2, default=1))`, as in cuTile: every hint of `@kernel` and
`replace_hints` takes one; the compiler picks the value of the architecture it compiles for
(interface/hints.py resolves it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final, Generic, TypeVar

T = TypeVar("T")

_ARCH_KEY = re.compile(r"sm_\d+")


class _Unspecified:
    """The `default` of a ByTarget that has none (the hint's own default then applies)."""

    _instance: _Unspecified | None = None

    def __new__(cls) -> _Unspecified:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNSPECIFIED"

    def __reduce__(self) -> str:
        return "UNSPECIFIED"

    def __deepcopy__(self, memo: dict[int, Any]) -> _Unspecified:
        return self


UNSPECIFIED: Final = _Unspecified()


class ByTarget(Generic[T]):
    """A hint value chosen by the architecture the kernel is compiled for.

    `ByTarget(sm_90=8, sm_80=4, default=2)`: keyword names are architectures written
    `sm_<major><minor>` (`sm_90`, `sm_100`; `sm_90a` compiles pick the `sm_90` entry), each
    with its value; `default` is the value of every other architecture. Without `default`,
    other architectures get the hint's own default (`num_ctas=ByTarget(sm_100=2)` is
    `num_ctas=None` on an H100).

    Example:
        >>> @tilelang.kernel(occupancy=tilelang.ByTarget(sm_90=2, default=1))
        ... def k(x): ...
    """

    def __init__(self, *, default: T | _Unspecified = UNSPECIFIED, **value_by_target: T) -> None:
        for arch in value_by_target:
            if not _ARCH_KEY.fullmatch(arch):
                raise ValueError(f"Invalid GPU architecture name: {arch}, expected "
                                 f"sm_<major><minor>{_suggestion(arch)}")
        self._default = default
        self._by_target = dict(value_by_target)

    @property
    def default(self) -> T | _Unspecified:
        """The value of the architectures not named (`UNSPECIFIED` when not given)."""
        return self._default

    @property
    def by_target(self) -> Mapping[str, T]:
        """The values of the named architectures (`{"sm_90": 8}`)."""
        return dict(self._by_target)

    def values(self) -> list[T]:
        """Every value this object may give: the named ones, and `default` when given."""
        found = list(self._by_target.values())
        return found if isinstance(self._default, _Unspecified) else [*found, self._default]

    def resolve(self, arch: str, fallback: T | None = None) -> T | None:
        """The value for `arch` ("sm_90", "sm_90a"): its own entry, else `default`, else
        `fallback` (the hint's default)."""
        for key in (arch, arch.rstrip("af")):  # sm_90a and sm_100f share sm_90's / sm_100's
            if key in self._by_target:
                return self._by_target[key]
        return fallback if isinstance(self._default, _Unspecified) else self._default

    def __repr__(self) -> str:
        items = [f"{arch}={value!r}" for arch, value in self._by_target.items()]
        if self._default is not UNSPECIFIED:
            items.append(f"default={self._default!r}")
        return f"ByTarget({', '.join(items)})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ByTarget):
            return NotImplemented
        return self._default == other._default and self._by_target == other._by_target

    def __hash__(self) -> int:  # kernel options are hashed (replace_hints keeps one per set)
        return hash((ByTarget, repr(self._default), frozenset(self._by_target.items())))


def _suggestion(key: str) -> str:
    """" (did you mean sm_90?)" for keys such as "sm90" or "SM_90"."""
    digits = re.fullmatch(r"(?i)sm_?(\d+)[af]?", key)
    return f" (did you mean sm_{digits.group(1)}?)" if digits else ""
