"""Chunk loops of one iteration run as their body and load each tile once
(tests/backend/test_single_iterations.py checks the IR); on the GPU, against torch at awkward
sizes, every output element written, and a load after a store to the same array (passed
twice) sees the store."""

from __future__ import annotations

import pytest

import tilelang as ct
from tilelang.testing.norm_kernels import chunked_rms_norm, reload_after_store

torch = pytest.importorskip("torch")


@pytest.mark.gpu
@pytest.mark.parametrize("chunk", [1024, 256])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_chunked_rms_norm(chunk, dtype):
    m, n, rows = 301, 1000, 2
    x = torch.randn(m, n, device="cuda", dtype=dtype)
    w = torch.randn(n, device="cuda", dtype=dtype)
    y = torch.full_like(x, float("nan"))
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, rows),), chunked_rms_norm,
              (x, w, y, n, rows, chunk))
    torch.cuda.synchronize()
    assert not y.isnan().any(), "every element is written"
    xf = x.float()
    want = xf * torch.rsqrt(xf.square().mean(1, keepdim=True) + 1e-6) * w.float()
    tol = 2e-2 if dtype == torch.bfloat16 else 1e-5
    torch.testing.assert_close(y.float(), want, rtol=tol, atol=tol)


@pytest.mark.gpu
def test_load_after_a_store_to_the_same_array():
    x = torch.randn(1000, device="cuda")
    want = 2 * x + 1
    z = torch.full_like(x, float("nan"))
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(1000, 32),), reload_after_store,
              (x, x, z, 32))  # y is x: the second load reads 2 x
    torch.cuda.synchronize()
    torch.testing.assert_close(z, want)
