"""An A operand computed before a staged loop is written to shared memory once from its
registers and read by wgmma through descriptors (passes/staged_loops.py, simt/staged_loop.py):
flash attention with the query scaled before a key loop that branches to mask its last blocks
(the spelling that ran on mma.sync before, as ptxas reused held registers), on the TMA ring
with and without a producer warpgroup and on cp.async; and a tile computed by a product before
the loop (the accumulator's layout written). Against float64 torch on fresh random data of
awkward lengths, every output element written (outputs start as NaN)."""

from __future__ import annotations

import math

import pytest

import tilelang as ct
from tilelang.testing.scaled_query import scaled_query_attention

torch = pytest.importorskip("torch")


def reference(q, k, v, causal):
    q, k, v = (x.double() for x in (q, k, v))
    s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if causal:  # top-left aligned
        keep = torch.ones(s.shape[-2:], dtype=torch.bool, device=s.device).tril()
        s = s.masked_fill(~keep, -math.inf)
    return torch.softmax(s, dim=-1) @ v


@pytest.mark.gpu
@pytest.mark.parametrize("path", ["specialized", "tma", "cp.async"])
@pytest.mark.parametrize(("bm", "bn", "warps", "d"),
                         [(128, 128, 8, 128), (128, 64, 8, 64), (64, 64, 4, 128),
                          (128, 64, 4, 64)])
@pytest.mark.parametrize(("seq_q", "seq_k", "causal"),
                         [(300, 300, True), (129, 517, False), (1, 1000, False)])
def test_scaled_query(monkeypatch, tmp_path, path, bm, bn, warps, d, seq_q, seq_k, causal):
    monkeypatch.setenv("TILELANG_TMA", "0" if path == "cp.async" else "1")
    monkeypatch.setenv("TILELANG_WARP_SPECIALIZE", "1" if path == "specialized" else "0")
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(tmp_path))
    heads = 5
    q = torch.randn(heads, seq_q, d, device="cuda", dtype=torch.bfloat16)
    k, v = (torch.randn(heads, seq_k, d, device="cuda", dtype=torch.bfloat16)
            for _ in range(2))
    out = torch.full_like(q, float("nan"))
    kernel = scaled_query_attention.replace_hints(num_warps=warps)
    args = (q, k, v, out, 1 / math.sqrt(d), bm, bn, d, causal)
    ct.launch(torch.cuda.current_stream(), (heads, ct.cdiv(seq_q, bm)), kernel, args)
    torch.cuda.synchronize()
    assert not out.isnan().any(), "every element is written"
    torch.testing.assert_close(out.double(), reference(q, k, v, causal), rtol=1e-2, atol=1e-2)
    ptx = ct.compile(kernel, args).ptx
    assert "mma.sync" not in ptx and "wgmma.mma_async" in ptx


@ct.kernel
def product_then_loop(x, w1, w2, out, K1: ct.Constant[int], N1: ct.Constant[int],
                      BK: ct.Constant[int], N: ct.Constant[int]):
    """out[rows] = (x[rows] @ w1).astype(bf16) @ sum_j w2_j, the second product's partial
    sums doubled at block 1: h (BM x N1) comes from a product before the loop."""
    block = ct.bid(0)
    BM = 128
    a = ct.load(x, index=(block, 0), shape=(BM, K1), padding_mode=ct.PaddingMode.ZERO)
    h = ct.mma(a, ct.load(w1, index=(0, 0), shape=(K1, N1)),
               ct.zeros((BM, N1), ct.float32)).astype(x.dtype)
    acc = ct.zeros((BM, N), ct.float32)
    for j in range(ct.num_tiles(w2, 0, (N1, N))):
        acc = ct.mma(h, ct.load(w2, index=(j, 0), shape=(N1, N)), acc)
        if j == 1:
            acc = acc * 2.0
    ct.store(out, index=(block, 0), tile=acc)


@pytest.mark.gpu
@pytest.mark.parametrize("warps", [4, 8])
@pytest.mark.parametrize(("n1", "n"), [(64, 128), (128, 64)])
def test_a_product_written_once(warps, n1, n):
    rows, k1, blocks = 333, 64, 5
    x = torch.randn(rows, k1, device="cuda", dtype=torch.bfloat16)
    w1 = torch.randn(k1, n1, device="cuda", dtype=torch.bfloat16) / 8
    w2 = torch.randn(blocks * n1, n, device="cuda", dtype=torch.bfloat16) / 8
    out = torch.full((rows, n), float("nan"), device="cuda")
    kernel = product_then_loop.replace_hints(num_warps=warps)
    args = (x, w1, w2, out, k1, n1, 16, n)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(rows, 128),), kernel, args)
    torch.cuda.synchronize()
    h = (x.float() @ w1.float()).bfloat16().double()
    parts = [h @ w2[j * n1:(j + 1) * n1].double() for j in range(blocks)]
    want = (parts[0] + parts[1]) * 2 + sum(parts[2:])
    assert not out.isnan().any(), "every element is written"
    torch.testing.assert_close(out.double(), want, rtol=2e-2, atol=2e-2)
    report = str(ct.explain(kernel, args))
    assert "A written there once, before the loop, from its registers" in report
