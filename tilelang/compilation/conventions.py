"""Compilation: the calling conventions a kernel signature is written for (cuTile's
`cutile_python_v1` and `cutile_python_v2`): what each allows, and its code in mangled names."""

from __future__ import annotations

from typing import ClassVar

VERSIONS = (1, 2)  # cuTile's v3 (dataclass parameters) is a development-only convention there


class CallingConvention:
    """A calling convention, named `cutile_python_v<n>` and coded `t<n>` in mangled names.

    Version 2 adds tuple parameters and compiled-in extents (`ArrayConstraint.shape_constant`)
    to version 1. Get one with `CallingConvention.cutile_python_v2()` (or `_v1()`), or from its
    code with `CallingConvention.from_code("t2")`. Conventions are equal when their versions are.
    The binary interface of kernels exported by tilelang is tilelang's own, whichever convention
    the signature names (docs/compilation.md).
    """

    __slots__ = ("_version",)
    _cache: ClassVar[dict[int, CallingConvention]] = {}

    def __init__(self, version: int):
        if version not in VERSIONS:
            raise ValueError(f"Unknown calling convention version {version!r}")
        self._version = version

    @property
    def version(self) -> int:
        return self._version

    @property
    def name(self) -> str:
        return f"cutile_python_v{self._version}"

    @property
    def code(self) -> str:
        return f"t{self._version}"

    @staticmethod
    def cutile_python_v1() -> CallingConvention:
        """The `cutile_python_v1` convention: arrays, lists of arrays, scalars, constants."""
        return CallingConvention._get(1)

    @staticmethod
    def cutile_python_v2() -> CallingConvention:
        """The `cutile_python_v2` convention: v1 plus tuples and compiled-in extents."""
        return CallingConvention._get(2)

    @staticmethod
    def from_code(code: str) -> CallingConvention:
        """The convention whose code (as in a mangled name) is `code`: "t1" or "t2"."""
        if not isinstance(code, str) or code not in {f"t{v}" for v in VERSIONS}:
            raise ValueError(f"Unknown calling convention code '{code}'")
        return CallingConvention._get(int(code[1:]))

    @staticmethod
    def _get(version: int) -> CallingConvention:
        found = CallingConvention._cache.get(version)
        if found is None:
            found = CallingConvention._cache[version] = CallingConvention(version)
        return found

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CallingConvention):
            return NotImplemented
        return self._version == other._version

    def __hash__(self) -> int:
        return hash(("CallingConvention", self._version))

    def __repr__(self) -> str:
        return f"CallingConvention({self.name!r}, {self.code!r})"

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return CallingConvention._get, (self._version,)
