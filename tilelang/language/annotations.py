"""Language: annotations of kernel parameters beyond `Constant` (arrays, scalars, lists).

They are `typing.Annotated` metadata, as in cuTile: `x: ct.IndexedWithInt64`,
`n: ct.ScalarInt64`, `xs: Annotated[list, ct.ListAnnotation(element=ct.IndexedWithInt64)]`,
`x: Annotated[ct.Array, ct.ArrayAnnotation(static_shape_dims=(0,))]`.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

from tilelang.language.dtypes import DType, int32, int64

T = TypeVar("T")


@dataclass(frozen=True, kw_only=True)
class ArrayAnnotation:
    """What the kernel may assume about an array parameter.

    - `index_dtype`: the dtype (`int32` or `int64`) of the array's `shape` and `strides` values
      inside the kernel.
    - `static_shape_dims` / `static_stride_dims`: dimensions (negative counts from the end)
      whose extent / stride is compiled in as a constant: each new value compiles a new
      specialization. Listing any stride dimension also stops the launch from specializing on
      unit strides of the dimensions not listed.
    """

    index_dtype: DType = int32
    static_shape_dims: tuple[int, ...] = ()
    static_stride_dims: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.index_dtype not in (int32, int64):
            raise ValueError(f"`index_dtype` must be int32 or int64, got {self.index_dtype}")
        for name in ("static_shape_dims", "static_stride_dims"):
            dims = getattr(self, name)
            if not isinstance(dims, tuple):
                raise TypeError(f"`{name}` must be a tuple of integers")
            for i, dim in enumerate(dims):
                if isinstance(dim, bool) or not isinstance(dim, int):
                    raise TypeError(f"Element #{i} of `{name}` must be int, got {dim!r}")


@dataclass(frozen=True, kw_only=True)
class ScalarAnnotation:
    """The dtype (`int32` or `int64`) of an integer scalar parameter."""

    dtype: DType

    def __post_init__(self) -> None:
        if self.dtype not in (int32, int64):
            raise ValueError(f"`dtype` must be int32 or int64, got {self.dtype}")


@dataclass(frozen=True, kw_only=True)
class ListAnnotation:
    """A list-of-arrays parameter; `element` is an `ArrayAnnotation` (or an `Annotated` type
    holding one, such as `IndexedWithInt64`) that applies to every array of the list."""

    element: Any

    def __post_init__(self) -> None:
        element = self.element
        if typing.get_origin(element) is Annotated:
            found = [m for m in element.__metadata__ if isinstance(m, ArrayAnnotation)]
            if len(found) != 1:
                raise TypeError("`element` must contain exactly one ArrayAnnotation, found "
                                f"{len(found)} in {element!r}")
            element = found[0]
            object.__setattr__(self, "element", element)
        if not isinstance(element, ArrayAnnotation):
            raise TypeError(f"`element` must be an ArrayAnnotation, got {type(element).__name__}")


IndexedWithInt64 = Annotated[T, ArrayAnnotation(index_dtype=int64)]
"""An array whose `shape` and `strides` are int64 values in the kernel (for extents or strides
of 2^31 or more)."""

ScalarInt64 = Annotated[T, ScalarAnnotation(dtype=int64)]
"""An integer scalar parameter passed as int64 whatever its value (int32 otherwise, when it
fits)."""
