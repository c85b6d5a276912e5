"""TILELANG_ARCH=sm_80 on a newer GPU: the sm_80 code path (mma.sync, ldmatrix, no Hopper
instructions) compiles for sm_80, assembles for the device, and computes the same results."""

from __future__ import annotations

import pytest

import tilelang as ct
from tilelang.testing.kernels import make_matmul

torch = pytest.importorskip("torch")


def test_the_sm80_path_runs_on_this_device(monkeypatch):
    monkeypatch.setenv("TILELANG_ARCH", "sm_80")
    m, n, k = 200, 136, 175
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    c = torch.full((m, n), float("nan"), device="cuda")
    kernel = make_matmul()
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, 64), ct.cdiv(n, 64)), kernel,
              (a, b, c, 64, 64, 32))
    torch.cuda.synchronize()
    torch.testing.assert_close(c, a.float() @ b.float(), rtol=1e-4, atol=1e-4)
    ptx = ct.compile(kernel, (a, b, c, 64, 64, 32), arch="sm_80").ptx
    assert ".target sm_80" in ptx and "mma.sync" in ptx and "ldmatrix" in ptx
