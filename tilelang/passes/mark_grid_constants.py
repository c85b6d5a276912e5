"""Passes (llvm): the TMA tensor-map parameters a kernel gained in its lowering (simt/tma.py)
become `__grid_constant__` by-value parameters of 128 bytes, aligned to 64.

They are set on the llvm.func, after convert-gpu-to-nvvm: that conversion drops `llvm.byval`
from a gpu.func's parameters, and `nvvm.grid_constant` is only valid on an NVVM kernel's. PTX
then declares `.param .align 64 .b8 p[128]` and takes its address with `cvta.param`, which TMA
instructions accept (a by-value parameter without grid_constant would be copied to local
memory, which they do not).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import mlir.ir as ir

from tilelang.passes.ir_utils import name
from tilelang.passes.simt.tma import MAP_ALIGN, MAP_BYTES, TENSOR_MAPS_ATTR

NAME = "tile-mark-grid-constants"


@dataclass(frozen=True)
class Options:
    pass


def run(module: ir.Operation, options: Options) -> None:
    """Give each kernel's trailing tensor-map parameters their by-value attributes."""
    for gpu_module in module.regions[0].blocks[0].operations:
        if name(gpu_module) != "gpu.module":
            continue
        for func in gpu_module.regions[0].blocks[0].operations:
            if name(func) == "llvm.func" and TENSOR_MAPS_ATTR in func.attributes:
                _mark(func.operation)


def _mark(func: ir.Operation) -> None:
    count = len(json.loads(ir.StringAttr(func.attributes[TENSOR_MAPS_ATTR]).value))
    params = len(func.regions[0].blocks[0].arguments)
    if "arg_attrs" in func.attributes:
        attrs = list(ir.ArrayAttr(func.attributes["arg_attrs"]))
    else:
        attrs = [ir.DictAttr.get({}) for _ in range(params)]
    by_value = {
        "llvm.byval": ir.TypeAttr.get(ir.Type.parse(f"!llvm.array<{MAP_BYTES} x i8>")),
        "llvm.align": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), MAP_ALIGN),
        "nvvm.grid_constant": ir.UnitAttr.get(),
    }
    for i in range(params - count, params):
        attrs[i] = ir.DictAttr.get(by_value)
    func.attributes["arg_attrs"] = ir.ArrayAttr.get(attrs)
