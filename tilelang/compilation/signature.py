"""Compilation: `KernelSignature`, one specialization of a kernel written out as constraints
(cuTile's `cuda.tile.compilation.KernelSignature`), and the checks that make one well formed."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tilelang.compilation import mangling
from tilelang.compilation.constraints import (
    ParameterConstraint,
    check_alias_groups,
    check_convention,
    to_constraint,
)
from tilelang.compilation.conventions import CallingConvention


@dataclass(frozen=True, init=False)
class KernelSignature:
    """One specialization of a kernel: a constraint per parameter, the calling convention, and
    the symbol (entry point name) it is exported under.

    Args:
        parameters: one entry per kernel parameter, constants included: a constraint, or a
            constant's value (shorthand for a `ConstantConstraint`), or a tuple of entries
            (shorthand for a `TupleConstraint`).
        calling_convention: `CallingConvention.cutile_python_v1()` or `..._v2()`.
        symbol: the entry point's name; None: mangled from the kernel's name and the
            constraints when exported (`mangle_kernel_name`).
    """

    parameters: tuple[ParameterConstraint, ...]
    calling_convention: CallingConvention
    symbol: str | None = None

    def __init__(self, parameters: Sequence[Any], calling_convention: CallingConvention,
                 symbol: str | None = None):
        if symbol is not None and not isinstance(symbol, str):
            raise TypeError(f"`symbol` must be a string, got {type(symbol)}")
        if not isinstance(calling_convention, CallingConvention):
            raise TypeError(f"Unsupported calling convention {calling_convention}")
        constraints = tuple(to_constraint(p) for p in parameters)
        check_alias_groups(constraints)
        for c in constraints:
            check_convention(c, calling_convention)
        object.__setattr__(self, "parameters", constraints)
        object.__setattr__(self, "calling_convention", calling_convention)
        object.__setattr__(self, "symbol", symbol)

    def with_symbol(self, symbol: str | None) -> KernelSignature:
        """A copy with another symbol."""
        return dataclasses.replace(self, symbol=symbol)

    def with_mangled_symbol(self, function_name: str) -> KernelSignature:
        """A copy whose symbol is mangled from `function_name` and this signature."""
        return self.with_symbol(mangle_kernel_name(function_name, self))

    @staticmethod
    def from_kernel_args(kernel: object, kernel_args: Sequence[Any],
                         calling_convention: CallingConvention, *,
                         symbol: str | None = None) -> KernelSignature:
        """The signature a launch of `kernel` with `kernel_args` compiles, as constraints.

        The facts are those of the example arguments (alignments, unit strides, which arrays
        share memory), so an exported kernel assumes them of every later argument: meant for
        tests and prototypes; write the constraints out for a kernel you ship. The symbol is
        mangled from the kernel's name unless `symbol` is given.
        """
        from tilelang.compilation.from_args import constraints_from_args
        from tilelang.interface.kernel import as_kernel

        k = as_kernel(kernel)
        signature = KernelSignature(
            constraints_from_args(k, tuple(kernel_args), calling_convention),
            calling_convention, symbol)
        return signature if symbol is not None else signature.with_mangled_symbol(k.name)

    def __repr__(self) -> str:
        params = ", ".join(map(repr, self.parameters))
        return (f"KernelSignature([{params}], {self.calling_convention!r}, "
                f"symbol={self.symbol!r})")


def mangle_kernel_name(function_name: str, kernel_signature: KernelSignature) -> str:
    """The symbol of `function_name` compiled for `kernel_signature` (the grammar:
    compilation/mangling.py); it reads back as the signature (alias groups renamed)."""
    return mangling.mangle(function_name, kernel_signature.calling_convention,
                           kernel_signature.parameters)


def demangle_kernel_name(symbol: str) -> tuple[str, KernelSignature]:
    """(function name, signature) of a mangled symbol; alias groups come back as `group<n>`."""
    name, convention, parameters = mangling.demangle(symbol)
    return name, KernelSignature(parameters, convention, symbol)
