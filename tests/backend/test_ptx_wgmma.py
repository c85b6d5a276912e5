"""Front end to PTX on the CPU: which matrix-product loops are lowered whole with staged
operands (passes/matmul_loops.py): on wgmma for sm_90 (assembled for sm_90a), on ldmatrix +
mma.sync for sm_80, both without spills; and which stay on the per-op mma.sync path."""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct
from tilelang.testing.kernels import make_linear, make_matmul

BF16 = ml_dtypes.bfloat16


def args(m=1000, n=1000, k=1000, dtype=BF16, tile=(128, 256, 64)):
    return (np.zeros((m, k), dtype), np.zeros((k, n), dtype), np.zeros((m, n), dtype), *tile)


@pytest.mark.parametrize(("tile", "warps"), [((128, 256, 64), 8), ((64, 128, 64), 4),
                                             ((256, 128, 64), 8), ((128, 64, 128), 4)])
def test_qualifying_loops_run_on_wgmma(tile, warps):
    """Fed by TMA boxes (one per 128-byte panel of each operand) completing on mbarriers, the
    result stored by TMA boxes too; the tensor maps are three by-value kernel parameters after
    the arrays' own."""
    compiled = ct.compile(make_matmul(warps), args(tile=tile), arch="sm_90")
    ptx = compiled.ptx
    assert ".target sm_90a" in ptx  # wgmma needs the arch-specific target
    assert "wgmma.mma_async.sync.aligned.m64n" in ptx
    assert "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx" in ptx
    assert "mbarrier.try_wait.parity" in ptx and "cp.async.cg" not in ptx
    assert ptx.count(".param .align 64 .b8") == 3 and "cvta.param" in ptx
    maps = compiled.metadata["tensor_maps"]
    bm, _, bk = tile
    # a's pointer is parameter 0, b's 5 (after a's 2 + 2), c's 10
    assert [(m["array_param"], m["box_cols"], m["box_rows"]) for m in maps] == \
        [(0, 64, bm), (5, 64, bk), (10, 64, bm)]
    assert "cp.async.bulk.tensor.2d.global.shared::cta" in ptx
    assert "mma.sync" not in ptx and "ldmatrix" not in ptx
    resources = compiled.resources()
    assert resources.spill_stores == 0 and resources.shared_bytes >= 3 * (tile[0] + tile[1]) * \
        tile[2] * 2


@pytest.mark.parametrize(("tile", "warps"), [((128, 256, 64), 8), ((128, 128, 64), 8),
                                             ((64, 128, 64), 4), ((128, 64, 128), 4)])
def test_qualifying_loops_stage_operands_for_mma_sync_on_sm80(tile, warps):
    compiled = ct.compile(make_matmul(warps), args(tile=tile), arch="sm_80")
    ptx = compiled.ptx
    assert ".target sm_80" in ptx and "wgmma" not in ptx
    assert "cp.async.cg.shared.global" in ptx and "ldmatrix.sync.aligned.m8n8.x4.trans" in ptx
    assert "mma.sync.aligned.m16n8k16" in ptx
    assert compiled.resources().spill_stores == 0


@pytest.mark.parametrize(("case", "build"), [
    ("tile too small", lambda: ct.compile(make_matmul(8), args(tile=(64, 64, 32)),
                                          arch="sm_90")),
    ("float32 inputs", lambda: ct.compile(make_matmul(8), args(dtype=np.float32),
                                          arch="sm_90")),
    ("K rows not 16-byte aligned, sm_80", lambda: ct.compile(make_matmul(8), args(k=1001),
                                                             arch="sm_80")),
])
def test_other_loops_stay_on_mma_sync(case, build):
    ptx = build().ptx
    assert "wgmma" not in ptx and not copies_operands(ptx) and "mma.sync" in ptx, case


def copies_operands(ptx: str) -> bool:
    """Whether the kernel copies tiles into shared memory asynchronously (cp.async or TMA
    loads; a TMA store of the result is not one)."""
    return "cp.async.cg" in ptx or "cp.async.bulk.tensor.2d.shared::cluster" in ptx


@pytest.mark.parametrize(("case", "build"), [
    ("K rows not 16-byte aligned", lambda: ct.compile(
        make_matmul(8), args(k=1001, tile=(128, 128, 64)), arch="sm_90")),
    ("work inside the loop", lambda: ct.compile(make_matmul(8, True), args(tile=(128, 128, 64)),
                                                arch="sm_90")),
])
def test_loops_with_more_work_stage_b_only(case, build, monkeypatch):
    """Not lowered whole (passes/matmul_loops.py), but B is staged and the product runs on
    wgmma with A from registers (passes/staged_loops.py): B's 64 x 128 tile comes as 2 TMA
    boxes (one per 128-byte panel) into a ring of 4 stages, issued by the producer warpgroup
    in its loop (or, without it, by thread 0: 2 iterations in the prologue, then in the
    loop)."""
    for specialize, sets in (("1", 1), ("0", 4)):
        monkeypatch.setenv("TILELANG_WARP_SPECIALIZE", specialize)
        compiled = build()
        ptx = compiled.ptx
        assert "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16" in ptx, case
        boxes = ptx.count("cp.async.bulk.tensor.2d.shared::cluster.global")
        assert boxes == 2 * sets and "cp.async.cg" not in ptx, case
        assert compiled.resources().spill_stores == 0
        assert compiled.block_threads == 256 + 128 * int(specialize)


def test_loops_with_more_work_copy_with_cp_async_without_tma(monkeypatch):
    """TILELANG_TMA=0: 8 cp.async per thread for B's 2048 chunks, in the unchecked and the
    checked way, for the 2 iterations of the prologue (4 stages) and in the loop."""
    monkeypatch.setenv("TILELANG_TMA", "0")
    ptx = ct.compile(make_matmul(8, True), args(), arch="sm_90").ptx
    assert ptx.count("cp.async.cg.shared.global") == 3 * 2 * 8


def test_tma_can_be_switched_off(monkeypatch):
    """TILELANG_TMA=0 (and export, which has no runtime to build tensor maps) copies with
    cp.async, 16 bytes a thread, behind block barriers."""
    monkeypatch.setenv("TILELANG_TMA", "0")
    compiled = ct.compile(make_matmul(8), args(), arch="sm_90")
    assert "cp.async.cg.shared.global" in compiled.ptx and "cp.async.bulk" not in compiled.ptx
    assert "wgmma.mma_async" in compiled.ptx and compiled.metadata["tensor_maps"] == []


def test_wgmma_can_be_switched_off(monkeypatch):
    monkeypatch.setenv("TILELANG_WGMMA", "0")  # the staged loop then runs on mma.sync
    ptx = ct.compile(make_matmul(8), args(), arch="sm_90").ptx
    assert "wgmma" not in ptx and "ldmatrix" in ptx and ".target sm_90\n" in ptx


@pytest.mark.parametrize("arch", ["sm_90", "sm_80"])
def test_x_times_w_transposed_qualifies(arch):
    """b = transpose(load of a (BN, BK) tile): staged K-major, no conversion in the loop."""
    x = np.zeros((1000, 1000), BF16)
    ptx = ct.compile(make_linear(8), (x, x, x, 128, 128, 64), arch=arch).ptx
    assert ("cp.async.bulk.tensor" if arch == "sm_90" else "cp.async.cg") in ptx
    if arch == "sm_90":  # untransposed B: the last immediate (imm-trans-b) is 0
        line = next(x for x in ptx.splitlines() if "wgmma.mma_async" in x)
        assert line.rstrip().endswith("0;")
    else:
        assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in ptx and "mma.sync" in ptx


def test_fp8_runs_on_wgmma_with_k_major_operands_only():
    f8 = ml_dtypes.float8_e4m3fn
    x = np.zeros((1000, 1024), f8)
    ptx = ct.compile(make_linear(8), (x, x, np.zeros((1000, 1000), np.float32), 128, 128, 128),
                     arch="sm_90").ptx
    assert "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3" in ptx
    assert "prmt" not in ptx  # B given (N, K): K-major as staged
    # b as (K, N): wgmma has no transposed form for 8-bit inputs, so each stage's B is
    # transposed in shared memory (simt/byte_transpose.py): 8 x 8-byte blocks, 32 prmt each
    ptx = ct.compile(make_matmul(8), (x, x, np.zeros((1000, 1024), np.float32), 128, 128, 128),
                     arch="sm_90").ptx
    assert "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3" in ptx
    # (three times: the two iterations of a trip and the odd last one, simt/paired_loop.py)
    assert ptx.count("prmt.b32") == 3 * 32 and ptx.count("ld.shared.v2.b32") == 3 * 8


@pytest.mark.parametrize("maker", [make_linear, make_matmul], ids=["b_nk", "b_kn"])
@pytest.mark.parametrize("copies", ["producer warpgroup", "thread 0", "cp.async"])
def test_fp8_products_are_promoted_without_serializing_wgmma(monkeypatch, maker, copies):
    """8-bit products: each stage's wgmma start from zero (scale-d 0) and, once waited for, are
    added to float32 registers (WgmmaEngine's promotion); ptxas must not serialize the
    kernel's wgmma for it, nor add waits of its own. At 128 x 128 over two warpgroups the
    adds of the stage before run while this stage's wgmma do: between their commit and the
    wait, two iterations a trip."""
    monkeypatch.setenv("TILELANG_TMA", "0" if copies == "cp.async" else "1")
    monkeypatch.setenv("TILELANG_WARP_SPECIALIZE", "1" if copies == "producer warpgroup" else "0")
    f8 = ml_dtypes.float8_e4m3fn
    x = np.zeros((1024, 1024), f8)
    compiled = ct.compile(maker(8), (x, x, np.zeros((1024, 1024), np.float32), 128, 128, 128),
                          arch="sm_90")
    ptx = compiled.ptx
    assert "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3" in ptx
    assert ptx.count("add.rn.f32") >= 64  # 128 x 128 / 256 threads: a float32 add each
    resources = compiled.resources()
    assert not resources.wgmma_serialized and resources.spill_stores == 0
    assert not resources.wgmma_waits_added
    overlapped = re.findall(r"wgmma.commit_group.sync.aligned;\s*add.rn.f32", ptx)
    # the two of a trip; B given (K, N) transposes it in shared memory, whose registers
    # beside cp.async's addresses leave none for the overlap
    assert len(overlapped) == (0 if maker is make_matmul and copies == "cp.async" else 2)


def test_num_warps_is_chosen_from_the_products_when_not_given():
    """A kernel without num_warps (cuTile's have none) gets 8 warps for a 128 x 256
    accumulator, and its K loop then runs on wgmma; small products keep 4."""
    kernel = ct.kernel(make_matmul(8).fn)  # the same function, no hint
    big = ct.compile(kernel, args(tile=(128, 256, 64)), arch="sm_90")
    assert big.options.num_warps == 8
    assert "wgmma.mma_async.sync.aligned.m64n256k16" in big.ptx
    small = ct.compile(kernel, args(tile=(64, 64, 64)), arch="sm_90")
    assert small.options.num_warps == 4
    given = ct.compile(make_matmul(4), args(tile=(128, 128, 64)), arch="sm_90")
    assert given.options.num_warps == 4  # a hint wins


@ct.kernel(num_warps=8)
def _matmul_storing_partials(a, b, c, partial, BM: ct.Constant[int], BN: ct.Constant[int],
                             BK: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
        x = ct.load(a, (i, k), (BM, BK), padding_mode=ct.PaddingMode.ZERO)
        y = ct.load(b, (k, j), (BK, BN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(x, y, acc)
        ct.store(partial, (i, j), acc)  # memory written inside the loop
    ct.store(c, (i, j), acc.astype(c.dtype))


def test_a_loop_that_stores_keeps_the_general_path():
    """A store in the body could be read by a later iteration's loads, which the staged ring
    issues iterations early: such loops are neither lowered whole nor staged."""
    a, b, c = args()[:3]
    partial = np.zeros(c.shape, np.float32)
    ptx = ct.compile(_matmul_storing_partials, (a, b, c, partial, 128, 128, 64),
                     arch="sm_90").ptx
    assert "wgmma" not in ptx and not copies_operands(ptx) and "mma.sync" in ptx


def test_fp8_fast_accumulation_leaves_the_sums_to_wgmma(monkeypatch):
    """TILELANG_FP8_ACCUMULATION=fast: no promotion (the accumulator stays wgmma's, no float32
    adds in the loop), and a key of its own in the compile cache; a bad value is an error."""
    f8 = ml_dtypes.float8_e4m3fn
    x = np.zeros((1024, 1024), f8)
    args = (x, x, np.zeros((1024, 1024), np.float32), 128, 128, 128)
    precise = ct.compile(make_linear(8), args, arch="sm_90").ptx
    monkeypatch.setenv("TILELANG_FP8_ACCUMULATION", "fast")
    assert "fp8-accumulation=fast" in ct.settings.codegen_switches()
    fast = ct.compile(make_linear(8), args, arch="sm_90").ptx
    assert fast.count("add.rn.f32") < 64 <= precise.count("add.rn.f32")
    assert "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3" in fast
    monkeypatch.setenv("TILELANG_FP8_ACCUMULATION", "sloppy")
    with pytest.raises(ct.TileValueError, match="precise or fast"):
        ct.settings.fp8_fast_accumulation()
