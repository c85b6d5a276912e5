"""Language: `Constant[...]` parameter annotations (compile-time constants)."""

from __future__ import annotations

from typing import Annotated, TypeVar

T = TypeVar("T")


class ConstantAnnotation:
    """Marks a kernel parameter as a compile-time constant: each value compiles a specialization."""

    def __repr__(self) -> str:
        return "ConstantAnnotation()"


Constant = Annotated[T, ConstantAnnotation()]


def is_constant_annotation(annotation: object) -> bool:
    """True for `Constant`, `Constant[int]` and any `Annotated[..., ConstantAnnotation()]`."""
    metadata = getattr(annotation, "__metadata__", ())
    return any(isinstance(m, ConstantAnnotation) for m in metadata)
