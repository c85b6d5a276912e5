"""passes/staged_loops.py on the attention sample's key loop (the tile-opt module, sm_90, 8
warps): which products qualify, how each operand is staged, and how many stages fit."""

from __future__ import annotations

import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct
from tilelang.passes.ir_utils import name, walk_ops
from tilelang.passes.staged_loops import staged_loop

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "samples"))
import attention


def plans(bm: int, bn: int, d: int, arch: str = "sm_90"):
    q = np.zeros((1, 2, 300, d), ml_dtypes.bfloat16)
    kernel = attention.flash_attention.replace_hints(num_warps=8)
    compiled = ct.compile(kernel, (q, q, q, q, 0.1, False, bm, bn, d), stop_after="tile-opt",
                          arch=arch)
    with compiled.context:
        loops = [op for op in walk_ops(compiled.tile_module.operation) if name(op) == "scf.for"]
        return [staged_loop(op, arch, 8) for op in loops]


@pytest.mark.parametrize(("bn", "d", "stages"), [(128, 128, 3), (64, 128, 4), (64, 64, 4)])
def test_attention_key_loop_is_staged(bn, d, stages):
    found = plans(128, bn, d)
    assert len(found) == 2 and all(p is not None for p in found)  # unmasked and masked loops
    for plan in found:
        scores, output = plan.mmas
        assert (scores.m, scores.n, scores.k) == (128, bn, d)
        assert (output.m, output.n, output.k) == (128, d, bn)
        assert scores.b.operand.k_major and not output.b.operand.k_major  # k.T, then v
        assert scores.a is not None and output.a is None  # q once in shared memory; p in registers
        assert plan.stages == stages and plan.ahead == stages - 2
        assert plan.stage_bytes == 2 * bn * d * 2


def test_no_staging_off_sm90_or_with_64_row_blocks():
    assert plans(128, 64, 128, arch="sm_80") == [None, None]
    assert plans(64, 64, 128) == [None, None]  # 32 rows per warpgroup: wgmma needs 64
