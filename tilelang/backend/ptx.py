"""Backend: PTX text out of the module `gpu-module-to-binary{format=isa}` produced."""

from __future__ import annotations

import mlir.ir as ir
from mlir.dialects import gpu

from tilelang.errors import TileCompilerExecutionError


def extract_ptx(module: ir.Module) -> str:
    for op in module.body.operations:
        if op.operation.name == "gpu.binary":
            data = gpu.ObjectAttr(op.attributes["objects"][0]).object
            return data.decode() if isinstance(data, bytes) else str(data)
    raise TileCompilerExecutionError("internal compiler error: no gpu.binary after PTX codegen")
