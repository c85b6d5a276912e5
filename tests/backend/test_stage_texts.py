"""CompiledKernel.asm holds the text of every stage reached (printed on first read from a copy
of the module), and a stage that fails leaves a reproducer of the module before it."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import mlir.ir as ir
import numpy as np
import pytest

import tilelang as ct
from tilelang.errors import TileCompilerExecutionError, TileInternalError
from tilelang.passes import register_pass

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "samples"))
from vector_add import vector_add

X = np.zeros(1000, np.float32)
ARGS = (X, X, X, 256)


def test_every_stage_text():
    compiled = ct.compile(vector_add, ARGS)
    assert list(compiled.asm) == ["source", "tile", "tile-opt", "layout", "simt", "llvm", "ptx",
                                  "cubin"]
    assert all(isinstance(compiled.asm[s], str) for s in compiled.stages[:-1])
    cubin = compiled.asm["cubin"]  # assembled now (nvJitLink, else ptxas), or None without
    assert cubin is None or (cubin[:4] == b"\x7fELF" and compiled.cubin is cubin)
    assert "cubin" not in ct.compile(vector_add, ARGS, stop_after="ptx").asm
    assert "tile.load" in compiled.asm["tile"] and "#tile.layout" in compiled.asm["layout"]
    assert "gpu.func @vector_add" in compiled.asm["simt"]
    assert "llvm.func @vector_add" in compiled.asm["llvm"]
    assert compiled.asm["simt"] is compiled.asm["simt"]  # printed once
    assert compiled.asm["ptx"] == compiled.ptx
    assert dict(compiled.asm)["tile-opt"] == compiled.asm["tile-opt"]


@register_pass("tile-break-on-purpose")
def _break_verifier(module: ir.Operation, options: object) -> None:
    """Gives the kernel a signature its arguments do not match: the verifier rejects it."""
    kernel = next(op for op in module.regions[0].blocks[0].operations
                  if op.operation.name == "func.func")
    kernel.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get([], []))


@register_pass("tile-raise-on-purpose")
def _raise(module: ir.Operation, options: object) -> None:
    raise RuntimeError("a bug in a pass")


@pytest.mark.parametrize("stage,error", [("layout", TileCompilerExecutionError),
                                         ("tile-opt", TileInternalError)])
def test_a_failing_stage_leaves_the_module_before_it(stage, error):
    bad = "tile-break-on-purpose" if error is TileCompilerExecutionError else \
        "tile-raise-on-purpose"
    with pytest.raises(error) as caught:
        ct.compile(vector_add, ARGS, extra_passes={stage: bad})
    assert f"in stage {stage}" in str(caught.value)
    repro = Path(re.search(r"tilelang-opt -p '[^']*' (\S+)", caught.value.hint).group(1))
    before = ct.compile(vector_add, ARGS, stop_after={"layout": "tile-opt",
                                                      "tile-opt": "tile"}[stage])
    text = repro.read_text()
    assert "loc(" in text  # with the user's locations
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        printed = ir.Module.parse(text).operation.get_asm(enable_debug_info=False)
    assert printed == before.asm[before.stages[-1]]


@register_pass("tile-value-error-on-purpose")
def _value_error(module: ir.Operation, options: object) -> None:
    raise ValueError("a bug in a pass that happens to be a ValueError")


def test_a_value_error_inside_a_pass_is_an_internal_error_not_a_bad_pipeline():
    """(cuTile's grouped GEMM once met one in the simt stage, and read 'bad pipeline')."""
    with pytest.raises(TileInternalError, match="internal compiler error in stage layout: "
                                                "ValueError: a bug in a pass") as caught:
        ct.compile(vector_add, ARGS, extra_passes={"layout": "tile-value-error-on-purpose"})
    assert "reproduce with: tilelang-opt" in caught.value.hint
    with pytest.raises(ct.TileValueError, match="bad pipeline for stage layout"):
        ct.compile(vector_add, ARGS, extra_passes={"layout": "tile-value-error-on-purpose{x=1}"})
    with pytest.raises(ct.TileValueError, match="bad pipeline for stage llvm"):
        ct.compile(vector_add, ARGS, extra_passes={"llvm": "no-such-upstream-pass"})
