"""Passes (layout): which layout each kind of tile value prefers (pure functions, no IR)."""

from __future__ import annotations

import mlir.ir as ir

from tilelang.dialect import dtype_of, ops
from tilelang.dialect.types import shape_of
from tilelang.language.dtypes import DType
from tilelang.layout import LinearLayout, default_blocked, padded_shape
from tilelang.layout.mma import ATOMS, Atom, MmaLayouts, fma_layouts, mma_layouts
from tilelang.layout.reduction import is_reducible, is_scan_ready, reduced_layout, scan_layout
from tilelang.layout.subtiles import (
    concat_layout,
    holds_subtiles_in_registers,
    subtile_layout,
    subtiles_in_registers,
)

VECTOR_BYTES = 16  # one ld/st.global.v4.b32: the widest access per thread


def memory_layout(
    shape: tuple[int, ...], dtype: DType, num_warps: int, fastest: int | None,
    align: int = VECTOR_BYTES,
) -> LinearLayout:
    """A coalesced layout for moving a tile to or from memory.

    `fastest` is the tile axis that is contiguous in memory (unit stride), or None when no axis
    is: then each thread holds single elements and lanes still run along the last axis. A thread
    holds as many consecutive elements as one access can move: `align` (the bytes the array's
    base and strides are known to be a multiple of) caps it, because consecutive elements that
    cannot travel as one vector are better spread over consecutive lanes (one coalesced access
    per warp instead of one per element run).
    """
    if not shape:
        return LinearLayout.scalar(num_warps)
    vec = max(1, min(VECTOR_BYTES, align) // dtype.itemsize) if fastest is not None else 1
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


# ----- reductions and scans -------------------------------------------------------------------


def can_combine_in(op: ir.Operation, layout: LinearLayout) -> bool:
    """Whether a tile.reduce / tile.scan can work on its operands in `layout`."""
    if op.name == "tile.reduce":
        return is_reducible(layout, ops.array_attr(op, "axes"))
    return is_scan_ready(layout, ops.int_attr(op, "axis"))


def combining_layout(op: ir.Operation, num_warps: int) -> LinearLayout:
    """A layout made for a tile.reduce (the default one, whose bases are unit vectors) or for a
    tile.scan (scan_layout) when no operand has a usable one."""
    value = op.operands[0]
    shape = shape_of(value.type)
    if op.name == "tile.reduce":
        return default_layout(shape, dtype_of(value.type), num_warps)
    return scan_layout(padded_shape(shape), ops.int_attr(op, "axis"), num_warps)


def combined_result_layout(op: ir.Operation, layout: LinearLayout) -> LinearLayout:
    """The layout of each result, given the layout the op works in."""
    if op.name == "tile.reduce":
        return reduced_layout(layout, ops.array_attr(op, "axes"))
    return layout


# ----- permute, cat, extract, insert ----------------------------------------------------------



def permute_operand_layout(op: ir.Operation, layout: LinearLayout) -> LinearLayout:
    """The operand layout a tile.permute turns into `layout` (its result's) for free."""
    axes = ops.array_attr(op, "axes")
    return layout.permute([axes.index(d) for d in range(len(axes))])


def subtile_op_layouts(
    op: ir.Operation, operands: list[LinearLayout | None], num_warps: int
) -> tuple[LinearLayout, dict[int, LinearLayout]]:
    """(result layout, operand index -> required layout) of a tile.cat, tile.extract or
    tile.insert, given the layouts of its operands (None where deferred): the whole tile keeps
    the first operand's layout where that makes the op a register selection, else moves to one
    that does; the sub-tiles get the matching layout."""
    source = op.operands[0]
    whole = operands[0] or (operands[1] if op.name == "tile.cat" else None) or \
        default_layout(shape_of(source.type), dtype_of(source.type), num_warps)
    if op.name == "tile.cat":
        return concat_layout(whole, ops.int_attr(op, "axis")), {0: whole, 1: whole}
    part = op.results[0] if op.name == "tile.extract" else op.operands[1]
    sub = padded_shape(shape_of(part.type))
    if not holds_subtiles_in_registers(whole, sub):
        whole = subtiles_in_registers(whole, sub)
    if op.name == "tile.extract":
        return subtile_layout(whole, sub), {0: whole}
    return whole, {0: whole, 1: subtile_layout(whole, sub)}


# ----- mma ------------------------------------------------------------------------------------


def mma_atom(a: DType, b: DType, acc: DType) -> Atom | None:
    """The mma.sync shape that computes A @ B + C for these dtypes (the 8-bit floats on the
    f16 shape: they widen to f16 exactly; float32 as three tf32 products), or None for the
    CUDA-core fallback."""
    from tilelang.language import dtypes as dt

    floats8 = dt.FLOAT8_DTYPES
    if a in floats8 and b in floats8 and acc in (dt.float32, dt.float16):
        return ATOMS["f16"]
    if a is not b:
        if {a.name, b.name} <= {"int8", "uint8"} and acc.name == "int32":
            return ATOMS["s8"]  # the lowering picks s8/u8 per operand
        return None
    if a is dt.float16 and acc in (dt.float32, dt.float16):
        return ATOMS["f16"]
    if a is dt.bfloat16 and acc is dt.float32:
        return ATOMS["bf16"]
    if a is dt.tfloat32 and acc is dt.float32:
        return ATOMS["tf32"]
    if a is dt.float32 and acc is dt.float32:
        return ATOMS["tf32x3"]
    if a is dt.float64 and acc is dt.float64:
        return ATOMS["f64"]
    if a.name in ("int8", "uint8") and acc.name == "int32":
        return ATOMS["s8"]
    return None


def mma_plan(op: ir.Operation, num_warps: int) -> MmaLayouts:
    """The layouts of a tile.mma's operands and result: tensor-core fragments when an atom
    fits the dtypes, else the per-thread dot product of the CUDA-core fallback."""
    a, b, acc = op.operands[:3]
    shape_a, shape_b = padded_shape(shape_of(a.type)), padded_shape(shape_of(b.type))
    atom = mma_atom(dtype_of(a.type), dtype_of(b.type), dtype_of(acc.type))
    if atom is not None:
        return mma_layouts(shape_a, shape_b, atom, num_warps)
    shape_c = padded_shape(shape_of(acc.type))
    return fma_layouts(default_layout(shape_c, dtype_of(acc.type), num_warps), shape_a[-1])
