"""The invariants checked between stages (passes/invariants.py) catch what they promise."""

from __future__ import annotations

import mlir.ir as ir
import pytest

from tilelang.dialect import make_context
from tilelang.errors import TileCompilerExecutionError
from tilelang.passes.invariants import check_stage

LEFTOVER_TILE_OP = """
gpu.module @k {
  gpu.func @f() kernel {
    %c = "tile.constant"() {value = 1.0 : f32} : () -> f32
    gpu.return
  }
}
"""
UNLOWERED = """
gpu.module @k {
  llvm.func @f(%a: i32) {
    %b = arith.addi %a, %a : i32
    llvm.return
  }
}
"""
LOWERED = """
gpu.module @k {
  llvm.func @f(%a: i32) {
    %b = llvm.add %a, %a : i32
    llvm.return
  }
}
"""


@pytest.mark.parametrize("stage", ["simt", "llvm"])
def test_a_tile_op_left_after_the_simt_stage(stage):
    with make_context():
        module = ir.Module.parse(LEFTOVER_TILE_OP)
        with pytest.raises(TileCompilerExecutionError, match=r"tile ops remain: tile\.constant"):
            check_stage(module, stage, verify=False)


def test_an_op_not_lowered_to_llvm():
    with make_context():
        check_stage(ir.Module.parse(UNLOWERED), "simt")  # fine before the llvm stage
        check_stage(ir.Module.parse(LOWERED), "llvm")
        with pytest.raises(TileCompilerExecutionError, match=r"not lowered to LLVM: arith\.addi"):
            check_stage(ir.Module.parse(UNLOWERED), "llvm")
