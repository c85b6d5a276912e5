"""Front end to PTX on the CPU for closures and dataclass instances merged by run-time control
flow (their differing parts become scf.if / scf.for results): assemble with ptxas (or
nvJitLink) for sm_80 and sm_90."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import tilelang as ct

_spec = importlib.util.spec_from_file_location(
    "merged_kernels", Path(__file__).parents[1] / "interpreter" / "test_merged_values.py")
kernels = importlib.util.module_from_spec(_spec)
sys.modules["merged_kernels"] = kernels  # its dataclass looks its module up while defined
_spec.loader.exec_module(kernels)

I32 = np.zeros(48, np.int32)
CASES = {
    "closures_by_block": (kernels.closures_by_block, (I32, I32.copy(), I32.copy())),
    "closure_in_a_loop": (kernels.closure_in_a_loop, (I32, I32.copy(), 5)),
    "dataclass_in_a_loop": (kernels.dataclass_in_a_loop, (I32, I32.copy(), 3)),
    "dataclass_by_block": (kernels.dataclass_by_block, (I32, I32.copy())),
}


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_merged_values_assemble(name: str, arch: str) -> None:
    kernel, args = CASES[name]
    compiled = ct.compile(kernel, args, arch=arch)
    assert "scf.if" in compiled.asm["tile"] or "scf.for" in compiled.asm["tile"]
    resources = compiled.resources()  # assembles with ptxas (or nvJitLink)
    assert resources.spill_stores == 0 and resources.spill_loads == 0
    assert 0 < resources.registers <= 128
