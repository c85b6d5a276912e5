"""Gathers of runs along the row (an embedding lookup: passes/index_runs.py) of 8- and 16-bit
elements read each thread's run as one vector where the run lies inside the array, element by
element elsewhere, in the layout a load would have; scatters store element by element
(simt/gather.py; no GPU: compiled to PTX for sm_90)."""

from __future__ import annotations

import re
from collections import Counter

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct
from tilelang.testing.gather_kernels import masked_gather_matmul, row_copy


def accesses(kernel) -> Counter:
    ptx = kernel.asm["ptx"]
    return Counter(re.findall(r"^\s*(?:@%p\d+ )?((?:ld|st)\.global[\w.]*)", ptx, re.M))


def row_copy_args(dtype, shift=0, cols=320):
    return (np.zeros((500, cols), dtype), np.zeros(256, np.int32), np.zeros(256, np.int32),
            np.zeros((400, cols), dtype), 16, 64, shift)


@pytest.mark.parametrize("dtype, vector", [(np.float16, "v4.b32"), (ml_dtypes.bfloat16, "v4.b32"),
                                           (np.int8, "v4.b32")])
def test_aligned_runs_are_read_as_vectors(dtype, vector) -> None:
    kernel = ct.compile(row_copy, row_copy_args(dtype), arch="sm_90")
    found = accesses(kernel)
    runs = max(1, 16 * 64 * np.dtype(dtype).itemsize // 16 // 128)  # 16-byte runs a thread
    # (+ 2: the loads of ids and dest are vectors too); the scatter's stores are elements
    assert found[f"ld.global.{vector}"] == runs + 2, found
    assert not any(k.startswith("st.global.v") for k in found), found
    # the scatter's tile is the gathered one's: no conversion before the stores
    layout = kernel.asm["layout"]
    assert "tile.convert_layout" not in layout.split('"tile.scatter"')[0].split(
        '"tile.gather"')[1]


def test_rows_aligned_to_8_bytes_read_8_byte_runs() -> None:
    found = accesses(ct.compile(row_copy, row_copy_args(np.float16, cols=300), arch="sm_90"))
    assert found["ld.global.v2.b32"] == 2 and found["ld.global.v4.b32"] == 2, found


def test_runs_that_may_start_unaligned_stay_element_by_element() -> None:
    found = accesses(ct.compile(row_copy, row_copy_args(np.float16, shift=1), arch="sm_90"))
    assert found["ld.global.v4.b32"] == 2 and "ld.global.v2.b32" not in found, found  # ids, dest
    assert found["ld.global.b16"] >= 8, found


def test_runs_of_32_bit_elements_stay_element_by_element() -> None:
    """(float32 rows read as vectors were no faster, and made ptxas spill a float32 MoE.)"""
    found = accesses(ct.compile(row_copy, row_copy_args(np.float32), arch="sm_90"))
    assert found["ld.global.v4.b32"] == 2 and found["ld.global.b32"] >= 8, found  # ids, dest


def test_a_masked_gather_stays_element_by_element() -> None:
    x = np.zeros((300, 1024), ml_dtypes.bfloat16)
    args = (x, np.zeros((1024, 256), x.dtype), np.zeros((256, 256), x.dtype),
            np.zeros(256, np.int32), 128, 128, 64)
    found = accesses(ct.compile(masked_gather_matmul, args, arch="sm_90"))
    assert found["ld.global.b16"] > 0 and not any(k.startswith("ld.global.v") and "b16" in k
                                                 for k in found), found
