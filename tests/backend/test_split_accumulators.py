"""tile-split-accumulators on whole kernels (passes/split_accumulators.py; its IR tests are
tests/ir/layout/split-accumulators.mlir): an accumulator of 256 values a thread is computed
in column blocks that take the staged K loop without spilling; one that fits is left alone.
GPU results: tests/gpu/test_split_accumulators_gpu.py."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct
from tilelang.passes.split_accumulators import split_count
from tilelang.testing.kernels import make_matmul

BF16 = ml_dtypes.bfloat16


def args(tile):
    return (*(np.zeros((1000, 1000), BF16) for _ in range(3)), *tile)


def test_the_count_of_column_blocks():
    assert split_count((256, 256), 4, 8) == 2  # 256 values a thread
    assert split_count((128, 256), 4, 8) == 1  # 128: fits
    assert split_count((128, 256), 4, 4) == 2
    assert split_count((256, 512), 4, 4) == 8
    assert split_count((512, 16), 4, 1) == 1  # blocks of 8 columns: too narrow


def test_explain_says_the_accumulator_is_split():
    report = str(ct.explain(make_matmul(8), args((256, 256, 64)), arch="sm_90"))
    assert "staged K loop (wgmma, 4 stages of 256x128x64)" in report
    assert "its 256x256 accumulator is computed in 2 blocks of 256x128 columns" in report
    assert "SLOW" not in report


def test_an_accumulator_that_fits_is_left_alone():
    report = str(ct.explain(make_matmul(8), args((128, 256, 64)), arch="sm_90"))
    assert "blocks of" not in report and "4 stages of 128x256x64" in report


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="reads ptxas's register count")
@pytest.mark.parametrize(("arch", "most"), [("sm_90", 0), ("sm_80", 1024)])
def test_spills(arch, most):
    """Before the split: 15 KB spilled a thread on mma.sync (wgmma does not take 256 values).
    After: none on wgmma; under 1 KB on sm_80's mma.sync (a 256x128 tile's fragments beside
    its 128 accumulator registers)."""
    resources = ct.compile(make_matmul(8), args((256, 256, 64)), arch=arch).resources()
    assert resources.spill_stores <= most and resources.registers <= 255


def test_blocks_then_wider_steps():
    """samples/gemm.py's GEMM + bias + GELU at 256x256x32: split into 256x128 blocks (each with
    its bias block), whose K loop then takes two steps of 32 an iteration: a staged K loop."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "samples"))
    import gemm

    a, b = np.zeros((257, 336), BF16), np.zeros((336, 296), BF16)
    args = (a, b, np.zeros(296, BF16), np.zeros((257, 296), BF16), 256, 256, 32)
    report = str(ct.explain(gemm.gemm_bias_gelu, args, arch="sm_90"))
    assert "staged K loop (wgmma, 4 stages of 256x128x64)" in report
    assert "steps of 32 are taken 2 at a time" in report and "in 2 blocks of 256x128" in report
    assert "info" not in report  # the loop over the blocks is not listed as a loop of its own
