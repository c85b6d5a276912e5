"""The generic layout conversion on the GPU, property-tested: random pairs of linear layouts
(swizzled ones included) over random tile shapes, dtypes and warp counts; every element of the
converted tile must land where it was."""

from __future__ import annotations

import random

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from tilelang.backend.assemble import to_cubin
from tilelang.interface.specs import ArraySpec
from tilelang.language import dtypes as dt
from tilelang.layout import from_text, padded_shape
from tilelang.runtime import binary
from tilelang.runtime.launcher import Launcher
from tilelang.testing.conversions import (
    KERNEL,
    convert_kernel_ptx,
    random_layout,
    warp_local_layout,
)

DTYPES = {"float32": (dt.float32, torch.float32), "float16": (dt.float16, torch.float16),
          "int8": (dt.int8, torch.int8), "float64": (dt.float64, torch.float64)}


def run_conversion(shape: tuple[int, ...], padded: tuple[int, ...], dtype: str, num_warps: int,
                   seed: int, in_warp: bool | None = None) -> None:
    """Convert between two random layouts; with `in_warp` set, the second re-deals the first's
    elements inside each warp (the shuffle paths: True, one source register per shuffle;
    False, source registers chosen per lane)."""
    rng = random.Random(seed)
    a = random_layout(rng, padded, num_warps)
    b = random_layout(rng, padded, num_warps) if in_warp is None else \
        warp_local_layout(rng, a, in_warp)
    run_layouts(a, b, shape, dtype, num_warps)


def run_layouts(a, b, shape: tuple[int, ...], dtype: str, num_warps: int) -> None:
    ours, theirs = DTYPES[dtype]
    kernel = convert_kernel_ptx(a, b, shape, ours, num_warps)
    device = torch.cuda.current_device()
    cubin = to_cubin(kernel.ptx, "sm_90")
    loaded = binary.load(KERNEL, kernel.ptx, cubin, device, kernel.shared_bytes)
    spec = ArraySpec(ours, len(shape), (False,) * (len(shape) - 1) + (True,), ours.itemsize)
    launcher = Launcher(loaded, (spec, spec), kernel.threads)
    x = (torch.randn(shape, device="cuda") * 100).to(theirs)
    y = torch.full_like(x, -1 if theirs == torch.int8 else float("nan"))
    values = []
    for t in (x, y):
        values += [t.data_ptr(), *t.shape, *t.stride()]
    launcher(torch.cuda.current_stream().cuda_stream, 1, 1, 1, tuple(values))
    torch.cuda.synchronize()
    assert torch.equal(y, x), f"layouts {a} -> {b}, shape {shape}"


@st.composite
def cases(draw):
    ndim = draw(st.integers(1, 3))
    budget = draw(st.integers(0, 12))  # log2 of the padded tile's size
    bits = [0] * ndim
    for _ in range(budget):
        bits[draw(st.integers(0, ndim - 1))] += 1
    padded = tuple(1 << b for b in bits)
    shape = tuple(draw(st.integers(max(1, p // 2 + 1), p)) if p > 1 else 1 for p in padded)
    return (shape, padded, draw(st.sampled_from(sorted(DTYPES))),
            draw(st.sampled_from([1, 2, 4, 8])), draw(st.integers(0, 2**32)))


@settings(max_examples=60, deadline=None)
@given(cases())
def test_random_conversions_move_every_element(case):
    shape, padded, dtype, num_warps, seed = case
    assert padded_shape(shape) == padded
    run_conversion(shape, padded, dtype, num_warps, seed)


@settings(max_examples=60, deadline=None)
@given(cases(), st.booleans())
def test_random_in_warp_conversions_move_every_element(case, lanes_from_lanes):
    shape, padded, dtype, num_warps, seed = case
    run_conversion(shape, padded, dtype, num_warps, seed, in_warp=lanes_from_lanes)


# Both sides hold 4 consecutive elements per thread along the rows but split the tile over
# lanes and warps differently: staged in a swizzled buffer with vector stores and loads.
ROWS_A = ("shape=[64,64] register=[[0,1],[0,2],[16,0],[32,0]] lane=[[0,4],[0,8],[0,16],[0,32],"
          "[1,0]] warp=[[2,0],[4,0],[8,0]]")
ROWS_B = ("shape=[64,64] register=[[0,1],[0,2],[0,32],[32,0]] lane=[[0,4],[0,8],[1,0],[2,0],"
          "[4,0]] warp=[[8,0],[16,0],[0,16]]")


@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("shape", [(64, 64), (61, 63), (33, 64)])
def test_vectorized_staging(dtype, shape):
    a, b = from_text(ROWS_A), from_text(ROWS_B)
    run_layouts(a, b, shape, dtype, 8)
    run_layouts(b, a, shape, dtype, 8)


@pytest.mark.parametrize("shape", [(64, 64), (128, 32), (16, 16, 16), (4096,)])
def test_large_conversions(shape):
    run_conversion(shape, shape, "float32", 4, sum(shape))
