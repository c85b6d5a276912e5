"""Layer-norm backward kernels of samples/layer_norm.py compile to PTX that ptxas assembles
without spills in the configurations default_backward picks (whole rows with the next rows
loaded ahead; the two-pass kernels for wide rows). Values: samples/test_samples.py."""

from __future__ import annotations

import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "samples"))
import layer_norm


def _arrays(rows: int, n: int, dtype, blocks: int):
    x = np.zeros((rows, n), dtype)
    stats = np.zeros(rows, np.float32)
    part = np.zeros((blocks, n), np.float32)
    return x, np.zeros(n, dtype), stats, part


@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16])
@pytest.mark.parametrize("n", [1024, 4096])
def test_whole_rows_do_not_spill(n, dtype):
    plan = layer_norm.default_backward(4096, n)
    assert plan.kind == "rows"
    x, w, s, part = _arrays(4096, n, dtype, plan.blocks)
    r = ct.compile(plan.kernel(), (x, x.copy(), w, s, s.copy(), x.copy(), part, part.copy(),
                                   plan.a, plan.b), num_warps=plan.warps).resources()
    assert r.spill_stores == 0 and r.registers <= 65536 // (32 * plan.warps)


@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16])
def test_two_pass_kernels_do_not_spill(dtype):
    plan = layer_norm.default_backward(1024, 65536)
    assert plan.kind == "two_pass"
    x, w, s, part = _arrays(1024, 65536, dtype, plan.blocks)
    stats = ct.compile(layer_norm.layer_norm_bwd_stats.replace_hints(num_warps=16),
                       (x, x.copy(), w, s, s.copy(), s.copy(), s.copy(), layer_norm.STATS_BLOCK),
                       num_warps=16).resources()
    cols = ct.compile(plan.kernel(), (x, x.copy(), w, s, s.copy(), s.copy(), s.copy(), x.copy(),
                                      part, part.copy(), plan.a, plan.b),
                      num_warps=plan.warps).resources()
    assert stats.spill_stores == 0 and cols.spill_stores == 0
