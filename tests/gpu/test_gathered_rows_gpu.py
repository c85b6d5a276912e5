"""Matrix products whose A operand is gathered by rows in the K loop (a mixture of experts'
tokens) read A from the ring's stages, copied by cp.async row by row
(passes/staged_loops.GatheredRows): on the GPU against torch, at awkward sizes (K not a multiple
of the tile, nor of a 16-byte chunk; row indices negative or past the end, which gather zero
rows), every output element written."""

from __future__ import annotations

import pytest

import tilelang as ct
from tilelang.testing.gather_kernels import gathered_expert_matmul, gathered_matmul

torch = pytest.importorskip("torch")


def _rows(count: int, height: int) -> torch.Tensor:
    """Random row indices into `height` rows, some negative and some past the end."""
    rows = torch.randint(0, height, (count,), device="cuda", dtype=torch.int32)
    rows[::7] = -1 - rows[::7] % 3
    rows[3::11] = height + rows[3::11] % 5
    return rows


def _gathered(x: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
    inside = (rows >= 0) & (rows < x.shape[0])
    return torch.where(inside[:, None], x[rows.clamp(0, x.shape[0] - 1).long()].float(), 0.0)


@pytest.mark.gpu
@pytest.mark.parametrize("tiles", [(128, 128, 64), (64, 64, 64), (128, 64, 128)])
@pytest.mark.parametrize("k", [196, 32, 1000])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_gathered_matmul(tiles, k, dtype):
    tm, tn, tk = tiles
    m, n, height = 300, 200, 257
    storage = torch.randn(height, 1024, device="cuda", dtype=dtype)
    x = storage[:, :k]  # rows 2 KB apart, K not a multiple of 8 at 196 (a partial chunk)
    w = torch.randn(k, n, device="cuda", dtype=dtype)
    rows = _rows(m, height)
    out = torch.full((m, n), float("nan"), device="cuda", dtype=dtype)
    grid = ((m + tm - 1) // tm, (n + tn - 1) // tn)
    ct.launch(torch.cuda.current_stream(), grid, gathered_matmul, (x, w, out, rows, tm, tn, tk))
    torch.cuda.synchronize()
    assert not out.isnan().any(), "every element is written"
    want = _gathered(x, rows) @ w.float()
    torch.testing.assert_close(out.float(), want, rtol=2e-2, atol=2e-2 * k ** 0.5)


@pytest.mark.gpu
@pytest.mark.parametrize("k", [2048, 32])
def test_gathered_expert_matmul(k):
    """MoE's product: each block's rows all of one expert, weights (E, N, K) read transposed,
    padded rows (index past the end) neither read nor written."""
    tokens, n, experts, tm, tn, tk = 333, 192, 5, 128, 128, 64
    x = torch.randn(tokens, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(experts, n, k, device="cuda", dtype=torch.bfloat16) / k ** 0.5
    choice = torch.randint(0, experts, (tokens,), device="cuda")
    rows, owners = [], []
    for e in range(experts):
        mine = (choice == e).nonzero().flatten().int()
        pad = -len(mine) % tm
        rows.append(torch.cat([mine, torch.full((pad,), tokens, device="cuda",
                                                dtype=torch.int32)]))
        owners += [e] * ((len(mine) + pad) // tm)
    rows_t = torch.cat(rows)
    experts_t = torch.tensor(owners, device="cuda", dtype=torch.int32)
    out = torch.full((tokens, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    grid = (len(owners), (n + tn - 1) // tn)
    ct.launch(torch.cuda.current_stream(), grid, gathered_expert_matmul,
              (x, w, out, rows_t, experts_t, tm, tn, tk))
    torch.cuda.synchronize()
    assert not out.isnan().any(), "every token's row is written"
    want = torch.einsum("tk,tnk->tn", x.float(), w[choice].float())
    torch.testing.assert_close(out.float(), want, rtol=2e-2, atol=2e-2)
