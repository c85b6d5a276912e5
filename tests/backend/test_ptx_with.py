"""Front end to PTX on the CPU for `with` over @contextlib.contextmanager helpers: the inlined
setup and teardown, with `break`/`continue`/`return` leaving the body at run time, assemble
with ptxas (or nvJitLink) for sm_80 and sm_90."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import tilelang as ct

_spec = importlib.util.spec_from_file_location(
    "with_kernels", Path(__file__).parents[1] / "interpreter" / "test_with_statements.py")
kernels = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(kernels)

CASES = {
    "exits_through_with": (kernels.exits_through_with,
                           (np.zeros((4, 64), np.int32), np.zeros(4, np.int32), 5)),
    "stage_and_sum": (kernels.stage_and_sum, (np.zeros(100, np.float32),
                                              np.zeros(100, np.float32),
                                              np.zeros(4, np.float32), 8.0, 32)),
}


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_with_assembles(name: str, arch: str) -> None:
    kernel, args = CASES[name]
    compiled = ct.compile(kernel, args, arch=arch)
    assert "scf.while" in compiled.asm["simt"] or name == "stage_and_sum"
    resources = compiled.resources()  # assembles with ptxas (or nvJitLink)
    assert resources.spill_stores == 0 and resources.spill_loads == 0
    assert 0 < resources.registers <= 128
