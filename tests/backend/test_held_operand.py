"""A product whose A operand stays in registers across a loop that branches is not staged on
wgmma (passes/staged_loops.py): ptxas 13.0 gave those registers to another value of the body
(the probabilities took the query's registers: wrong answers on the GPU). explain says so, and
the products run on mma.sync."""

from __future__ import annotations

import ml_dtypes
import numpy as np

import tilelang as ct
from tilelang.testing.held_operand import decode_attention

BF16 = ml_dtypes.bfloat16


def args(keys: int = 1000):
    q = np.zeros((4, 1, 128), BF16)
    k = np.zeros((4, keys, 128), BF16)
    return (q, k, k, q, 0.1, 128, 128, 128, True)


def test_a_loaded_query_of_one_row_is_copied_once():
    """Its array's row dimension has size 1 (not the contiguous one): copied to shared memory
    once, read by wgmma through a descriptor, not held in registers."""
    report = str(ct.explain(decode_attention.replace_hints(num_warps=8), (*args()[:-1], False),
                            arch="sm_90"))
    assert "wgmma, A and B from shared memory" in report and "SLOW" not in report


def test_explain_names_the_held_operand():
    report = ct.explain(decode_attention.replace_hints(num_warps=8), args(), arch="sm_90")
    text = str(report)
    assert "reads A from registers held across the loop, whose body branches" in text
    assert "at line" in text


def test_the_products_take_mma_sync():
    ptx = ct.compile(decode_attention.replace_hints(num_warps=8), args(), arch="sm_90").ptx
    assert "wgmma.mma_async" not in ptx and "mma.sync" in ptx
