"""Matrix-product loops lowered whole with their operands staged in shared memory
(passes/matmul_loops.py): on wgmma (sm_90, simt/wgmma.py) and on ldmatrix + mma.sync (the sm_80
path, TILELANG_ARCH=sm_80 on this device, simt/mma_ring.py). Results against a float64 product
on fresh random data of awkward sizes, every output element written (the output starts as NaN),
for each tile shape the lowering takes and both 16-bit dtypes."""

from __future__ import annotations

import re

import pytest

import tilelang as ct
from tilelang.testing.kernels import (
    make_batched_matmul,
    make_grouped_matmul,
    make_linear,
    make_matmul,
)

torch = pytest.importorskip("torch")


KERNELS = {4: make_matmul(4), 8: make_matmul(8)}
TILES = [(128, 256, 64, 8), (128, 128, 64, 8), (64, 128, 64, 4), (128, 64, 128, 4),
         (256, 128, 64, 8)]  # (BM, BN, BK, warps): the last has two 64-row blocks per group


ENGINES = {"sm_90": "wgmma.mma_async", "sm_80": "ldmatrix.sync.aligned.m8n8.x4.trans"}


@pytest.fixture(params=sorted(ENGINES))
def arch(request, monkeypatch):
    monkeypatch.setenv("TILELANG_ARCH", request.param)
    return request.param


def run(a, b, tile, arch="sm_90"):
    bm, bn, bk, warps = tile
    m, n = a.shape[0], b.shape[1]
    c = torch.full((m, n), float("nan"), device="cuda")
    kernel = KERNELS[warps]
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, bm), ct.cdiv(n, bn)), kernel,
              (a, b, c, bm, bn, bk))
    torch.cuda.synchronize()
    ptx = ct.compile(kernel, (a, b, c, bm, bn, bk), arch=arch).ptx
    assert ENGINES[arch] in ptx and "cp.async" in ptx
    return c


# fp8 products: each stage's 128 accumulate with wgmma's 14-bit mantissa before they are
# added in float32 (WgmmaEngine's promotion); without it K = 2560 positive products lose 4%
FP8_UNIT = 2.0**-18


def check(c, a, b, unit=2.0**-22):
    """Within the accumulation bound of K products: float32's (2**-22 leaves room for the
    order), or `unit`."""
    want = a.double() @ b.double()
    size = a.double().abs() @ b.double().abs()
    bound = 2 * (a.shape[1] + 2) * unit * size + 1e-30
    assert not c.isnan().any(), "every element is written"
    bad = ((c.double() - want).abs() > bound).sum().item()
    assert bad == 0, f"{bad} of {c.numel()} elements differ"


@pytest.mark.parametrize("tile", TILES, ids=lambda t: "x".join(map(str, t)))
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
# rows 16-byte aligned (else the mma.sync path: test_unaligned_rows_fall_back_to_mma_sync)
@pytest.mark.parametrize(("m", "n", "k"), [(300, 520, 1000), (129, 264, 200)])
def test_staged_gemm(arch, tile, dtype, m, n, k):
    a = torch.randn(m, k, device="cuda", dtype=dtype)
    b = torch.randn(k, n, device="cuda", dtype=dtype)
    check(run(a, b, tile, arch), a, b)


@pytest.mark.parametrize("tile", [(128, 128, 32, 8), (128, 256, 16, 8)],
                         ids=lambda t: "x".join(map(str, t)))
@pytest.mark.parametrize(("m", "n", "k"), [(300, 520, 1000), (129, 264, 200)])
def test_narrow_k_steps_taken_together(tile, m, n, k):
    """BK = 32 (16) float16 values: two (four) steps an iteration on wgmma
    (passes/widen_k_steps.py); K = 200 is 7 (13) steps, the last wide step partly past K."""
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    check(run(a, b, tile), a, b)


def test_partial_chunks_of_strided_views(arch):
    """K = 1003 and N = 500 end inside a 16-byte chunk: the copies read only what is there."""
    a = torch.randn(333, 1040, device="cuda", dtype=torch.bfloat16)[:, :1003]
    b = torch.randn(1003, 512, device="cuda", dtype=torch.bfloat16)[:, :500]
    check(run(a, b, (128, 128, 64, 8), arch), a, b)


def test_fewer_k_tiles_than_stages(arch):
    a = torch.randn(70, 64, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(64, 96, device="cuda", dtype=torch.bfloat16)
    check(run(a, b, (64, 128, 64, 4), arch), a, b)


def test_unaligned_rows_fall_back_to_mma_sync():
    """N = 257: rows of b are not 16-byte aligned, so no cp.async: the mma.sync path, same
    results."""
    a = torch.randn(129, 200, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(200, 257, device="cuda", dtype=torch.bfloat16)
    c = torch.full((129, 257), float("nan"), device="cuda")
    kernel = KERNELS[8]
    ct.launch(torch.cuda.current_stream(), (2, 3), kernel, (a, b, c, 128, 128, 64))
    torch.cuda.synchronize()
    assert "cp.async" not in ct.compile(kernel, (a, b, c, 128, 128, 64)).ptx
    check(c, a, b)


BATCHED = {4: make_batched_matmul(4), 8: make_batched_matmul(8)}


@pytest.mark.parametrize("tile", [(128, 128, 64, 8), (64, 128, 64, 4)],
                         ids=lambda t: "x".join(map(str, t)))
def test_staged_batched_gemm(arch, tile):
    """c[z] = a[z] @ b[z] from 3-d loads reshaped to 2-d (cuTile's batch_matmul spelling): the
    whole-loop path too, each batch's tiles from its own matrices (3 batches of 300 x 1000 @
    1000 x 264)."""
    bm, bn, bk, warps = tile
    batch, m, n, k = 3, 300, 264, 1000
    a = torch.randn(batch, m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(batch, k, n, device="cuda", dtype=torch.float16)
    c = torch.full((batch, m, n), float("nan"), device="cuda")
    kernel = BATCHED[warps]
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, bm), ct.cdiv(n, bn), batch), kernel,
              (a, b, c, bm, bn, bk))
    torch.cuda.synchronize()
    ptx = ct.compile(kernel, (a, b, c, bm, bn, bk), arch=arch).ptx
    assert ENGINES[arch] in ptx and "cp.async" in ptx
    for z in range(batch):
        check(c[z], a[z], b[z])


LINEAR = {4: make_linear(4), 8: make_linear(8)}


@pytest.mark.parametrize("tile", [(128, 256, 64, 8), (64, 128, 64, 4), (128, 64, 128, 4)],
                         ids=lambda t: "x".join(map(str, t)))
def test_staged_linear_with_k_major_weights(arch, tile):
    """y = x @ w.T with w stored (N, K): b is staged K-major (wgmma's untransposed B,
    plain ldmatrix for mma.sync)."""
    bm, bn, bk, warps = tile
    m, n, k = 300, 264, 1000
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    y = torch.full((m, n), float("nan"), device="cuda")
    kernel = LINEAR[warps]
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, bm), ct.cdiv(n, bn)), kernel,
              (x, w, y, bm, bn, bk))
    torch.cuda.synchronize()
    ptx = ct.compile(kernel, (x, w, y, bm, bn, bk), arch=arch).ptx
    assert "cp.async" in ptx and ("wgmma" in ptx if arch == "sm_90" else "ldmatrix" in ptx)
    check(y, x, w.T)


@pytest.mark.parametrize("dtype", [torch.float8_e4m3fn, torch.float8_e5m2])
def test_fp8_linear_on_wgmma(dtype):
    """fp8 x fp8 -> float32 on wgmma's k32 shapes, both operands K-major (w stored (N, K));
    K = 1008: rows 16-byte aligned, the last K tile partial."""
    m, n, k = 300, 264, 1008
    x = (torch.randn(m, k, device="cuda") * 4).to(dtype)
    w = (torch.randn(n, k, device="cuda") * 4).to(dtype)
    y = torch.full((m, n), float("nan"), device="cuda")
    kernel = LINEAR[8]
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, 128), ct.cdiv(n, 128)), kernel,
              (x, w, y, 128, 128, 128))
    torch.cuda.synchronize()
    assert "wgmma.mma_async.sync.aligned.m64n128k32" in \
        ct.compile(kernel, (x, w, y, 128, 128, 128)).ptx
    check(y, x.float(), w.float().T, unit=FP8_UNIT)


@pytest.mark.parametrize("copies", ["tma, producer warpgroup", "tma, thread 0", "cp.async"])
@pytest.mark.parametrize("tile", [(128, 128, 128, 8), (64, 128, 128, 4)], ids=str)
@pytest.mark.parametrize("k", [112, 256, 336, 1008])  # 1, 2, 3 and 8 K tiles, two partial
@pytest.mark.parametrize("b_layout", ["nk", "kn"])
def test_fp8_overlapped_promotion(monkeypatch, copies, tile, k, b_layout):
    """The overlapped promotion (simt/wgmma.py: the stage before's products added while this
    stage's run, two iterations a trip of the loop, an odd last one after it): K tile counts
    odd and even, from one; every way the stages are filled; B given (N, K), or (K, N)
    (transposed in shared memory each iteration; with cp.async, not overlapped); within
    float32's accumulation bound of the exact products, every element written."""
    monkeypatch.setenv("TILELANG_TMA", "0" if copies == "cp.async" else "1")
    monkeypatch.setenv("TILELANG_WARP_SPECIALIZE", "1" if "producer" in copies else "0")
    bm, bn, bk, warps = tile
    m, n = 300, 272
    x = (torch.randn(m, k, device="cuda") * 4).to(torch.float8_e4m3fn)
    w = (torch.randn(n, k, device="cuda") * 4).to(torch.float8_e4m3fn)
    y = torch.full((m, n), float("nan"), device="cuda")
    kernel, b = (LINEAR[warps], w) if b_layout == "nk" else (KERNELS[warps], w.T.contiguous())
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, bm), ct.cdiv(n, bn)), kernel,
              (x, b, y, bm, bn, bk))
    torch.cuda.synchronize()
    ptx = ct.compile(kernel, (x, b, y, bm, bn, bk)).ptx
    overlapped = re.search(r"wgmma.commit_group.sync.aligned;\s*add.rn.f32", ptx) is not None
    assert overlapped == (b_layout == "nk" or copies != "cp.async")
    check(y, x.float(), w.float().T, unit=FP8_UNIT)


@pytest.mark.parametrize("copies", ["tma, producer warpgroup", "tma, thread 0", "cp.async"])
@pytest.mark.parametrize(("tile", "dtype"), [
    ((128, 128, 128, 8), torch.float8_e4m3fn), ((128, 128, 128, 8), torch.float8_e5m2),
    ((64, 128, 128, 4), torch.float8_e4m3fn), ((128, 128, 128, 4), torch.float8_e4m3fn),
    ((128, 256, 128, 8), torch.float8_e4m3fn),
    ((128, 128, 64, 8), torch.float8_e4m3fn)], ids=str)  # two steps of 64 an iteration
def test_fp8_gemm_with_b_given_k_by_n(monkeypatch, copies, tile, dtype):
    """fp8 x fp8 with B stored (K, N), as cuTile's matmul_kernel takes it: wgmma reads 8-bit B
    K-major only, so each stage's B is transposed in shared memory first
    (simt/byte_transpose.py); every way the stages are filled. K = 1008: the last K tile
    partial; M, N not multiples of the tile (N = 272: rows 16-byte aligned, as cp.async and
    TMA need). Each stage's products are added to a float32 accumulator (WgmmaEngine's
    `promote`), so the result is within float32's accumulation bound of the exact products."""
    monkeypatch.setenv("TILELANG_TMA", "0" if copies == "cp.async" else "1")
    monkeypatch.setenv("TILELANG_WARP_SPECIALIZE", "1" if "producer" in copies else "0")
    bm, bn, bk, warps = tile
    m, n, k = 300, 272, 1008
    a = (torch.randn(m, k, device="cuda") * 4).to(dtype)
    b = (torch.randn(k, n, device="cuda") * 4).to(dtype)
    c = torch.full((m, n), float("nan"), device="cuda")
    kernel = KERNELS[warps]  # (the settings are in the compile cache's key)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, bm), ct.cdiv(n, bn)), kernel,
              (a, b, c, bm, bn, bk))
    torch.cuda.synchronize()
    ptx = ct.compile(kernel, (a, b, c, bm, bn, bk)).ptx
    # (promoted in pieces of at most 128 columns: simt/wgmma.py)
    assert f"m64n{min(bn, 128)}k32" in ptx and "mma.sync" not in ptx
    check(c, a.float(), b.float(), unit=FP8_UNIT)


def test_fp8_batched_gemm_with_b_given_k_by_n():
    """cuTile's batch_matmul spelling in fp8 (3-d tiles reshaped, B (K, N)): the whole-loop
    path with B transposed in shared memory, each batch right. Uniform [0, 1) inputs, as
    cuTile's benchmark draws them, and K = 2560: every product positive, where wgmma's own
    accumulation of 8-bit products (14 bits) would fall 4% short without the promotion."""
    batch, m, n, k = 3, 200, 144, 2560
    a = (torch.rand(batch, m, k, device="cuda")).to(torch.float8_e4m3fn)
    b = (torch.rand(batch, k, n, device="cuda")).to(torch.float8_e4m3fn)
    c = torch.full((batch, m, n), float("nan"), device="cuda")
    kernel = BATCHED[8]
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, 128), ct.cdiv(n, 128), batch), kernel,
              (a, b, c, 128, 128, 128))
    torch.cuda.synchronize()
    assert "m64n128k32.f32.e4m3.e4m3" in ct.compile(kernel, (a, b, c, 128, 128, 128)).ptx
    for z in range(batch):
        check(c[z], a[z].float(), b[z].float(), unit=FP8_UNIT)


def test_num_warps_chosen_by_the_compiler_launches_that_many():
    """A kernel without num_warps: the compiler picks 8 warps for 128 x 256 tiles (the binary
    records it, the launch uses 256 threads), and the result is right; a second kernel object
    of the same function finds the binary in the disk cache with the same choice."""
    a = torch.randn(300, 1000, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(1000, 520, device="cuda", dtype=torch.bfloat16)
    for _ in range(2):
        kernel = ct.kernel(KERNELS[8].fn)
        c = torch.full((300, 520), float("nan"), device="cuda")
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(300, 128), ct.cdiv(520, 256)), kernel,
                  (a, b, c, 128, 256, 64))
        torch.cuda.synchronize()
        check(c, a, b)


def test_tma_maps_follow_the_arrays(monkeypatch):
    """TMA tensor maps are built per launch from the arrays (runtime/tensor_maps.py, cached
    by pointer, extents and strides): views whose rows are longer than their width, then other
    arrays of other shapes through the same specialization, then the first ones again, each
    right; and the kernel really copies with TMA. A kernel of its own: its C entry is the last
    one a launch registered, which other tests' specializations (other map counts) would set."""
    monkeypatch.setitem(KERNELS, 8, make_matmul(8))
    tile = (128, 128, 64, 8)
    ptx = ct.compile(KERNELS[8], (torch.empty(8, 8, device="cuda", dtype=torch.bfloat16),) * 3
                     + tile[:3], arch="sm_90").ptx
    assert "cp.async.bulk.tensor.2d" in ptx and "cp.async.cg" not in ptx
    base_a = torch.randn(333, 1024, device="cuda", dtype=torch.bfloat16)
    base_b = torch.randn(700, 520, device="cuda", dtype=torch.bfloat16)
    cases = [(base_a[:, :700], base_b[:, :264]),  # row strides 1024 and 520 elements
             (torch.randn(77, 136, device="cuda", dtype=torch.bfloat16),
              torch.randn(136, 200, device="cuda", dtype=torch.bfloat16))]
    for a, b in [*cases, cases[0]]:
        check(run(a, b, tile), a, b)
    # the C hot path encodes the maps too (runtime/native/launch.c): after the first launch
    # registered it, these launches never reach the Python path
    kernel = KERNELS[8]
    entry = kernel.native_entry
    assert entry is not None and len(entry[6]) == 3 * 8  # a's map, b's and c's (TMA stores)
    assert_native(kernel, lambda: [check(run(a, b, tile), a, b) for a, b in [*cases, cases[0]]])


def assert_native(kernel, launches) -> None:
    """`launches()` launches `kernel` only through the C hot path (never its Python one)."""
    python_path, original = [], kernel.fast_launch
    kernel.fast_launch = lambda *args: (python_path.append(args), original(*args))
    try:
        launches()
    finally:
        kernel.fast_launch = original
    assert python_path == []


def test_tma_gemm_replays_in_a_cuda_graph():
    """The tensor maps are by-value parameters: a captured launch replays with what its
    buffers hold at replay time."""
    bm, bn, bk, warps = 128, 256, 64, 8
    a = torch.randn(300, 1000, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(1000, 520, device="cuda", dtype=torch.bfloat16)
    c = torch.full((300, 520), float("nan"), device="cuda")
    args, grid = (a, b, c, bm, bn, bk), (ct.cdiv(300, bm), ct.cdiv(520, bn))
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        ct.launch(stream, grid, KERNELS[warps], args)  # compiled and registered
    stream.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        ct.launch(stream, grid, KERNELS[warps], args)
    a.copy_(torch.randn_like(a))
    c.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    check(c, a, b)


GROUPED = make_grouped_matmul()


@pytest.mark.parametrize("tiles", [(64, 64, 32), (128, 128, 64)])
def test_grouped_products_over_lists_of_arrays(tiles):
    # ragged M; N and K multiples of 8, so that rows are 16-byte aligned (the staged path)
    shapes = [(17, 200, 72), (300, 24, 136), (129, 136, 264)]
    gen = torch.Generator(device="cuda").manual_seed(sum(tiles))
    a = [torch.randn((m, k), device="cuda", generator=gen).to(torch.bfloat16)
         for m, _, k in shapes]
    b = [torch.randn((k, n), device="cuda", generator=gen).to(torch.bfloat16)
         for _, n, k in shapes]
    c = [torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
         for m, n, _ in shapes]
    bm, bn, _ = tiles
    grid = (max(-(-m // bm) for m, _, _ in shapes), max(-(-n // bn) for _, n, _ in shapes))
    ct.launch(None, grid, GROUPED, (a, b, c, *tiles))
    torch.cuda.synchronize()
    for x, w, out in zip(a, b, c, strict=True):
        assert not out.isnan().any()
        torch.testing.assert_close(out.float(), x.float() @ w.float(), rtol=2e-2, atol=5e-2)
