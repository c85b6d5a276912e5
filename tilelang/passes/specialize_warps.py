"""Passes (simt): tile-specialize-warps: which kernels get a producer warpgroup for their TMA
rings (simt/warp_specialize.py), with how many stages and registers.

A kernel qualifies when it has whole consumer warpgroups (at an occupancy hint above 1, when
the blocks' share of the register file still holds the consumers' accumulators after
setmaxnreg: 128x128 tiles over two consumer warpgroups at two blocks an SM), and every loop
whose ring TMA fills (tile-plan-rings's `copy = "tma"`) sits in its top-level block, or all in
the body of one top-level loop over tiles (a persistent kernel), with one ring geometry and
bounds and tile indices that are pure scalar functions of what the producer can compute. In a
tile loop the ring lies past the loop's other shared-memory buffers, so it holds as many
stages as fit there (at least 3).

The decision is recorded on the kernel's func.func as `tile.warp_specialize = {stages = N,
consumer_registers = R, producer_registers = P}`: the ring's stages (every ring loop's, in
place of its own `tile.ring` stages) and the registers per thread each side asks for with
setmaxnreg (0 and 0: the launch's own share is already what the consumers could get, so no
setmaxnreg). Each may be edited; removing the attribute leaves thread 0 filling the rings.
"""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir

from tilelang.passes.ir_utils import kernel_num_warps, name
from tilelang.passes.simt import warp_specialize

NAME = "tile-specialize-warps"
SPECIALIZE_ATTR = "tile.warp_specialize"  # on a func.func: a dictionary (module doc)


@dataclass(frozen=True)
class Options:
    chip: str = "sm_90"
    enabled: bool = True  # TILELANG_WARP_SPECIALIZE


def run(module: ir.Operation, options: Options) -> None:
    """Give kernels whose TMA rings qualify a producer warpgroup (tile.warp_specialize)."""
    if not options.enabled:
        return
    for func in module.regions[0].blocks[0].operations:
        if name(func) != "func.func":
            continue
        kernel = func.operation
        spec = warp_specialize.plan(kernel, options.chip, kernel_num_warps(kernel))
        if spec is not None:
            kernel.attributes[SPECIALIZE_ATTR] = _attribute(spec.loops[0].stages,
                                                            spec.registers, spec.producer_warps)


def _attribute(stages: int, registers: tuple[int, int], producer_warps: int) -> ir.Attribute:
    i64 = ir.IntegerType.get_signless(64)
    consumer, producer = registers
    fields = {
        "stages": ir.IntegerAttr.get(i64, stages),
        "consumer_registers": ir.IntegerAttr.get(i64, consumer),
        "producer_registers": ir.IntegerAttr.get(i64, producer),
    }
    if producer_warps != warp_specialize.PRODUCER_WARPS:
        fields["producer_warps"] = ir.IntegerAttr.get(i64, producer_warps)
    return ir.DictAttr.get(fields)


def decision(kernel: ir.Operation) -> tuple[int, tuple[int, int], int] | None:
    """(stages, (consumer, producer) registers, producer warps) recorded on `kernel`, or
    None."""
    if SPECIALIZE_ATTR not in kernel.attributes:
        return None
    fields = ir.DictAttr(kernel.attributes[SPECIALIZE_ATTR])

    def get(key: str) -> int:
        return ir.IntegerAttr(fields[key]).value

    warps = get("producer_warps") if "producer_warps" in fields else \
        warp_specialize.PRODUCER_WARPS
    return get("stages"), (get("consumer_registers"), get("producer_registers")), warps
