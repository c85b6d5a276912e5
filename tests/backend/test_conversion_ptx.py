"""The generic layout conversion compiles to PTX that assembles, for random pairs of layouts
(the GPU tier runs them: tests/gpu/test_conversion_on_gpu.py)."""

from __future__ import annotations

import random

import pytest

from tilelang.backend.assemble import assemble
from tilelang.language import dtypes as dt
from tilelang.layout import ConversionKind, from_text, plan_conversion
from tilelang.testing.conversions import convert_kernel_ptx, random_layout, warp_local_layout


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


ROWS_A = ("shape=[64,64] register=[[0,1],[0,2],[16,0],[32,0]] lane=[[0,4],[0,8],[0,16],[0,32],"
          "[1,0]] warp=[[2,0],[4,0],[8,0]]")
ROWS_B = ("shape=[64,64] register=[[0,1],[0,2],[0,32],[32,0]] lane=[[0,4],[0,8],[1,0],[2,0],"
          "[4,0]] warp=[[8,0],[16,0],[0,16]]")


@pytest.mark.parametrize("dtype", [dt.float32, dt.float16, dt.int8, dt.bool_])
def test_staging_with_vectors_assembles(dtype):
    kernel = convert_kernel_ptx(from_text(ROWS_A), from_text(ROWS_B), (61, 63), dtype, 8)
    # 4 elements per access: a v4 of the element type, or one 32-bit word for bytes
    wide = "b32" if dtype.itemsize == 1 else "v4"
    assert f"st.shared.{wide}" in kernel.ptx and f"ld.shared.{wide}" in kernel.ptx
    assert kernel.shared_bytes == 64 * 64 * max(1, dtype.itemsize)
    cubin, log = assemble(kernel.ptx, "sm_90")
    assert cubin, log


@pytest.mark.parametrize("seed", range(4))
def test_in_warp_conversion_uses_shuffles_not_shared_memory(seed):
    rng = random.Random(seed)
    a = random_layout(rng, (32, 32), 4)
    b = warp_local_layout(rng, a, lanes_from_lanes=seed % 2 == 0)
    plan = plan_conversion(a, b)
    kernel = convert_kernel_ptx(a, b, (30, 31), dt.float32, 4)
    if plan.kind is ConversionKind.WARP_SHUFFLE:
        assert "shfl.sync.idx" in kernel.ptx and kernel.shared_bytes == 0
    cubin, log = assemble(kernel.ptx, "sm_90")
    assert cubin, log
