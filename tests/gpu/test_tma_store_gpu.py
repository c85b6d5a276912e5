"""TMA stores on the GPU (passes/tma_stores.py, simt/tma_store.py): a product's tile written
into swizzled boxes and stored by one thread, the hardware clipping the array's edges. Against
torch on fresh random data of awkward sizes; the output is a view into a larger NaN-filled
buffer, so every element of it must be written and nothing around it."""

from __future__ import annotations

import pytest

import tilelang as ct
from tilelang.testing.kernels import (
    make_accumulating_matmul,
    make_batched_matmul,
    make_matmul,
    make_persistent_matmul,
)

torch = pytest.importorskip("torch")
STORE = "cp.async.bulk.tensor.2d.global.shared::cta"


def rand(*shape, dtype=torch.bfloat16):
    return torch.randn(*shape, device="cuda", dtype=dtype)


def framed(m, n, dtype):
    """A NaN-filled (m + 3, n + 24) buffer and its (m, n) view at (1, 8): rows 16-byte aligned."""
    frame = torch.full((m + 3, n + 24), float("nan"), device="cuda", dtype=dtype)
    return frame, frame[1:m + 1, 8:n + 8]


def assert_framed(frame, view, want, rtol, atol):
    assert not view.isnan().any(), "every element is written"
    outside = frame.clone()
    outside[1:view.shape[0] + 1, 8:view.shape[1] + 8] = float("nan")
    assert outside.isnan().all(), "nothing outside the array is written"
    torch.testing.assert_close(view.double(), want, rtol=rtol, atol=atol)


@pytest.mark.gpu
@pytest.mark.parametrize(("c_dtype", "tile", "warps"), [
    (torch.bfloat16, (128, 256, 64), 8), (torch.float16, (64, 128, 64), 4),
    (torch.float32, (128, 128, 64), 8)])
@pytest.mark.parametrize(("m", "n", "k"), [(300, 520, 1000), (129, 1000, 72), (1, 64, 16)])
def test_gemm_stores_its_tiles_with_tma(c_dtype, tile, warps, m, n, k):
    a, b = rand(m, k), rand(k, n)
    frame, c = framed(m, n, c_dtype)
    kernel = make_matmul(warps)
    args = (a, b, c, *tile)
    # a one-row array too: its row dimension (size 1) is not taken for the contiguous one
    assert STORE in ct.compile(kernel, args, arch="sm_90").ptx
    bm, bn, _ = tile
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, bm), ct.cdiv(n, bn), 1), kernel, args)
    torch.cuda.synchronize()
    assert_framed(frame, c, a.double() @ b.double(), rtol=1e-2, atol=5e-2)


@pytest.mark.gpu
@pytest.mark.parametrize(("m", "n", "k", "blocks"), [(1000, 1000, 520, 7), (300, 520, 72, 132)])
def test_persistent_gemm_reuses_the_store_buffer_tile_after_tile(m, n, k, blocks):
    """One block stores several tiles through one buffer: each waits for the last store to
    have read it."""
    a, b = rand(m, k), rand(k, n)
    frame, c = framed(m, n, torch.bfloat16)
    kernel = make_persistent_matmul(8)
    ct.launch(torch.cuda.current_stream(), (blocks,), kernel, (a, b, c, 128, 256, 64, 8))
    torch.cuda.synchronize()
    assert_framed(frame, c, a.double() @ b.double(), rtol=1e-2, atol=5e-2)


@pytest.mark.gpu
def test_batched_tiles_are_stored_in_three_dimensional_boxes():
    a, b = rand(3, 100, 72), rand(3, 72, 200)
    c = torch.full((3, 100, 200), float("nan"), device="cuda", dtype=torch.bfloat16)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(100, 64), ct.cdiv(200, 128), 3),
              make_batched_matmul(4), (a, b, c, 64, 128, 64))
    torch.cuda.synchronize()
    assert not c.isnan().any(), "every element is written"
    torch.testing.assert_close(c.double(), a.double() @ b.double(), rtol=1e-2, atol=5e-2)


@pytest.mark.gpu
def test_an_accumulator_loaded_from_the_output():
    """c += a @ b: the accumulator starts as c's tile (converted once, before the loop), and c,
    read by the kernel, keeps plain stores."""
    m, n, k = 300, 520, 200
    a, b, c = rand(m, k), rand(k, n), rand(m, n)
    want = c.double() + a.double() @ b.double()
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, 128), ct.cdiv(n, 256), 1),
              make_accumulating_matmul(8), (a, b, c, 128, 256, 64))
    torch.cuda.synchronize()
    torch.testing.assert_close(c.double(), want, rtol=1e-2, atol=5e-2)
