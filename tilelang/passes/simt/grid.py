"""Passes (simt): block indices, grid size and array shape/stride queries."""

from __future__ import annotations

import mlir.ir as ir
from mlir.dialects import arith, gpu

from tilelang.dialect import ops
from tilelang.passes.simt.context import Lowering, lowers
from tilelang.passes.simt.values import i32

DIMENSIONS = (gpu.Dimension.x, gpu.Dimension.y, gpu.Dimension.z)


@lowers("tile.bid")
def lower_bid(lw: Lowering, op: ir.Operation) -> None:
    index = gpu.block_id(DIMENSIONS[ops.int_attr(op, "axis")])
    lw.set(op.results[0], arith.index_cast(i32(), index))


@lowers("tile.num_blocks")
def lower_num_blocks(lw: Lowering, op: ir.Operation) -> None:
    index = gpu.grid_dim(DIMENSIONS[ops.int_attr(op, "axis")])
    lw.set(op.results[0], arith.index_cast(i32(), index))


@lowers("tile.dim", "tile.stride")
def lower_array_query(lw: Lowering, op: ir.Operation) -> None:
    array = lw.array(op.operands[0])
    values = array.shape if op.name == "tile.dim" else array.strides
    lw.set(op.results[0], arith.trunci(i32(), values[ops.int_attr(op, "dim")]))
