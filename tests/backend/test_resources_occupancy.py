"""Theoretical occupancy (backend/occupancy.py) against hand-computed cases, and as
CompiledKernel.resources() reports it for kernels assembled here (ptxas or nvJitLink)."""

from __future__ import annotations

import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct
from tilelang.backend.occupancy import occupancy
from tilelang.testing.kernels import make_matmul

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "samples"))
import vector_add

KB = 1024


@pytest.mark.parametrize(("arch", "threads", "regs", "smem", "blocks", "limit"), [
    # 255 regs -> 8192 a warp, 2 warps in each quarter's 16384: 8 warps, one block of 8
    ("sm_90", 256, 255, 0, 1, "registers"),
    # 64 regs allow 4 blocks; 100 KB + 1 KB reserved twice in 228 KB
    ("sm_90", 256, 64, 100 * KB, 2, "shared memory"),
    # 33 regs round up to 40 (1280 a warp): 12 warps a quarter, 48 warps, 6 blocks of 8
    # (65536 / (33 * 256) would say 7)
    ("sm_90", 256, 33, 0, 6, "registers"),
    # 96 regs: 5 warps a quarter (not 16384 / 3072 = 5.33), 20 one-warp blocks, not 21
    ("sm_90", 32, 96, 0, 20, "registers"),
    # small blocks of few registers: the SM's 32 block slots
    ("sm_90", 32, 16, 0, 32, "blocks"),
    # sm_86: 48 warp slots, 6 blocks of 8 warps (registers would allow 8)
    ("sm_86", 256, 32, 0, 6, "warps"),
    # sm_89 has 24 block slots, sm_86 16
    ("sm_89", 32, 16, 0, 24, "blocks"),
    ("sm_86", 32, 16, 0, 16, "blocks"),
    # 40 KB + 1 KB reserved = 41 KB exactly four times in sm_80's 164 KB; one byte more
    # rounds up to the next 128 bytes and leaves three
    ("sm_80", 128, 32, 40 * KB, 4, "shared memory"),
    ("sm_80", 128, 32, 40 * KB + 1, 3, "shared memory"),
    # sm_90a is sm_90's chip
    ("sm_90a", 256, 255, 0, 1, "registers"),
    # two resources allowing the same count are both named
    ("sm_90", 128, 32, 0, 16, "registers, warps"),
])
def test_hand_computed_cases(arch, threads, regs, smem, blocks, limit):
    occ = occupancy(arch, threads, regs, smem)
    assert (occ.blocks_per_sm, occ.limited_by) == (blocks, limit)
    assert occ.warps_per_sm == blocks * -(-threads // 32)


def test_fraction_and_text():
    occ = occupancy("sm_90", 256, 64, 100 * KB)
    assert (occ.warps_per_sm, occ.max_warps_per_sm, occ.fraction) == (16, 64, 0.25)
    assert str(occ) == "2 blocks/SM, 16/64 warps (25%), limited by shared memory"
    assert occupancy("sm_86", 256, 32, 0).fraction == 1.0


@pytest.mark.parametrize(("arch", "threads", "regs", "smem", "limit"), [
    ("sm_90", 1024, 255, 0, "registers"),  # 8192 x 32 warps is four times the SM's registers
    ("sm_90", 128, 256, 0, "registers"),  # more than a thread may have
    ("sm_90", 128, 32, 227 * KB + 1, "shared memory"),  # past the per-block opt-in limit
    ("sm_86", 128, 32, 100 * KB, "shared memory"),  # 99 KB a block at most
    ("sm_90", 2048, 16, 0, "warps"),  # past 1024 threads a block
])
def test_what_cannot_launch_has_no_block(arch, threads, regs, smem, limit):
    occ = occupancy(arch, threads, regs, smem)
    assert (occ.blocks_per_sm, occ.warps_per_sm, occ.limited_by) == (0, 0, limit)


def test_the_largest_block_that_fits_does():
    assert occupancy("sm_90", 128, 32, 227 * KB).blocks_per_sm == 1
    assert occupancy("sm_90", 1024, 64, 0).blocks_per_sm == 1  # exactly the 65536 registers


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_compiled_kernel_reports_its_occupancy(arch):
    x = np.zeros(3000, np.float32)
    compiled = ct.compile(vector_add.vector_add, (x, x, x.copy(), 1024), arch=arch)
    r = compiled.resources()
    threads = 32 * compiled.options.num_warps
    assert r.occupancy == occupancy(arch, threads, r.registers, r.shared_bytes)
    assert r.blocks_per_sm == r.occupancy.blocks_per_sm >= 1
    assert r.warps_per_sm == r.blocks_per_sm * compiled.block_threads // 32
    assert r.limited_by == r.occupancy.limited_by
    assert "blocks/SM" in compiled.report()


def test_staged_gemm_is_held_to_one_block_by_shared_memory():
    """128x256x64 bf16 tiles staged three deep take over 144 KB of the H100's 228 KB; the
    block is its 8 warps (a 128-register accumulator: no producer warpgroup,
    simt/warp_specialize.py)."""
    bf16 = ml_dtypes.bfloat16
    a, b, c = (np.zeros(s, bf16) for s in ((1000, 1000), (1000, 1000), (1000, 1000)))
    r = ct.compile(make_matmul(8), (a, b, c, 128, 256, 64), arch="sm_90").resources()
    assert r.shared_bytes > 114 * KB
    assert r.blocks_per_sm == 1 and r.warps_per_sm == 8
    assert "shared memory" in r.limited_by


def test_benchmark_dry_run_rows_carry_the_occupancy():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import sweep

    x = np.zeros(3000, np.float32)
    row = sweep.dry_run_row("vector_add", {}, lambda: ct.compile(
        vector_add.vector_add, (x, x, x.copy(), 1024), arch="sm_90"), None)
    assert "blocks/SM" in sweep.DRY_RUN_COLUMNS and "limited_by" in sweep.DRY_RUN_COLUMNS
    assert "blocks/SM" in sweep.RESOURCES  # the timed tables' column
    assert row["blocks/SM"] >= 1 and row["limited_by"]


def test_serialized_wgmma_is_reported_per_kernel():
    """ptxas's advisory that a kernel's wgmma run one after another (C7514) reaches that
    kernel's Resources, not the other kernels' of the same log."""
    from tilelang.backend.assemble import resources

    log = (
        "ptxas info    : (C7514) Potential Performance Loss: wgmma.mma_async instructions are "
        "serialized due to non wgmma instructions reading accumulator registers of  a wgmma "
        "between start and end of the pipeline stage in the function 'slow'\n"
        "ptxas info    : Compiling entry function 'slow' for 'sm_90a'\n"
        "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Used 168 registers, used 2 barriers\n"
        "ptxas info    : Compiling entry function 'fast' for 'sm_90a'\n"
        "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Used 154 registers, used 2 barriers\n")
    found = resources(log)
    assert found["slow"].wgmma_serialized and not found["fast"].wgmma_serialized
    assert found["slow"].registers == 168
