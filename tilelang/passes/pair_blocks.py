"""Passes (simt): tile-pair-blocks: which kernels run as clusters of two blocks that share
their K loop's operand tiles by TMA multicast (simt/cluster.py).

A kernel qualifies when a producer warpgroup fills its ring (tile-specialize-warps decided
so), its one ring loop is a plain K loop (passes/matmul_loops.py) in the kernel's top-level
block (not a persistent kernel's loop over tiles: its blocks would have to walk their tiles
in step), one of the loop's operands can be split into halves of whole swizzle atoms, and the
user did not ask for clusters of one (`num_ctas=1`; cuTile's hint, whose default leaves the
choice here). Whether the two blocks of a cluster really share an operand is the kernel's
arithmetic, checked at run time; the launch asks for the cluster when the grid's x extent is
even (runtime/launcher.py). TILELANG_CLUSTERS=0 turns the pass off.

The decision is recorded on the kernel's func.func as `tile.cluster = 2`; removing it keeps
every block on its own.
"""

from __future__ import annotations

from dataclasses import dataclass

import mlir.ir as ir

from tilelang.passes import specialize_warps
from tilelang.passes.ir_utils import kernel_num_warps, name
from tilelang.passes.matmul_loops import MatmulLoop
from tilelang.passes.plan_rings import ring_of
from tilelang.passes.simt import cluster, warp_specialize

NAME = "tile-pair-blocks"
NUM_CTAS_ATTR = "tile.num_ctas"  # on a func.func: the user's hint (compiler.py)


@dataclass(frozen=True)
class Options:
    chip: str = "sm_90"
    enabled: bool = True  # TILELANG_CLUSTERS


def run(module: ir.Operation, options: Options) -> None:
    """Mark kernels whose K loop's tiles a cluster of two blocks may share (tile.cluster)."""
    if not options.enabled:
        return
    for func in module.regions[0].blocks[0].operations:
        if name(func) == "func.func" and qualifies(func.operation, options.chip):
            func.operation.attributes[cluster.CLUSTER_ATTR] = ir.IntegerAttr.get(
                ir.IntegerType.get_signless(64), cluster.SIZE)


def qualifies(kernel: ir.Operation, chip: str) -> bool:
    if specialize_warps.decision(kernel) is None:
        return False
    if NUM_CTAS_ATTR in kernel.attributes and \
            ir.IntegerAttr(kernel.attributes[NUM_CTAS_ATTR]).value == 1:
        return False
    num_warps = kernel_num_warps(kernel)
    spec = warp_specialize.structure(kernel, chip, num_warps)
    if spec is None or spec.tile_loop is not None or len(spec.loops) != 1:
        return False
    loop = spec.loops[0]
    ring = ring_of(loop.loop, chip, num_warps)
    return ring is not None and isinstance(ring.plan, MatmulLoop) and \
        any(cluster.candidate(part) for part in loop.parts)


def cluster_size(kernel: ir.Operation) -> int:
    """The blocks of a cluster tile-pair-blocks recorded on `kernel` (1: none)."""
    if cluster.CLUSTER_ATTR not in kernel.attributes:
        return 1
    return ir.IntegerAttr(kernel.attributes[cluster.CLUSTER_ATTR]).value
