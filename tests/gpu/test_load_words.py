"""Edge tiles of 16-bit arrays whose rows are aligned (an even stride) but whose extent is odd:
the masked path loads aligned pairs as words, the last one half inside (passes/simt/words.py;
the PTX: tests/backend/test_ptx_load_words.py). Elements outside read the padding."""

from __future__ import annotations

import pytest

import tilelang as ct

torch = pytest.importorskip("torch")

ROWS, COLS, STRIDE = 37, 45, 48  # odd extent, rows 16-byte aligned
BM, BN = 4, 64
PADS = {"zero": 0.0, "nan": float("nan"), "neg_inf": float("-inf")}


def _kernel(mode: ct.PaddingMode) -> ct.Kernel:
    @ct.kernel
    def padded_copy(x, z, BM: ct.Constant[int], BN: ct.Constant[int]):
        i, j = ct.bid(0), ct.bid(1)
        t = ct.load(x, index=(i, j), shape=(BM, BN), padding_mode=mode)
        ct.store(z, index=(i, j), tile=t)  # z holds whole tiles: the padding shows

    return padded_copy


KERNELS = {name: _kernel(getattr(ct.PaddingMode, name.upper())) for name in PADS}
CASES = [(d, p) for d in ("float16", "bfloat16") for p in PADS] + [("int16", "zero")]


@pytest.mark.gpu
@pytest.mark.parametrize(("name", "pad"), CASES)
def test_odd_extent_pads_the_half_word(name, pad):
    dtype = getattr(torch, name)
    if dtype.is_floating_point:
        base = torch.randn(ROWS, STRIDE, device="cuda").to(dtype)
    else:
        base = torch.randint(-100, 100, (ROWS, STRIDE), device="cuda", dtype=dtype)
    x = base[:, :COLS]  # row stride 48: 16-byte aligned rows, 45 elements each
    grid = (ct.cdiv(ROWS, BM), ct.cdiv(COLS, BN))
    z = torch.zeros(grid[0] * BM, grid[1] * BN, device="cuda", dtype=dtype)
    ct.launch(None, grid, KERNELS[pad], (x, z, BM, BN))
    torch.cuda.synchronize()
    expected = torch.full(z.shape, PADS[pad], device="cuda").to(dtype)
    expected[:ROWS, :COLS] = x
    if pad == "nan":
        assert torch.equal(z.isnan(), expected.isnan())
        z, expected = z[:ROWS, :COLS], expected[:ROWS, :COLS]
    assert torch.equal(z.view(torch.int16), expected.view(torch.int16))  # bit for bit
