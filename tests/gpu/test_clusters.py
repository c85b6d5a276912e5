"""Clusters of two blocks sharing a K loop's operand tiles by TMA multicast
(passes/pair_blocks.py, simt/cluster.py): neighbours along x that share B, that share A, and
that share nothing (the run-time check must refuse), with the grid's x extent even (launched
as clusters) and odd (launched as single blocks, the same PTX); 16-bit and 8-bit operands, B
given (K, N) and (N, K). Results against a float64 product on fresh random data of awkward
sizes, every output element written (the output starts as NaN)."""

from __future__ import annotations

import pytest

import tilelang as ct

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.gpu


@ct.kernel(num_warps=8)
def rows_first(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    """Neighbours along x compute tiles of one column: they share B."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
        x = ct.load(a, (i, k), (BM, BK), padding_mode=ct.PaddingMode.ZERO)
        y = ct.load(b, (k, j), (BK, BN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(x, y, acc)
    ct.store(c, (i, j), acc.astype(c.dtype))


@ct.kernel(num_warps=8)
def columns_first(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    """Neighbours along x compute tiles of one row: they share A."""
    j, i = ct.bid(0), ct.bid(1)
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
        x = ct.load(a, (i, k), (BM, BK), padding_mode=ct.PaddingMode.ZERO)
        y = ct.load(b, (k, j), (BK, BN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(x, y, acc)
    ct.store(c, (i, j), acc.astype(c.dtype))


@ct.kernel(num_warps=8)
def diagonal(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    """A 1-d grid walked so that neighbours differ in both tile indices: nothing shared."""
    t = ct.bid(0)
    rows = ct.num_tiles(c, axis=0, shape=(BM, BN))
    cols = ct.num_tiles(c, axis=1, shape=(BM, BN))
    i = t % rows
    j = (t // rows + t) % cols
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
        x = ct.load(a, (i, k), (BM, BK), padding_mode=ct.PaddingMode.ZERO)
        y = ct.load(b, (k, j), (BK, BN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(x, y, acc)
    ct.store(c, (i, j), acc.astype(c.dtype))


@ct.kernel(num_warps=8)
def linear_rows_first(x, w, y, BM: ct.Constant[int], BN: ct.Constant[int],
                      BK: ct.Constant[int]):
    """y = x @ w.T with w given (N, K), its tiles read K-major (float8's layout)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(x, axis=1, shape=(BM, BK))):
        a = ct.load(x, (i, k), (BM, BK), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(w, (j, k), (BN, BK), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, ct.transpose(b), acc)
    ct.store(y, (i, j), acc.astype(y.dtype))


def _grid(kernel, m, n, bm, bn):
    rows, cols = ct.cdiv(m, bm), ct.cdiv(n, bn)
    if kernel is diagonal:
        return (rows * cols, 1, 1)
    return (rows, cols, 1) if kernel is not columns_first else (cols, rows, 1)


def check(c, a, b, unit):
    want = a.double() @ b.double()
    size = a.double().abs() @ b.double().abs()
    assert not torch.isnan(c).any(), "an output element was not written"
    bound = unit * a.shape[1] * size + 1e-6
    assert ((c.double() - want).abs() <= bound).all()


@pytest.mark.parametrize("kernel", [rows_first, columns_first, diagonal],
                         ids=lambda k: k.name)
@pytest.mark.parametrize("m", [475, 379, 128])  # 4, 3 and 1 row tiles
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float8_e4m3fn], ids=str)
def test_neighbours_share_what_they_read(kernel, m, dtype):
    n, k = 272, 1008  # rows 16-byte aligned, as TMA needs
    bm, bn, bk = (128, 128, 64) if dtype == torch.bfloat16 else (128, 128, 128)
    a = (torch.randn(m, k, device="cuda") * 2).to(dtype)
    b = (torch.randn(k, n, device="cuda") * 2).to(dtype)
    c = torch.full((m, n), float("nan"), device="cuda")
    args = (a, b, c, bm, bn, bk)
    ct.launch(torch.cuda.current_stream(), _grid(kernel, m, n, bm, bn), kernel, args)
    torch.cuda.synchronize()
    assert ct.compile(kernel, args).metadata["cluster"] == 2
    check(c, a.float(), b.float(), 2.0**-18 if dtype != torch.bfloat16 else 2.0**-22)


@pytest.mark.parametrize("m", [475, 379])
@pytest.mark.parametrize("k", [128, 336, 1008])  # 1, 3 and 8 K tiles
def test_float8_weights_given_n_by_k(m, k):
    """cuTile's float8 layout (`_scaled_mm`'s): the overlapped promotion with B shared."""
    n = 272
    x = (torch.randn(m, k, device="cuda") * 4).to(torch.float8_e4m3fn)
    w = (torch.randn(n, k, device="cuda") * 4).to(torch.float8_e4m3fn)
    y = torch.full((m, n), float("nan"), device="cuda")
    args = (x, w, y, 128, 128, 128)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, 128), ct.cdiv(n, 128), 1),
              linear_rows_first, args)
    torch.cuda.synchronize()
    assert ct.compile(linear_rows_first, args).metadata["cluster"] == 2
    check(y, x.float(), w.float().T, 2.0**-18)


def test_num_ctas_one_keeps_blocks_apart(monkeypatch):
    """cuTile's hint `num_ctas=1`: no cluster; TILELANG_CLUSTERS=0: none either."""
    x = torch.zeros(256, 256, device="cuda", dtype=torch.bfloat16)
    y = torch.zeros(256, 256, device="cuda")
    args = (x, x, y, 128, 128, 64)
    assert ct.compile(rows_first.replace_hints(num_ctas=1), args).metadata["cluster"] == 1
    monkeypatch.setenv("TILELANG_CLUSTERS", "0")
    assert ct.compile(rows_first, args).metadata["cluster"] == 1
