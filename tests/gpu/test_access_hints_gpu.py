"""Access hints on the GPU: a K loop and a key loop of two products whose ring stages `latency=`
sets (3 to 8; tests/backend/test_access_hints.py checks the counts), and a K loop whose loads
or store `allow_tma=False` keeps off TMA, against torch on fresh random data of awkward sizes,
every output element written (outputs start as NaN)."""

from __future__ import annotations

import math

import pytest

import tilelang as ct
from tilelang.testing.kernels import hinted_matmul, hinted_two_products

torch = pytest.importorskip("torch")


@pytest.mark.gpu
@pytest.mark.parametrize("hints", [(1, None), (2, 5), (10, 10)])
@pytest.mark.parametrize(("m", "n", "k"), [(300, 520, 1000), (129, 200, 72)])
def test_hinted_matmul(hints, m, n, k):
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, 128), ct.cdiv(n, 128)), hinted_matmul,
              (a, b, c, *hints, None, None, 128, 128, 64))
    torch.cuda.synchronize()
    assert not c.isnan().any(), "every element is written"
    torch.testing.assert_close(c.double(), a.double() @ b.double(), rtol=1e-2, atol=5e-2)


@pytest.mark.gpu
@pytest.mark.parametrize("latency", [None, 2, 6])
def test_hinted_two_products(latency):
    q = torch.randn(2, 3, 300, 64, device="cuda", dtype=torch.bfloat16)
    k, v = (torch.randn(2, 3, 517, 64, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    out = torch.full_like(q, float("nan"))
    scale = 1 / math.sqrt(64)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(300, 64), 6), hinted_two_products,
              (q, k, v, out, scale, latency, 64, 64, 64))
    torch.cuda.synchronize()
    assert not out.isnan().any(), "every element is written"
    s = (q.double() @ k.double().transpose(-1, -2) * scale).bfloat16().double()
    torch.testing.assert_close(out.double(), s @ v.double(), rtol=2e-2, atol=0.25)


@pytest.mark.gpu
@pytest.mark.parametrize(("loads", "store"), [(False, None), (None, False), (False, False)])
def test_matmul_without_tma(loads, store):
    m, n, k = 300, 520, 1000
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, 128), ct.cdiv(n, 128)),
              hinted_matmul, (a, b, c, None, None, loads, store, 128, 128, 64))
    torch.cuda.synchronize()
    assert not c.isnan().any(), "every element is written"
    torch.testing.assert_close(c.double(), a.double() @ b.double(), rtol=1e-2, atol=5e-2)

