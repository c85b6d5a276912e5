"""A grouped GEMM whose K loop's arrays are picked at run time from lists (`As[g]`) runs its
TMA ring with the picked element's tensor map: on the GPU against torch, groups of awkward
sizes (no dimension a multiple of the tile), every output element written."""

from __future__ import annotations

import pytest

import tilelang as ct
from tilelang.testing.gather_kernels import grouped_matmul

torch = pytest.importorskip("torch")


@pytest.mark.gpu
@pytest.mark.parametrize("tiles", [(128, 128, 64), (64, 64, 64), (128, 256, 64)])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_grouped_matmul_picks_each_group_s_tensor_maps(tiles, dtype):
    tm, tn, tk = tiles
    shapes = [(200, 136, 72), (64, 296, 128), (333, 64, 200), (1, 8, 1000)]
    As = [torch.randn(m, k, device="cuda", dtype=dtype) for m, _, k in shapes]
    Bs = [torch.randn(k, n, device="cuda", dtype=dtype) / k ** 0.5 for _, n, k in shapes]
    Cs = [torch.full((m, n), float("nan"), device="cuda", dtype=dtype) for m, n, _ in shapes]
    most = max(-(-m // tm) * -(-n // tn) for m, n, _ in shapes)
    ct.launch(torch.cuda.current_stream(), (most, len(shapes)), grouped_matmul,
              (As, Bs, Cs, tm, tn, tk))
    torch.cuda.synchronize()
    for a, b, c in zip(As, Bs, Cs, strict=True):
        assert not c.isnan().any(), "every element is written"
        torch.testing.assert_close(c.float(), a.float() @ b.float(), rtol=2e-2, atol=2e-2)
