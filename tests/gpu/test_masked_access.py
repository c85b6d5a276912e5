"""Edge tiles on the GPU: elements outside the array read the padding value and are not
written, for every element width (the element-wise path is one predicated load or store per
element: tests/backend/test_ptx_masked_access.py)."""

from __future__ import annotations

import pytest

import tilelang as ct

torch = pytest.importorskip("torch")

BM, BN = 16, 32
ROWS, COLS = 37, 45  # neither a multiple of the tile
PADS = {"zero": 0.0, "nan": float("nan"), "neg_inf": float("-inf")}


def _copy_kernel(mode: ct.PaddingMode) -> ct.Kernel:
    @ct.kernel
    def edge_copy(x, y, z, BM: ct.Constant[int], BN: ct.Constant[int]):
        i, j = ct.bid(0), ct.bid(1)
        t = ct.load(x, index=(i, j), shape=(BM, BN), padding_mode=mode)
        ct.store(y, index=(i, j), tile=t)  # y is x's shape: edge tiles store element-wise
        ct.store(z, index=(i, j), tile=t)  # z holds whole tiles: the padding shows

    return edge_copy


KERNELS = {"zero": _copy_kernel(ct.PaddingMode.ZERO), "nan": _copy_kernel(ct.PaddingMode.NAN),
           "neg_inf": _copy_kernel(ct.PaddingMode.NEG_INF)}
DTYPES = ["bool", "int8", "uint8", "float8_e4m3fn", "float16", "bfloat16", "float32", "int64",
          "float64"]


def _random(dtype: torch.dtype) -> torch.Tensor:
    if dtype == torch.bool:
        return torch.rand(ROWS, COLS, device="cuda") > 0.5
    if dtype.is_floating_point:
        return torch.randn(ROWS, COLS, device="cuda").to(dtype)
    return torch.randint(-100 if dtype.is_signed else 0, 100, (ROWS, COLS), device="cuda",
                         dtype=dtype)


def _bytes(t: torch.Tensor) -> torch.Tensor:
    return t.view(torch.uint8) if t.dtype != torch.bool else t.to(torch.uint8)


FLOATS = ("float8_e4m3fn", "float16", "bfloat16", "float32", "float64")
CASES = [(name, "zero") for name in DTYPES] + [(name, "nan") for name in FLOATS] + \
    [(name, "neg_inf") for name in FLOATS if name != "float8_e4m3fn"]  # e4m3 has no infinity


@pytest.mark.parametrize(("name", "pad"), CASES)
def test_edge_tiles_pad_and_mask(name, pad):
    """Infinities and NaN pad floats only."""
    dtype = getattr(torch, name)
    x = _random(dtype)
    grid = (ct.cdiv(ROWS, BM), ct.cdiv(COLS, BN))
    z = torch.zeros(grid[0] * BM, grid[1] * BN, device="cuda").to(dtype)
    guard = torch.ones(ROWS + 1, COLS, device="cuda").to(dtype)  # y's row below the array
    y = guard[:ROWS]
    ct.launch(None, grid, KERNELS[pad], (x, y, z, BM, BN))
    torch.cuda.synchronize()
    expected = torch.full(z.shape, PADS[pad], device="cuda").to(dtype)
    expected[:ROWS, :COLS] = x
    if pad == "nan":  # any NaN pads (the GPU's conversions make 0x7fff, the constant 0x7e00)
        assert torch.equal(z.isnan(), expected.isnan())
        z, expected = z[:ROWS, :COLS], expected[:ROWS, :COLS]
    assert torch.equal(_bytes(z), _bytes(expected))  # bit for bit
    assert torch.equal(_bytes(y), _bytes(x))
    assert torch.equal(_bytes(guard[ROWS]), _bytes(torch.ones(COLS, device="cuda").to(dtype)))
