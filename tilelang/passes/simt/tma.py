"""Passes (simt): TMA (the Tensor Memory Accelerator, sm_90) tile copies and the mbarriers they
complete on.

A TMA copy (`cp.async.bulk.tensor.Nd`) moves one box of an array into shared memory, issued
by one thread, and counts its bytes down on an mbarrier when they land; boxes reaching past the
array's edges are filled with zeros by the hardware (no bounds arithmetic in the kernel). It
reads the array through a *tensor map* (`CUtensorMap`, 128 bytes: base address, extents, row
stride, box size, swizzle), which only the host can build: each map becomes an extra kernel
parameter after the kernel's own, passed by value as a `__grid_constant__` (its address must be
in the parameter space, not a local copy). The kernel records what each map describes in the
gpu.func attribute `tile.tensor_maps`; the runtime (runtime/tensor_maps.py) builds them from the
array's pointer, shape and strides at each launch, and tile-mark-grid-constants gives the
parameters their by-value attributes once the kernel is an llvm.func.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

import mlir.ir as ir
from mlir.dialects import arith, llvm, nvvm

from tilelang.passes.simt.context import Lowering, const
from tilelang.passes.simt.values import ArrayArgs, i32

TENSOR_MAPS_ATTR = "tile.tensor_maps"  # on a gpu.func / llvm.func: JSON list of TensorMap
MAP_BYTES = 128
MAP_ALIGN = 64
BOX_ROW_BYTES = 128  # a box's rows with the 128-byte swizzle: one panel wide
WAIT_HINT_NS = 0x989680  # mbarrier.try_wait's suspend-time hint (what CUTLASS passes)


@dataclass(frozen=True)
class TensorMap:
    """A map of an array of `rank` dimensions, its last contiguous: the kernel parameter index
    of its base pointer (its extents and strides follow it, simt/abi.py), element dtype name,
    box (columns, rows) over the last two dimensions (1 along the others). `order`: the map is
    of a permuted view of the parameter (tile.array_permute), whose axis i is the parameter's
    axis order[i]; the runtime lists the parameter's extents and strides so."""

    array_param: int
    rank: int
    dtype: str
    box_cols: int
    box_rows: int
    order: tuple[int, ...] | None = None


def tensor_map(lw: Lowering, array: ArrayArgs, box_cols: int, box_rows: int,
               order: tuple[int, ...] | None = None) -> ir.Value:
    """The kernel parameter holding the map of `array` with this box (added on first use).
    An array picked at run time from parameters (simt/grid.lower_array_select: a chain of
    selects over their base pointers) gets the same chain over their maps. `order`: the map
    is of the permuted view of `array` whose axis i is its axis order[i]."""
    return _map_of(lw, array.ptr, len(array.shape), array.dtype.name, box_cols, box_rows, order)


def tensor_map_of(lw: Lowering, array: ir.Value, box_cols: int, box_rows: int) -> ir.Value:
    """tensor_map of a tile-stage array value, which may be a permuted view of a parameter
    (tile.array_permute, a column-major `w.t()` read by rows): the parameter's map with its
    dimensions in the view's order. The view itself need not be lowered yet (a producer
    warpgroup's maps are taken at the kernel's entry)."""
    order: tuple[int, ...] | None = None
    while not isinstance(array.owner, ir.Block) and \
            array.owner.operation.name == "tile.array_permute":
        view = array.owner.operation
        step = tuple(ir.DenseI64ArrayAttr(view.attributes["order"]))
        order = step if order is None else tuple(step[k] for k in order)
        array = view.operands[0]
    return tensor_map(lw, lw.array(array), box_cols, box_rows, order)


def _map_of(lw: Lowering, ptr: ir.Value, rank: int, dtype: str, box_cols: int,
            box_rows: int, order: tuple[int, ...] | None) -> ir.Value:
    if not isinstance(ptr.owner, ir.Block):
        select = ptr.owner.operation
        assert select.name == "arith.select", "an array picked from parameters"
        pick, first, second = list(select.operands)
        return arith.select(pick, _map_of(lw, first, rank, dtype, box_cols, box_rows, order),
                            _map_of(lw, second, rank, dtype, box_cols, box_rows, order))
    param = ir.BlockArgument(ptr).arg_number
    spec = TensorMap(param, rank, dtype, box_cols, box_rows, order)
    if spec not in lw.tensor_maps:
        assert lw.entry is not None, "tensor maps are added while lowering a gpu.func"
        lw.tensor_maps.append(spec)
        lw.tensor_map_params.append(lw.entry.add_argument(ir.Type.parse("!llvm.ptr"),
                                                          ir.Location.unknown()))
    return lw.tensor_map_params[lw.tensor_maps.index(spec)]


def tensor_maps_json(maps: list[TensorMap]) -> str:
    return json.dumps([asdict(m) for m in maps])


def copy_box(dst: ir.Value, desc: ir.Value, at: list[ir.Value], barrier: ir.Value) -> None:
    """One box at element `at` (i32 coordinates, innermost dimension first) of the map's
    array to shared address `dst` (i64), completing on `barrier`."""
    target = llvm.addrspacecast(ir.Type.parse("!llvm.ptr<7>"), shared_pointer(dst))
    nvvm.CpAsyncBulkTensorGlobalToSharedClusterOp(target, desc, at, barrier, [])


def shared_pointer(address: ir.Value) -> ir.Value:
    return llvm.inttoptr(ir.Type.parse("!llvm.ptr<3>"), address)


def barrier_init(barrier: ir.Value, count: int) -> None:
    nvvm.MBarrierInitOp(barrier, const(i32(), count))


def arrive_expect_bytes(barrier: ir.Value, count: int) -> None:
    nvvm.MBarrierArriveExpectTxOp(None, barrier, const(i32(), count))


def arrive(barrier: ir.Value) -> None:
    nvvm.MBarrierArriveOp(ir.IntegerType.get_signless(64), barrier)


def wait(barrier: ir.Value, parity: ir.Value) -> None:
    """Until the barrier's phase of this parity completed (the one before a fresh barrier's
    first phase counts as completed: waiting for parity 1 on it returns at once)."""
    nvvm.MBarrierTryWaitParityOp(barrier, parity, const(i32(), WAIT_HINT_NS))


def invalidate(barrier: ir.Value) -> None:
    nvvm.MBarrierInvalOp(barrier)


def parity(count: ir.Value, stages: int) -> ir.Value:
    """Bit 0 of count // stages: which use of its stage iteration `count` is."""
    return arith.andi(arith.divui(count, const(i32(), stages)), const(i32(), 1))
