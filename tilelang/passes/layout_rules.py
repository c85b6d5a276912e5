"""Passes (layout): which layout each kind of tile value prefers (pure functions, no IR)."""

from __future__ import annotations

from tilelang.language.dtypes import DType
from tilelang.layout import LinearLayout, default_blocked, padded_shape

VECTOR_BYTES = 16  # one ld/st.global.v4.b32: the widest access per thread


def memory_layout(
    shape: tuple[int, ...], dtype: DType, num_warps: int, fastest: int | None
) -> LinearLayout:
    """A coalesced layout for moving a tile to or from memory.

    `fastest` is the tile axis that is contiguous in memory (unit stride), or None when no axis
    is: then each thread holds single elements and lanes still run along the last axis.
    """
    if not shape:
        return LinearLayout.scalar(num_warps)
    vec = VECTOR_BYTES // dtype.itemsize if fastest is not None else 1
    axis = len(shape) - 1 if fastest is None else fastest
    perm = [d for d in range(len(shape)) if d != axis] + [axis]
    moved = tuple(shape[d] for d in perm)
    layout = default_blocked(moved, num_warps, vec)
    inverse = [perm.index(d) for d in range(len(shape))]
    return layout.permute(inverse)


def default_layout(shape: tuple[int, ...], dtype: DType, num_warps: int) -> LinearLayout:
    """The layout of a value no memory access or operand decides."""
    return memory_layout(shape, dtype, num_warps, len(shape) - 1 if shape else None)


def fastest_tile_axis(unit_stride: tuple[bool, ...], order: tuple[int, ...]) -> int | None:
    """The last tile axis whose array axis has unit stride (tile axis k is array axis order[k])."""
    candidates = [k for k, a in enumerate(order) if unit_stride[a]]
    return candidates[-1] if candidates else None


def is_linear_reshape(src: tuple[int, ...], dst: tuple[int, ...]) -> bool:
    """Whether reshaping the padded tiles is a relabelling of coordinate bits: true when every
    size is a power of two, or when the shapes differ only by unit dimensions."""
    if padded_shape(src) == tuple(src) and padded_shape(dst) == tuple(dst):
        return True
    return [d for d in src if d != 1] == [d for d in dst if d != 1]


def reshape_layout(layout: LinearLayout, shape: tuple[int, ...]) -> LinearLayout:
    """`layout` (of a padded tile) reshaped to the padded form of `shape`."""
    return layout.reshape(padded_shape(shape))
