"""Index tiles of gathers and scatters that address contiguous runs: the last index
`start + arange(K)` along the last axis, the others the same all along it. Such an access
reads or writes each row's K elements one after another (simt/gather.py reads a gather's as
vectors; passes/staged_loops.py copies a gathered A operand row by row)."""

from __future__ import annotations

import mlir.ir as ir

from tilelang.dialect.types import is_tile_type, shape_of
from tilelang.passes.ir_utils import defining_op, name, uniform_constant

RELABELS = ("tile.broadcast", "tile.reshape")
# integer casts keep a run a run: a sign extension keeps each value, and a run of a power of
# two elements from a multiple of its length never straddles a narrower type's wrap
CASTS = ("tile.cast",)


def run_start(index: ir.Value, length: int) -> ir.Value | int | None:
    """`start` when `index` (R x K, or K) is `start + arange(K)` along its last axis
    (through a broadcast and reshapes of a 1 x K or K tile): a scalar, or 0 for
    `arange(K)` alone; None otherwise."""
    value = index
    op = defining_op(value)
    while op is not None and name(op) in RELABELS + CASTS:
        src = op.operands[0]
        if not is_tile_type(src.type) or [d for d in shape_of(src.type) if d != 1] != [length]:
            return None
        value = src
        op = defining_op(value)
    if op is None or shape_of(value.type)[-1:] != (length,):
        return None
    if name(op) == "tile.arange":
        return 0
    if name(op) != "tile.add":
        return None
    for first, second in (tuple(op.operands), tuple(reversed(list(op.operands)))):
        inner, splat = defining_op(second), defining_op(first)
        if inner is not None and name(inner) == "tile.arange" and splat is not None and \
                name(splat) == "tile.splat" and not is_tile_type(splat.operands[0].type):
            return splat.operands[0]
    return None


def multiple_of(value: ir.Value, factor: int) -> bool:
    """Whether the scalar `value` is known to be a multiple of `factor`: a constant, or a
    product or sum of such terms (a constant factor that is a multiple)."""
    constant = uniform_constant(value)
    if constant is not None:
        return isinstance(constant[0], int) and constant[0] % factor == 0
    op = defining_op(value)
    if op is None:
        return False
    if name(op) == "tile.mul":
        return any(multiple_of(v, factor) for v in op.operands)
    if name(op) in ("tile.add", "tile.sub"):
        return all(multiple_of(v, factor) for v in op.operands)
    return False


def uniform_along_last(index: ir.Value) -> bool:
    """Whether `index` holds one value all along its last axis: a splat, or a broadcast of
    a tile whose last dimension is 1 (through reshapes that keep it last)."""
    value = index
    while True:
        op = defining_op(value)
        if op is None:
            return False
        if name(op) == "tile.splat":
            return True
        if name(op) in CASTS:  # element by element: still one value along the axis
            value = op.operands[0]
            continue
        if name(op) not in RELABELS or not is_tile_type(op.operands[0].type):
            return False
        src = shape_of(op.operands[0].type)
        if name(op) == "tile.broadcast" and src[-1:] == (1,):
            return True
        if name(op) == "tile.reshape" and shape_of(value.type)[-1:] != src[-1:]:
            return False
        value = op.operands[0]


def row_runs(op: ir.Operation) -> bool:
    """Whether a tile.gather or tile.scatter addresses contiguous runs along its last axis
    (the module doc): at least two index tiles, every element kept (a mask of true), the last
    dimension of its array unit-stride."""
    from tilelang.dialect import parse_array_type

    operands = list(op.operands)
    indices = operands[1:-2]
    mask = operands[-2] if name(op) == "tile.gather" else operands[-1]
    if len(indices) < 2 or not all(is_tile_type(i.type) for i in indices):
        return False
    kept = uniform_constant(mask)
    if kept is None or kept[0] is not True or not parse_array_type(operands[0].type)[1][-1]:
        return False
    return run_start(indices[-1], shape_of(indices[-1].type)[-1]) is not None and \
        all(uniform_along_last(i) for i in indices[:-1])
