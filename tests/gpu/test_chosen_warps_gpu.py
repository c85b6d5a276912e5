"""Kernels without num_warps whose tiles pass 8192 elements run on the 8 warps the compiler
chooses (tests/backend/test_chosen_warps.py): a row softmax over a 2 x 8192 tile and a
permuted 4-d tile, at awkward sizes, against torch, every output element written."""

from __future__ import annotations

import pytest

import tilelang as ct

torch = pytest.importorskip("torch")


@ct.kernel
def _softmax_rows(x, y, ROWS: ct.Constant[int], COLS: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(ROWS, COLS), padding_mode=ct.PaddingMode.NEG_INF)
    t = t.astype(ct.float32)
    e = ct.exp(t - ct.max(t, axis=1, keepdims=True))
    ct.store(y, index=(ct.bid(0), 0), tile=(e / ct.sum(e, axis=1, keepdims=True)).astype(y.dtype))


@ct.kernel
def _permute_blocks(x, y, A: ct.Constant[int], B: ct.Constant[int], C: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0, 0, 0), shape=(1, A, B, C))
    ct.store(y, index=(ct.bid(0), 0, 0, 0), tile=ct.permute(t, (0, 2, 3, 1)) * 3.0)


@pytest.mark.gpu
@pytest.mark.parametrize(("rows", "cols"), [(301, 7999), (5, 8192)])
def test_softmax_over_a_large_tile(rows, cols):
    x = torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16)
    y = torch.full_like(x, float("nan"))
    assert ct.compile(_softmax_rows, (x, y, 2, 8192)).options.num_warps == 8
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(rows, 2),), _softmax_rows, (x, y, 2, 8192))
    torch.cuda.synchronize()
    assert not y.isnan().any(), "every element is written"
    torch.testing.assert_close(y.float(), torch.softmax(x.float(), dim=1), rtol=1e-2, atol=1e-3)


@pytest.mark.gpu
def test_permuted_large_tile():
    x = torch.randn(7, 16, 32, 30, device="cuda")
    y = torch.full((7, 32, 30, 16), float("nan"), device="cuda")
    assert ct.compile(_permute_blocks, (x, y, 16, 32, 32)).options.num_warps == 8
    ct.launch(torch.cuda.current_stream(), (7,), _permute_blocks, (x, y, 16, 32, 32))
    torch.cuda.synchronize()
    assert not y.isnan().any(), "every element is written"
    torch.testing.assert_close(y, x.permute(0, 2, 3, 1) * 3.0)
