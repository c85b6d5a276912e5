"""tile-widen-k-steps on whole kernels (passes/widen_k_steps.py; its IR tests are
tests/ir/layout/widen-k-steps.mlir): K steps narrower than a 128-byte row are taken several at
a time so the loop is a staged K loop on wgmma; a loop over part of K is left alone. GPU
results: tests/gpu/test_wgmma.py (BK = 32 and float8 BK = 64 tiles)."""

from __future__ import annotations

import re
from collections import Counter

import ml_dtypes
import numpy as np

import tilelang as ct
from tilelang.testing.kernels import make_matmul

BF16 = ml_dtypes.bfloat16


def args(bk, n=1000, dtype=BF16):
    """(rows of n elements: 16-byte multiples for 8-bit ones at n = 1024)"""
    return (np.zeros((n, n), dtype), np.zeros((n, n), dtype), np.zeros((n, n), np.float32),
            128, 128, bk)


def test_steps_of_32_are_taken_two_at_a_time():
    report = str(ct.explain(make_matmul(8), args(32), arch="sm_90"))
    assert "staged K loop (wgmma, 7 stages of 128x128x64)" in report
    assert "its loop's K steps of 32 are taken 2 at a time" in report
    assert "SLOW" not in report


def test_float8_steps_of_64_take_wgmma():
    report = str(ct.explain(make_matmul(8), args(64, 1024, ml_dtypes.float8_e4m3fn),
                            arch="sm_90"))
    assert "staged K loop (wgmma" in report and "steps of 64 are taken 2 at a time" in report


def test_sm80_keeps_its_steps():
    """mma.sync reads its operands with ldmatrix from rows of any width."""
    ptx = ct.compile(make_matmul(8), args(32), arch="sm_80").ptx
    report = str(ct.explain(make_matmul(8), args(32), arch="sm_80"))
    assert "taken 2 at a time" not in report and "mma.sync" in ptx


@ct.kernel(num_warps=8)
def first_tiles(a, b, c, BK: ct.Constant[int]):
    """The product of the first three K tiles only: a wider step would read a fourth."""
    acc = ct.zeros((128, 128), ct.float32)
    for k in range(3):
        x = ct.load(a, (0, k), (128, BK), padding_mode=ct.PaddingMode.ZERO)
        y = ct.load(b, (k, 0), (BK, 128), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(x, y, acc)
    ct.store(c, (0, 0), acc)


def test_a_loop_over_part_of_k_keeps_its_steps():
    a, b, c = np.zeros((128, 256), BF16), np.zeros((256, 128), BF16), np.zeros((128, 128),
                                                                                np.float32)
    report = str(ct.explain(first_tiles, (a, b, c, 32), arch="sm_90"))
    assert "taken 2 at a time" not in report


def test_a_loop_the_staged_path_does_not_take_keeps_its_steps():
    """int8 x int8 -> int32 runs on mma.sync from registers: 128-wide K steps there only hold
    twice the operands (8 KB spilled a thread at 128x128x64, with 64-wide steps 0.6 KB)."""
    a, b, c = np.zeros((512, 256), np.int8), np.zeros((256, 384), np.int8), \
        np.zeros((512, 384), np.int32)
    report = ct.explain(make_matmul(8, accumulator=ct.int32), (a, b, c, 128, 128, 64),
                        arch="sm_90")
    assert "taken 2 at a time" not in str(report)
    assert "128x64 @ 64x128, int8 x int8 -> int32" in str(report)


def instructions(ptx: str, kernel: str) -> Counter:
    """The entry's instructions, registers by class only (their numbering differs)."""
    text = ptx[ptx.index("{", ptx.index(".entry")):].replace(f"{kernel}_param_", "param_")
    text = re.sub(r"%(r|rd|p|f|rs|h)\d+", r"%\1", text)
    return Counter(line.strip() for line in text.splitlines() if line.strip())


def test_block_indices_read_inside_the_loop_do_not_keep_its_narrow_steps():
    """tile-hoist-invariants leaves `ct.bid` in a loop with a product; the wider steps read
    the same block indices. The kernel then compiles to make_matmul's instructions (its block
    indices read before the loop: BK = 32 on the GPU in tests/gpu/test_wgmma.py), in another
    order; before, its products ran with A from registers."""
    from tests.backend.test_explain import k_loop  # block indices read in the loads

    report = str(ct.explain(k_loop, args(32), arch="sm_90"))
    assert "staged K loop (wgmma" in report and "steps of 32 are taken 2 at a time" in report
    inline = ct.compile(k_loop, args(32), arch="sm_90").asm["ptx"]
    hoisted = ct.compile(make_matmul(8), args(32), arch="sm_90").asm["ptx"]
    assert instructions(inline, "k_loop") == instructions(hoisted, "matmul")
