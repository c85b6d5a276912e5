"""Passes (simt): tile-distribute-to-threads: tile kernels become per-thread GPU code.

Every `func.func` kernel becomes a `gpu.func` in a `gpu.module` targeting NVVM: arrays become
pointer + extents + strides (simt/abi.py), each tile becomes, in every thread, the registers its
layout assigns to that thread, and each tile op becomes arith/math/llvm/scf code on them.
"""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir
from mlir.dialects import arith, gpu

from tilelang.dialect import dtype_of
from tilelang.dialect.locations import to_loc
from tilelang.errors import TileUnsupportedFeatureError
from tilelang.language import dtypes as dt
from tilelang.passes import specialize_warps
from tilelang.passes.ir_utils import kernel_occupancy, name
from tilelang.passes.simt import (  # noqa: F401  (registration side effects)
    control_flow,
    debug,
    elementwise,
    gather,
    grid,
    hints,
    memory,
    mma,
    reduce,
    scan,
    shape_ops,
    shapes,
    warp_specialize,
)
from tilelang.passes.simt.abi import array_args, is_array, parameter_types
from tilelang.passes.simt.addressing import SHARED_ALIGN, SHARED_SYMBOL
from tilelang.passes.simt.context import Lowering
from tilelang.passes.simt.tma import TENSOR_MAPS_ATTR, tensor_maps_json
from tilelang.target import target

NAME = "tile-distribute-to-threads"
SHARED_BYTES_ATTR = "tile.shared_bytes"  # on each gpu.func: the dynamic shared memory it needs
MODULE_NAME = "tile_kernels"


@dataclass(frozen=True)
class Options:
    chip: str = "sm_90"
    features: str = "+ptx80"
    opt: int = 3  # LLVM's optimization level before PTX codegen (the nvvm.target's O)
    tma: bool = False  # stores marked by tile-assign-layouts may write with TMA (the rings
    # TMA fills are tile-plan-rings's choice)


def run(module: ir.Operation, options: Options) -> None:
    """Rewrite each tile kernel as a gpu.func with its tiles distributed over the threads."""
    body = module.regions[0].blocks[0]
    kernels = [op.operation for op in body.operations if name(op) == "func.func"]
    if not kernels:
        return
    module.attributes["gpu.container_module"] = ir.UnitAttr.get()
    with ir.InsertionPoint(body), ir.Location.unknown():
        target = ir.Attribute.parse(_target(options.chip, options))
        gpu_module = gpu.GPUModuleOp(MODULE_NAME, targets=ir.ArrayAttr.get([target]))
        gpu_module.regions[0].blocks.append()
    container = gpu_module.regions[0].blocks[0]
    needs_shared = uses_wgmma = False
    for kernel in kernels:
        lw = _lower_kernel(kernel, container, options.chip, options.tma)
        needs_shared |= lw.shared_bytes > 0
        uses_wgmma |= lw.uses_wgmma
        kernel.erase()
    if needs_shared:
        _declare_shared(container)
    if uses_wgmma and not options.chip.endswith("a"):  # wgmma exists on sm_90a only
        with ir.Location.unknown():
            gpu_module.operation.attributes["targets"] = ir.ArrayAttr.get([ir.Attribute.parse(
                _target(options.chip + "a", options))])


def _target(chip: str, options: Options) -> str:
    return f'#nvvm.target<O = {options.opt}, chip = "{chip}", features = "{options.features}">'


def _lower_kernel(kernel: ir.Operation, container: ir.Block, chip: str,
                  tma: bool = False) -> Lowering:
    """Lower one kernel into `container`; return its lowering (shared memory, wgmma use)."""
    num_warps = ir.IntegerAttr(kernel.attributes["tile.num_warps"]).value
    decided = specialize_warps.decision(kernel)  # chosen by tile-specialize-warps
    if decided is not None:
        stages, registers, producer_warps = decided
        spec = warp_specialize.specialized(kernel, chip, num_warps, stages, registers,
                                           producer_warps)
        lw = _lower_function(kernel, container, chip, tma, spec)
        if lw.shared_bytes <= target(chip).shared_per_block:
            return lw
        # The one decision left to the lowering: the shared memory a kernel needs is known
        # only once it is lowered (its conversions' buffers, and the ring placed past them, are
        # sized while the code is emitted), so tile-specialize-warps cannot see that the ring
        # does not fit past the other buffers. Then thread 0 fills the rings, as without the
        # attribute (each ring with its tile.ring stages).
        assert lw.func is not None  # _lower_function built it
        lw.func.operation.erase()
    lw = _lower_function(kernel, container, chip, tma, None)
    _check_shared(ir.StringAttr(kernel.attributes["sym_name"]).value, lw.shared_bytes,
                  lw.shared_location, chip)
    return lw


def _lower_function(kernel: ir.Operation, container: ir.Block, chip: str, tma: bool,
                    spec: warp_specialize.Specialized | None) -> Lowering:
    num_warps = ir.IntegerAttr(kernel.attributes["tile.num_warps"]).value
    threads = spec.threads if spec is not None else 32 * num_warps
    old = kernel.regions[0].blocks[0]
    params = [t for a in old.arguments for t in parameter_types(a.type)]
    name_attr = ir.StringAttr(kernel.attributes["sym_name"]).value
    with ir.InsertionPoint(container), kernel.location:
        func = gpu.GPUFuncOp(ir.TypeAttr.get(ir.FunctionType.get(params, [])),
                             sym_name=name_attr, kernel=True)
        func.attributes["nvvm.reqntid"] = ir.DenseI32ArrayAttr.get([threads, 1, 1])
        func.attributes["tile.num_warps"] = kernel.attributes["tile.num_warps"]
        entry = func.regions[0].blocks.append(*params)
    lw = Lowering(num_warps, chip)
    lw.tma, lw.entry, lw.func, lw.specialized = tma, entry, func, spec
    with ir.InsertionPoint(entry), kernel.location:
        lw.init_thread()
        _bind_parameters(lw, list(old.arguments), list(entry.arguments))
        if spec is None:
            lw.lower_block(old)
        else:
            with ir.InsertionPoint(warp_specialize.begin(lw, spec)):
                lw.lower_block(old)
            warp_specialize.end(lw, spec)
        gpu.ReturnOp([])
    if lw.tensor_maps:  # parameters added during the lowering (simt/tma.py)
        params += [p.type for p in lw.tensor_map_params]
        func.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(params, []))
        func.attributes[TENSOR_MAPS_ATTR] = ir.StringAttr.get(tensor_maps_json(lw.tensor_maps))
    func.attributes[SHARED_BYTES_ATTR] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                                            lw.shared_bytes)
    # ptxas keeps the registers low enough for the blocks the hint asks for, but no lower
    # than the shared memory lets fit: a cap for a block that cannot come only costs (cuTile's
    # fmha at 64x128 with occupancy 2, 208 KB of stages: capped at 168 registers, ptxas
    # serialized its wgmma; uncapped it took 188 and did not)
    occupancy = kernel_occupancy(kernel)
    if target(chip).known:
        occupancy = min(occupancy, target(chip).blocks_for_shared(lw.shared_bytes))
    if occupancy > 1:
        func.attributes["nvvm.minctasm"] = ir.IntegerAttr.get(
            ir.IntegerType.get_signless(32), occupancy)
    return lw


def _bind_parameters(lw: Lowering, args: list[ir.Value], params: list[ir.Value]) -> None:
    it = iter(params)
    for arg in args:
        values = [next(it) for _ in parameter_types(arg.type)]
        if is_array(arg.type):
            lw.set(arg, array_args(arg.type, values))
        elif dtype_of(arg.type) is dt.bool_:
            lw.set(arg, arith.trunci(ir.IntegerType.get_signless(1), values[0]))
        else:
            lw.set(arg, values[0])


def _check_shared(kernel: str, size: int, location: ir.Location | None, chip: str) -> None:
    limit = target(chip).shared_per_block
    if size > limit:
        raise TileUnsupportedFeatureError(
            f"kernel {kernel} needs {size} bytes of shared memory here; a block on {chip} can "
            f"have at most {limit}",
            to_loc(location) if location is not None else None,
            hint="use smaller tiles where the layout changes or a reduction crosses warps",
        )


def _declare_shared(container: ir.Block) -> None:
    """The kernels' shared buffer: dynamic shared memory, sized by each launch."""
    with ir.Location.unknown():
        op = ir.Operation.parse(
            f"llvm.mlir.global external @{SHARED_SYMBOL}() "
            f"{{addr_space = 3 : i32, alignment = {SHARED_ALIGN} : i64}} : !llvm.array<0 x i8>"
        )
        ir.InsertionPoint.at_block_begin(container).insert(op)
