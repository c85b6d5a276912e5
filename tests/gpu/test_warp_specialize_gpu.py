"""Warp-specialized TMA rings on the GPU (simt/warp_specialize.py): a producer warpgroup fills
the ring, the consumer warps multiply. Against torch on fresh random data of awkward sizes
(edge tiles, K not a multiple of the tile), every output element written (the output starts as
NaN): one K loop, two loops sharing the ring, and the fallback to thread 0 filling it."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

import tilelang as ct
from tilelang.testing.kernels import make_matmul, make_persistent_matmul, make_two_products

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "samples"))
import attention  # noqa: E402


def rand(*shape):
    return torch.randn(*shape, device="cuda", dtype=torch.bfloat16)


@pytest.mark.gpu
@pytest.mark.parametrize(("tile", "warps", "m", "n", "k", "k2", "threads"), [
    ((64, 256, 64), 4, 300, 520, 1000, 200, 256),  # one ring, the producer warpgroup's
    ((128, 256, 64), 8, 300, 520, 1000, 200, 256),  # 128-register accumulators: thread 0's
    ((128, 128, 64), 8, 300, 520, 1000, 200, 256),  # no room past the column sums: thread 0's
    # K = 1: a2, its rows one element apart (a size-1 dimension is not the contiguous one), is
    # read through its row-major view (tile-row-major-views: one row of 129, M-major) and b2's
    # one row is staged: both loops whole K loops on one ring, the producer warpgroup's
    ((64, 256, 64), 4, 129, 320, 64, 1, 256),
    ((64, 256, 64), 4, 129, 300, 64, 40, 128),  # rows of b not 16-byte aligned: no TMA
    # b's rows unaligned too: the second loop alone by TMA, its 128-register accumulator
    # leaving no room for a producer (simt/warp_specialize.EPILOGUE_REGISTERS)
    ((64, 256, 64), 4, 129, 300, 64, 1, 128),
])
def test_two_loops_share_one_ring(tile, warps, m, n, k, k2, threads):
    a, b, a2, b2, bias = rand(m, k), rand(k, n), rand(m, k2), rand(k2, n), rand(m, n)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    kernel = make_two_products(warps)
    bm, bn, _ = tile
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, bm), ct.cdiv(n, bn), 1), kernel,
              (a, b, a2, b2, bias, c, *tile))
    torch.cuda.synchronize()
    assert not c.isnan().any(), "every element is written"
    want = a.double() @ b.double() + a2.double() @ b2.double()
    # each (bm, bn) tile adds the column sums of its own rows of bias
    sums = torch.zeros_like(want)
    for i in range(0, m, bm):
        sums[i:i + bm] = bias[i:i + bm].double().sum(dim=0, keepdim=True)
    torch.testing.assert_close(c.double(), want + sums, rtol=2e-3, atol=2e-2)
    compiled = ct.compile(kernel, (a, b, a2, b2, bias, c, *tile), arch="sm_90")
    assert compiled.block_threads == threads


@pytest.mark.gpu
@pytest.mark.parametrize("specialize", ["1", "0"])
@pytest.mark.parametrize(("m", "n", "k"), [(1000, 1000, 1000), (257, 4000, 72)])
def test_gemm_with_and_without_the_producer_warpgroup(monkeypatch, specialize, m, n, k):
    monkeypatch.setenv("TILELANG_WARP_SPECIALIZE", specialize)
    a, b = rand(m, k), rand(k, n)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    kernel = make_matmul(8)  # a kernel of its own: compiled under this setting
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, 128), ct.cdiv(n, 256), 1), kernel,
              (a, b, c, 128, 256, 64))
    torch.cuda.synchronize()
    assert not c.isnan().any(), "every element is written"
    torch.testing.assert_close(c.double(), a.double() @ b.double(), rtol=1e-2, atol=5e-2)


@pytest.mark.gpu
@pytest.mark.parametrize("tile", [(128, 256, 64), (128, 128, 64)])
@pytest.mark.parametrize(("m", "n", "k", "blocks"), [(1000, 1000, 1000, 7), (300, 520, 72, 132),
                                                     (129, 2000, 1000, 1)])
def test_persistent_gemm(tile, m, n, k, blocks):
    """Fewer blocks than tiles (each walks several, the ring running on across them), more
    blocks than tiles (some walk none), and one block doing everything."""
    a, b = rand(m, k), rand(k, n)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    kernel = make_persistent_matmul(8)
    ct.launch(torch.cuda.current_stream(), (blocks,), kernel, (a, b, c, *tile, 8))
    torch.cuda.synchronize()
    assert not c.isnan().any(), "every element is written"
    torch.testing.assert_close(c.double(), a.double() @ b.double(), rtol=1e-2, atol=5e-2)
    # 128x256: a 128-register accumulator, so no producer warpgroup (simt/warp_specialize.py)
    threads = 256 if tile[1] == 256 else 384
    assert ct.compile(kernel, (a, b, c, *tile, 8), arch="sm_90").block_threads == threads


@ct.kernel(num_warps=8)
def persistent_attention(q, k, v, out, scale, BM: ct.Constant[int], BN: ct.Constant[int],
                         D: ct.Constant[int]):
    """Non-causal attention with a grid of any size walking the (query block, head, batch)
    tiles: the key loop (a staged loop with q copied once per tile) inside a tile loop."""
    blocks, heads = ct.cdiv(q.shape[2], BM), q.shape[1]
    for t in range(ct.bid(0), blocks * heads * q.shape[0], ct.num_blocks(0)):
        i, head, batch = t % blocks, (t // blocks) % heads, t // (blocks * heads)
        rows = i * BM + ct.arange(BM, dtype=ct.int32)[:, None]
        x = ct.load(q, index=(batch, head, i, 0), shape=(1, 1, BM, D),
                    padding_mode=ct.PaddingMode.ZERO).reshape((BM, D))
        acc = ct.zeros((BM, D), ct.float32)
        row_max = ct.full((BM, 1), -math.inf, ct.float32)
        row_sum = ct.zeros((BM, 1), ct.float32)
        for j in range(ct.cdiv(k.shape[2], BN)):
            acc, row_max, row_sum = attention.attend(
                x, k, v, acc, row_max, row_sum, batch, head, j, rows, scale * attention.LOG2_E,
                False, True, BN)
        o = acc * (1.0 / row_sum)
        ct.store(out, index=(batch, head, i, 0), tile=o.astype(out.dtype).reshape((1, 1, BM, D)))


@pytest.mark.gpu
@pytest.mark.parametrize("blocks", [5, 200])
def test_persistent_attention(blocks):
    """A staged loop (not a whole K loop) in a tile loop: q is copied again for every tile
    (128 x 64 blocks: at 128 x 128 the ring would not keep 3 stages past q and the epilogue)."""
    q, k, v = (torch.randn(2, 3, n, 128, device="cuda", dtype=torch.bfloat16)
               for n in (300, 517, 517))
    out = torch.full_like(q, float("nan"))
    scale = 1 / math.sqrt(128)
    ct.launch(torch.cuda.current_stream(), (blocks,), persistent_attention,
              (q, k, v, out, scale, 128, 64, 128))
    torch.cuda.synchronize()
    assert not out.isnan().any(), "every element is written"
    s = q.double() @ k.double().transpose(-1, -2) * scale
    torch.testing.assert_close(out.double(), torch.softmax(s, -1) @ v.double(),
                               rtol=1e-2, atol=1e-2)
    compiled = ct.compile(persistent_attention, (q, k, v, out, scale, 128, 64, 128),
                          arch="sm_90")
    assert compiled.block_threads == 384


@ct.kernel(num_warps=4, occupancy=2)
def gemm_bias_gelu(a, b, bias, c, BM: ct.Constant[int], BN: ct.Constant[int],
                   BK: ct.Constant[int]):
    """A GEMM with an epilogue at two blocks an SM: one block's epilogue can run beside the
    other's K loop."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, 1, (BM, BK))):
        x = ct.load(a, (i, k), (BM, BK), padding_mode=ct.PaddingMode.ZERO)
        w = ct.load(b, (k, j), (BK, BN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(x, w, acc)
    x = acc + ct.load(bias, (j,), (BN,), padding_mode=ct.PaddingMode.ZERO)[None, :]
    y = 0.5 * x * (1.0 + ct.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
    ct.store(c, (i, j), y.astype(c.dtype))


@pytest.mark.gpu
@pytest.mark.parametrize("warps", [4, 8])
@pytest.mark.parametrize(("m", "n", "k"), [(1000, 1000, 1000), (257, 304, 72), (129, 520, 64)])
def test_two_blocks_an_sm_with_a_producer_warp(warps, m, n, k):
    """At occupancy 2 the producer is one warp (no setmaxnreg: 9 or 5 warps a block), and two
    blocks share an SM's shared memory and registers."""
    a, b, bias = rand(m, k), rand(k, n) / 8, rand(n)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    kernel = gemm_bias_gelu.replace_hints(num_warps=warps)
    args = (a, b, bias, c, 128, 128, 64)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, 128), ct.cdiv(n, 128)), kernel, args)
    torch.cuda.synchronize()
    assert not c.isnan().any(), "every element is written"
    x = a.double() @ b.double() + bias.double()
    want = 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    torch.testing.assert_close(c.double(), want, rtol=2e-2, atol=2e-2)
    compiled = ct.compile(kernel, args, arch="sm_90")
    assert compiled.block_threads == 32 * (warps + 1)
    assert compiled.resources().blocks_per_sm == 2
