"""Passes (tile-opt): tile-row-major-views: a matrix-product operand loaded from a
column-major array is read through a view whose rows are contiguous.

PyTorch hands a linear layer's weights to a product as `w.t()`: a (K, N) array whose first
dimension is the contiguous one. The staged paths copy tiles by rows of 16-byte chunks (cp.async,
TMA), so such a B operand ran on mma.sync from registers, with spills (cuTile's `matmul_kernel`
given `w.t()`: 7.8 KB a thread). The same tile is the tile of the array's transposed view, read
with the load's `order` composed with the transposition:

    load(b, (k, j), (BK, BN))                        b: (K, N), K contiguous
    -> load(array_permute(b, (1, 0)), (k, j), (BK, BN), order=(1, 0))

The view, `(N, K)` with rows of K contiguous elements, is the form `ct.load(w, ..., order=(1,
0))` on the row-major `w` has, which the staged paths take (a B operand read K-major). The index,
shape and tile are unchanged: tile axis `t` reads the array's axis `order[t]` before and the
view's axis `p[order[t]]` after, which is the same axis (`p` swaps the contiguous axis and the
last, and is its own inverse).

A column-major A (`x.t()`: a weight gradient's `dy.t() @ x`) is read the same way: an A loaded
with `order=(1, 0)` from rows of M, which the staged K loop copies M-major and wgmma reads
transposed, or ldmatrix with .trans on sm_80 (16-bit only; before, such an A ran as staged
products from registers at 0.07-0.2 of cuBLAS). An 8-bit A is left alone (wgmma reads 8-bit
operands K-major only).

A load qualifies when its array's last dimension is not known to be unit-stride, another one is
(the array's last two at least), and its tile reaches a `tile.mma`'s B operand, or a 16-bit
A operand, through reshapes, permutes and casts.

On by default; TILELANG_ROW_MAJOR_VIEWS=0 turns it off (settings.row_major_views_enabled). The
interpreter runs the rewritten IR, the PTX is checked against the linear kernel's
(tests/backend/test_row_major_views.py), and tests/gpu/test_row_major_views_gpu.py runs it.
"""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir

from tilelang import settings
from tilelang.dialect import dtype_of, ops, parse_array_type
from tilelang.dialect.types import array_type
from tilelang.passes.ir_utils import VIEW_OPS, name, walk_ops

NAME = "tile-row-major-views"


@dataclass(frozen=True)
class Options:
    enabled: bool | None = None  # None: settings.row_major_views_enabled()


def run(module: ir.Operation, options: Options) -> None:
    """Read matrix-product operands of column-major arrays through row-major views."""
    enabled = settings.row_major_views_enabled() if options.enabled is None else options.enabled
    if not enabled:
        return
    for op in walk_ops(module):
        if name(op) == "tile.load" and _feeds_product(op.results[0]):
            swap = contiguous_axis(op.operands[0].type)
            if swap is not None:
                _read_by_rows(op, swap)


def contiguous_axis(array: ir.Type) -> int | None:
    """The unit-stride axis of a column-major array (its last axis not unit-stride, another
    of at least two axes is), else None."""
    _, unit, _ = parse_array_type(array)
    if len(unit) < 2 or unit[-1]:
        return None
    return next((k for k, u in enumerate(unit) if u), None)


def _feeds_product(value: ir.Value) -> bool:
    """Whether `value` reaches a product's B operand, or a 16-bit A operand (which wgmma reads
    M-major, transposed), through view ops."""
    for use in value.uses:
        user = use.owner
        if name(user) == "tile.mma" and (use.operand_number == 1 or (
                use.operand_number == 0 and dtype_of(value.type).itemsize == 2)):
            return True
        if name(user) in VIEW_OPS and any(_feeds_product(r) for r in user.results):
            return True
    return False


def _read_by_rows(load: ir.Operation, axis: int) -> None:
    array = load.operands[0]
    dtype, unit, align = parse_array_type(array.type)
    last = len(unit) - 1
    swap = list(range(len(unit)))
    swap[axis], swap[last] = last, axis
    viewed = array_type(dtype, tuple(unit[k] for k in swap), align)
    order = [swap[k] for k in ops.array_attr(load, "order")]
    with ir.InsertionPoint(load), load.location:
        view = ops.create("array_permute", [array], [viewed],
                          order=ir.DenseI64ArrayAttr.get(swap)).result
    load.operands[0] = view
    load.attributes["order"] = ir.DenseI64ArrayAttr.get(order)
