"""Products of column-major operands (PyTorch's `w.t()`, `x.t()`) read through row-major views
(passes/row_major_views.py, TILELANG_ROW_MAJOR_VIEWS=1) and staged: against a float64 product
on fresh random data of awkward sizes, every output element written (the output starts as
NaN), on wgmma (sm_90) and on ldmatrix + mma.sync (the sm_80 path on this device)."""

from __future__ import annotations

import pytest

import tilelang as ct
from tests.gpu.test_wgmma import FP8_UNIT, assert_native, check
from tilelang.testing.kernels import make_matmul

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.gpu

KERNELS = {4: make_matmul(4), 8: make_matmul(8)}


@pytest.fixture(autouse=True)
def views_on(monkeypatch):
    monkeypatch.setenv("TILELANG_ROW_MAJOR_VIEWS", "1")


@pytest.fixture(params=["sm_90", "sm_80"])
def arch(request, monkeypatch):
    monkeypatch.setenv("TILELANG_ARCH", request.param)
    return request.param


def column_major(rows: int, cols: int, dtype) -> torch.Tensor:
    """A (rows, cols) tensor whose first dimension is the contiguous one (`t.t()`)."""
    return (torch.randn(cols, rows, device="cuda") * 2).to(dtype).t()


def run(a, b, tile, out_dtype=torch.float32):
    bm, bn, bk, warps = tile
    m, n = a.shape[0], b.shape[1]
    c = torch.full((m, n), float("nan"), device="cuda", dtype=out_dtype)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, bm), ct.cdiv(n, bn)), KERNELS[warps],
              (a, b, c, bm, bn, bk))
    torch.cuda.synchronize()
    return c


@pytest.mark.parametrize("tma", ["1", "0"])  # TMA stores of C, or none
@pytest.mark.parametrize("tile", [(128, 256, 64, 8), (128, 128, 64, 8), (64, 128, 64, 4)],
                         ids=lambda t: "x".join(map(str, t)))
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize(("m", "n", "k"), [(300, 520, 1000), (129, 264, 200)])
def test_column_major_b(monkeypatch, arch, tma, tile, dtype, m, n, k):
    monkeypatch.setenv("TILELANG_TMA", tma)
    a = torch.randn(m, k, device="cuda").to(dtype)
    b = column_major(k, n, dtype)
    assert b.stride() == (1, k)
    check(run(a, b, tile), a, b)


@pytest.mark.parametrize("tma", ["1", "0"])
@pytest.mark.parametrize("tile", [(128, 256, 64, 8), (128, 128, 64, 8), (64, 128, 64, 4)],
                         ids=lambda t: "x".join(map(str, t)))
@pytest.mark.parametrize("b_column_major", [False, True])
@pytest.mark.parametrize(("m", "n", "k"), [(296, 520, 1000), (136, 264, 200)])
def test_column_major_a(monkeypatch, arch, b_column_major, m, n, k, tile, tma):
    """A column-major A (`x.t()`, a weight gradient's `dy.t()`): on sm_90 a staged K loop whose
    A stages are M-major, read by wgmma transposed (M = 296 and 136: rows of 16-byte multiples,
    partial tiles); on sm_80 the same loop on mma.sync, its A stages read by ldmatrix.trans."""
    monkeypatch.setenv("TILELANG_TMA", tma)
    a = column_major(m, k, torch.bfloat16)
    b = column_major(k, n, torch.bfloat16) if b_column_major else \
        torch.randn(k, n, device="cuda").to(torch.bfloat16)
    check(run(a, b, tile), a, b)


@pytest.mark.parametrize("tile", [(128, 128, 128, 8), (64, 128, 128, 4)],
                         ids=lambda t: "x".join(map(str, t)))
def test_fp8_column_major_b_is_read_k_major(tile):
    """8-bit B given as `w.t()` is K-major already: no transpose in shared memory."""
    m, n, k = 300, 272, 1008
    a = (torch.randn(m, k, device="cuda") * 4).to(torch.float8_e4m3fn)
    b = column_major(k, n, torch.float8_e4m3fn)
    c = run(a, b, tile)
    check(c, a.float(), b.float(), unit=FP8_UNIT)


def test_the_c_launcher_maps_the_view(monkeypatch):
    """The C hot path encodes a view's map itself (runtime/native/launch.c: byte 3 of the map's
    plan names the axis exchanged with the last): after the first launch registered it, launches
    of other column-major arrays through the same specialization never reach Python, and each is
    right. A kernel of its own: its C entry is the last one a launch registered."""
    monkeypatch.setenv("TILELANG_ARCH", "sm_90")
    monkeypatch.setitem(KERNELS, 8, make_matmul(8))
    kernel, tile = KERNELS[8], (128, 128, 64, 8)
    cases = [(torch.randn(300, 1000, device="cuda").bfloat16(), column_major(1000, 264,
                                                                                torch.bfloat16)),
             (torch.randn(77, 136, device="cuda").bfloat16(), column_major(136, 520,
                                                                              torch.bfloat16))]
    for a, b in cases:
        check(run(a, b, tile), a, b)
    entry = kernel.native_entry
    assert entry is not None  # b's map: its axis 0 exchanged with the last, the others as given
    assert sorted(entry[6][3::8]) == [0] * (len(entry[6]) // 8 - 1) + [1]
    assert_native(kernel, lambda: [check(run(a, b, tile), a, b) for a, b in [*cases, cases[0]]])


@pytest.mark.parametrize("tile", [(128, 256, 64, 8), (64, 128, 64, 4)],
                         ids=lambda t: "x".join(map(str, t)))
def test_transposed_a_tile(arch, tile):
    """`ct.transpose` of A's (BK, BM) tiles of a row-major (K, M) array: the same M-major
    staged K loop on sm_90 and on sm_80."""
    from tilelang.testing.kernels import make_transposed_a_matmul

    m, n, k = 296, 264, 200
    at = torch.randn(k, m, device="cuda").bfloat16()
    b = torch.randn(k, n, device="cuda").bfloat16()
    bm, bn, bk, warps = tile
    c = torch.full((m, n), float("nan"), device="cuda")
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, bm), ct.cdiv(n, bn)),
              make_transposed_a_matmul(warps), (at, b, c, bm, bn, bk))
    torch.cuda.synchronize()
    check(c, at.t(), b)


@pytest.mark.parametrize("tile", [(128, 128, 64), (128, 256, 64)],
                         ids=lambda t: "x".join(map(str, t)))
def test_persistent_gemm_of_column_major_operands(tile):
    """A and B both column-major in a persistent GEMM: the producer warpgroup (at 128x128)
    takes both views' tensor maps at the kernel's entry and replays the tile loop."""
    from tilelang.testing.kernels import make_persistent_matmul

    m, n, k = 296, 520, 328
    a, b = column_major(m, k, torch.bfloat16), column_major(k, n, torch.bfloat16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    ct.launch(torch.cuda.current_stream(), (7,), make_persistent_matmul(8), (a, b, c, *tile, 8))
    torch.cuda.synchronize()
    assert not c.isnan().any(), "every element is written"
    torch.testing.assert_close(c.double(), a.double() @ b.double(), rtol=1e-2, atol=5e-2)
