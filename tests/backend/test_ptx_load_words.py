"""Loads of 16-bit tiles whose fast and masked paths meet in 32-bit words (passes/simt/words.py):
the masked path loads each aligned pair with one predicated 32-bit load, or a half of it where
only that half is inside, into one register; the register count of a wide bf16 row is the
fast path's. The GPU tier checks the values: tests/gpu/test_load_words.py."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "samples"))
import layer_norm
import rms_norm


@ct.kernel
def row_copy(x, y, B: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(1, B), padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(y, index=(i, 0), tile=t)


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.int16])
def test_masked_path_loads_words(dtype):
    x = np.zeros((3, 1000), dtype)
    ptx = ct.compile(row_copy, (x, x.copy(), 1024), num_warps=4).ptx
    per_thread = 1024 // 128
    words = re.findall(r"@%p\d+ ld\.global\.b32 %r\d+, \[%rd\d+(?:\+\d+)?\];", ptx)
    halves = re.findall(r"@%p\d+ ld\.global\.u16 %r\d+, \[%rd\d+(?:\+\d+)?\];", ptx)
    assert len(words) == per_thread // 2
    assert len(halves) == per_thread  # a low and a high half per word
    assert not re.search(r"ld\.global\.b16", ptx)
    assert ct.compile(row_copy, (x, x.copy(), 1024), num_warps=4).resources().spill_stores == 0


def test_unaligned_rows_load_elements():
    """Rows of an odd stride have no aligned pairs: one element per load, as before."""
    x = np.zeros((3, 1001), ml_dtypes.bfloat16)
    ptx = ct.compile(row_copy, (x, x.copy(), 1024), num_warps=4).ptx
    assert len(re.findall(r"@%p\d+ ld\.global\.b16 ", ptx)) == 1024 // 128
    assert not re.search(r"ld\.global\.b32", ptx)


def _layer_norm(warps: int, occupancy: int | None = None):
    x = np.zeros((64, 16384), ml_dtypes.bfloat16)
    w = np.zeros(16384, ml_dtypes.bfloat16)
    stats = np.zeros(64, np.float32)
    kernel = layer_norm.layer_norm_fwd.replace_hints(num_warps=warps, occupancy=occupancy)
    return ct.compile(kernel, (x, w, w.copy(), x.copy(), stats, stats.copy(), 1e-5, 1, 16384),
                      num_warps=warps).resources()


@pytest.mark.parametrize("warps", [8, 16])
def test_wide_bf16_layer_norm_fits_two_blocks_per_sm(warps):
    """64 (8 warps) or 32 (16 warps) bf16 elements per thread: two blocks of layer norm per SM
    need at most 128 or 64 registers (203 and 107 when the paths met element by element)."""
    r = _layer_norm(warps)
    assert r.registers <= 65536 // (2 * 32 * warps)
    assert r.spill_stores == 0


def test_wide_bf16_rms_norm_needs_no_spill_at_two_blocks_per_sm():
    x = np.zeros((64, 16384), ml_dtypes.bfloat16)
    w = np.zeros(16384, ml_dtypes.bfloat16)
    kernel = rms_norm.rms_norm.replace_hints(num_warps=8, occupancy=2)
    r = ct.compile(kernel, (x, w, x.copy(), 1e-5, 1, 16384), num_warps=8).resources()
    assert r.registers <= 128 and r.spill_stores == 0  # 64 B spilled before
