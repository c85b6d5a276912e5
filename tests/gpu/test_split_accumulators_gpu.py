"""Products whose accumulator is too large for the registers, computed in column blocks one
after the other (passes/split_accumulators.py): results against a float64 product on fresh
random data of awkward sizes (not multiples of the tiles), every output element written (the
output starts as NaN), on wgmma (sm_90) and on mma.sync (the sm_80 path on this device)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

import tilelang as ct
from tilelang.testing.kernels import make_batched_matmul, make_linear, make_matmul

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.gpu

ENGINES = {"sm_90": "wgmma.mma_async", "sm_80": "mma.sync"}
# (BM, BN, BK, warps): 256 and 256 accumulator values a thread before the split
TILES = [(256, 256, 64, 8), (128, 256, 32, 4)]


@pytest.fixture(params=sorted(ENGINES))
def arch(request, monkeypatch):
    monkeypatch.setenv("TILELANG_ARCH", request.param)
    return request.param


def check(c, a, b, bias=None):
    want = a.double() @ b.double() + (0 if bias is None else bias.double())
    size = a.double().abs() @ b.double().abs()
    bound = 2 * (a.shape[-1] + 2) * 2.0**-22 * size + 1e-30
    assert not c.isnan().any(), "every element is written"
    bad = ((c.double() - want).abs() > bound).sum().item()
    assert bad == 0, f"{bad} of {c.numel()} elements differ"


def split_and_engine(kernel, args, arch):
    text = str(ct.explain(kernel, args, arch=arch))
    assert "accumulator is computed in 2 blocks" in text, text
    assert ENGINES[arch] in ct.compile(kernel, args, arch=arch).ptx


@pytest.mark.parametrize("tile", TILES, ids=lambda t: "x".join(map(str, t)))
@pytest.mark.parametrize(("m", "n", "k"), [(300, 520, 1000), (129, 264, 200)])
def test_split_gemm(arch, tile, m, n, k):
    bm, bn, bk, warps = tile
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    c = torch.full((m, n), float("nan"), device="cuda")
    kernel, args = make_matmul(warps), (a, b, c, bm, bn, bk)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, bm), ct.cdiv(n, bn)), kernel, args)
    torch.cuda.synchronize()
    check(c, a, b)
    split_and_engine(kernel, args, arch)


def test_split_linear_with_k_major_weights(arch):
    """y = x @ w.T, w (N, K): the column block is a block of w's rows (through the
    transpose)."""
    m, n, k = 300, 520, 720  # rows of 16-byte multiples (else mma.sync from registers)
    x = torch.randn(m, k, device="cuda", dtype=torch.float16)
    w = torch.randn(n, k, device="cuda", dtype=torch.float16)
    y = torch.full((m, n), float("nan"), device="cuda")
    kernel, args = make_linear(8), (x, w, y, 256, 256, 64)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, 256), ct.cdiv(n, 256)), kernel, args)
    torch.cuda.synchronize()
    check(y, x, w.T)
    split_and_engine(kernel, args, arch)


def test_split_batched_gemm(arch):
    """3-d tiles reshaped to 2-d and back for the store (cuTile's batch_matmul spelling)."""
    batch, m, n, k = 3, 300, 264, 500
    a = torch.randn(batch, m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(batch, k, n, device="cuda", dtype=torch.float16)
    c = torch.full((batch, m, n), float("nan"), device="cuda")
    kernel, args = make_batched_matmul(8), (a, b, c, 256, 256, 64)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, 256), ct.cdiv(n, 256), batch), kernel,
              args)
    torch.cuda.synchronize()
    for z in range(batch):
        check(c[z], a[z], b[z])
    split_and_engine(kernel, args, arch)


def test_split_epilogue_with_a_bias_row(arch):
    """samples/gemm.py's GEMM + bias + GELU at 256x256: the bias row is loaded a column block
    at a time, beside its block of the product."""
    sys.path.insert(0, str(Path(__file__).parents[2] / "samples"))
    import gemm

    m, n, k = 257, 296, 336
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16) / math.sqrt(k)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    bias = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    out = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    args = (a, b, bias, out, 256, 256, 32)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, 256), ct.cdiv(n, 256)),
              gemm.gemm_bias_gelu, args)
    torch.cuda.synchronize()
    assert not out.isnan().any(), "every element is written"
    want = gemm.reference(*(t.float().cpu().numpy() for t in (a, b, bias)))
    torch.testing.assert_close(out.double().cpu(), torch.from_numpy(want), rtol=1e-2, atol=1e-2)
    split_and_engine(gemm.gemm_bias_gelu, args, arch)
