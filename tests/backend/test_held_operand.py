"""A product whose A operand is computed before a staged loop (a query scaled, or loaded from
rows not known to be contiguous) reads it from shared memory: the tile is written there once
from its registers, before the loop (passes/staged_loops.py, simt/staged_loop.py). Held in
registers across a loop that branches, ptxas 13.0 gave those registers to another value of the
body (wrong answers on the GPU), so where the tile cannot be written (rows that are not whole
128-byte panels) such a loop is not staged: explain says so and the products run on
mma.sync."""

from __future__ import annotations

import ml_dtypes
import numpy as np

import tilelang as ct
from tilelang.testing.held_operand import decode_attention

BF16 = ml_dtypes.bfloat16


def args(keys: int = 1000, held: bool = True):
    q = np.zeros((4, 1, 128), BF16)
    k = np.zeros((4, keys, 128), BF16)
    return (q, k, k, q, 0.1, 128, 128, 128, held)


def test_a_loaded_query_of_one_row_is_copied_once():
    """Its array's row dimension has size 1 (not the contiguous one): copied to shared memory
    once, read by wgmma through a descriptor, not held in registers."""
    report = str(ct.explain(decode_attention.replace_hints(num_warps=8), args(held=False),
                            arch="sm_90"))
    assert "wgmma, A and B from shared memory" in report and "SLOW" not in report
    assert "from its registers" not in report


def test_a_scaled_query_is_written_once_from_registers():
    report = str(ct.explain(decode_attention.replace_hints(num_warps=8), args(),
                            arch="sm_90"))
    assert "A and B from shared memory (A written there once, before the loop, from its " \
        "registers)" in report
    assert "SLOW" not in report and "held across the loop" not in report


def test_the_written_query_is_stored_swizzled_then_read_by_descriptors():
    ptx = ct.compile(decode_attention.replace_hints(num_warps=8), args(), arch="sm_90").ptx
    assert "mma.sync" not in ptx
    # two products of 128 x 128 x 128 on two warpgroups: 8 instructions each, both SS and RS
    assert ptx.count("wgmma.mma_async") == 16
    assert "st.shared.v4.b32" in ptx  # 16 bytes of the query a store


@ct.kernel
def narrow_held(a, b, out, BK: ct.Constant[int]):
    """x (64 x 32): its 64-byte rows are not a 128-byte panel, so it cannot be written to
    shared memory in wgmma's swizzled layout; the loop branches."""
    x = (ct.load(a, index=(0, 0), shape=(64, BK)) * 2).astype(a.dtype)
    acc = ct.zeros((64, 64), ct.float32)
    for j in range(ct.num_tiles(b, 0, (BK, 64))):
        tile = ct.load(b, index=(j, 0), shape=(BK, 64))
        if j == 3:
            acc = acc * 0.5
        acc = ct.mma(x, tile, acc)
    ct.store(out, index=(0, 0), tile=acc)


def narrow_args():
    return (np.zeros((64, 32), BF16), np.zeros((512, 64), BF16), np.zeros((64, 64), np.float32),
            32)


def test_explain_names_a_held_operand_that_cannot_be_written():
    report = str(ct.explain(narrow_held.replace_hints(num_warps=4), narrow_args(), arch="sm_90"))
    assert "reads A from registers held across the loop, whose body branches" in report
    assert "at line" in report


def test_such_products_take_mma_sync():
    ptx = ct.compile(narrow_held.replace_hints(num_warps=4), narrow_args(), arch="sm_90").ptx
    assert "wgmma.mma_async" not in ptx and "mma.sync" in ptx
