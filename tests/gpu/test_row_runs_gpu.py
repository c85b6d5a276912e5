"""Gathers and scatters of runs along the row (simt/gather.py moves each thread's run as one
vector where it lies inside the array) against torch: row indices outside the table (read as
zeros) and destinations outside the output (dropped), rows whose length is no multiple of the
tile nor of a run (partial runs at the row's end), runs that start unaligned; every element
of the destination rows written."""

from __future__ import annotations

import pytest

import tilelang as ct
from tilelang.testing.gather_kernels import row_copy

torch = pytest.importorskip("torch")

TOKENS, DIM = 16, 64


@pytest.mark.gpu
@pytest.mark.parametrize("cols, shift", [(320, 0), (300, 0), (100, 0), (320, 3)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int8])
def test_row_copy(cols, shift, dtype):
    vocab, height = 500, 400
    if dtype.is_floating_point:
        table = torch.randn(vocab, cols, device="cuda").to(dtype)
        out = torch.full((height, cols), float("nan"), device="cuda", dtype=dtype)
    else:
        table = torch.randint(-60, 60, (vocab, cols), device="cuda", dtype=dtype)
        out = torch.full((height, cols), 127, device="cuda", dtype=dtype)
    count = height + TOKENS  # 26 blocks: every output row once, 16 tokens dropped
    ids = torch.randint(-5, vocab + 5, (count,), device="cuda", dtype=torch.int32)
    dest = torch.cat([torch.randperm(height, device="cuda"),
                      torch.tensor([height + 3, -1] * (TOKENS // 2), device="cuda")]).int()
    poisoned = out.clone()
    grid = (count // TOKENS, -(-(cols - shift) // DIM))
    ct.launch(torch.cuda.current_stream(), grid, row_copy,
              (table, ids, dest, out, TOKENS, DIM, shift))
    torch.cuda.synchronize()
    inside = ((ids >= 0) & (ids < vocab))[:height, None]
    rows = table[ids[:height].clamp(0, vocab - 1).long()]
    want = poisoned.clone()
    want[dest[:height].long()] = torch.where(inside, rows * 2, torch.zeros_like(rows))
    want[:, :shift] = poisoned[:, :shift]  # columns no block covers
    assert torch.equal(out, want) if not dtype.is_floating_point else \
        torch.equal(out.isnan(), want.isnan()) and torch.equal(out.nan_to_num(), want.nan_to_num())
