"""The generic layout conversion compiles to PTX that assembles, for random pairs of layouts
(the GPU tier runs them: tests/gpu/test_conversion_on_gpu.py)."""

from __future__ import annotations

import random

import pytest

from tilelang.backend.assemble import assemble
from tilelang.language import dtypes as dt
from tilelang.testing.conversions import convert_kernel_ptx, random_layout


@pytest.mark.parametrize("seed", range(6))
def test_random_conversion_assembles(seed):
    rng = random.Random(seed)
    padded = [(32, 32), (8, 4, 16), (256,), (64, 8), (2, 2), (16, 128)][seed]
    shape = tuple(max(1, p - rng.randrange(p // 2 + 1)) for p in padded)
    warps = rng.choice([1, 2, 4, 8])
    a, b = (random_layout(rng, padded, warps) for _ in range(2))
    kernel = convert_kernel_ptx(a, b, shape, dt.float16, warps)
    assert ".entry convert" in kernel.ptx
    cubin, log = assemble(kernel.ptx, "sm_90")
    assert cubin, log
