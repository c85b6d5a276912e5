"""A persistent kernel's grid-stride loop that stores into another array loads its next tile
during this one (tile-pipeline-loads; tests/ir/layout/pipeline-loads.mlir has the IR): on the
GPU, against torch at awkward sizes and grids, every output element written, and in place (the
same array for the loads and the stores)."""

from __future__ import annotations

import pytest

import tilelang as ct
from tilelang.testing.norm_kernels import persistent_rms_norm

torch = pytest.importorskip("torch")


def _rms_norm(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    xf = x.float()
    return xf * torch.rsqrt(xf.square().mean(1, keepdim=True) + 1e-6) * w.float()


@pytest.mark.gpu
@pytest.mark.parametrize("blocks", [1, 7, 200])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_persistent_rms_norm(blocks, dtype):
    m, n, rows = 301, 1000, 2  # 151 row tiles, the last one half outside; rows padded to 1024
    x = torch.randn(m, n, device="cuda", dtype=dtype)
    w = torch.randn(n, device="cuda", dtype=dtype)
    y = torch.full_like(x, float("nan"))
    ct.launch(torch.cuda.current_stream(), (blocks,), persistent_rms_norm, (x, w, y, rows, n))
    torch.cuda.synchronize()
    assert not y.isnan().any(), "every element is written"
    tol = 2e-2 if dtype == torch.bfloat16 else 1e-5
    torch.testing.assert_close(y.float(), _rms_norm(x, w), rtol=tol, atol=tol)


@pytest.mark.gpu
def test_persistent_rms_norm_in_place():
    x = torch.randn(301, 1000, device="cuda")
    w = torch.randn(1000, device="cuda")
    want = _rms_norm(x, w)
    ct.launch(torch.cuda.current_stream(), (7,), persistent_rms_norm, (x, w, x, 2, 1000))
    torch.cuda.synchronize()
    torch.testing.assert_close(x, want, rtol=1e-5, atol=1e-5)

