"""A K loop whose arrays are picked at run time from lists of kernel parameters (a grouped
GEMM's `As[g]`) is filled by TMA, and its product stored by TMA (`Cs[g]`): each list element
gets its tensor map, and the kernel picks the map as it picks the array (no GPU: compiled to
PTX for sm_90)."""

from __future__ import annotations

import json

import ml_dtypes
import numpy as np

import tilelang as ct
from tilelang.testing.gather_kernels import grouped_matmul

BF16 = ml_dtypes.bfloat16
SHAPES = [(200, 136, 72), (64, 296, 128), (333, 64, 200)]


def grouped_args():
    return ([np.zeros((m, k), BF16) for m, _, k in SHAPES],
            [np.zeros((k, n), BF16) for _, n, k in SHAPES],
            [np.zeros((m, n), BF16) for m, n, _ in SHAPES], 128, 128, 64)


def test_a_list_element_s_loads_are_copied_by_tma() -> None:
    kernel = ct.compile(grouped_matmul, grouped_args(), arch="sm_90")
    ptx = kernel.asm["ptx"]
    assert "cp.async.bulk.tensor" in ptx and "cp.async.cg" not in ptx
    text = kernel.asm["llvm"].split('tile.tensor_maps = "', 1)[1].split('"', 1)[0]
    maps = json.loads(text.replace("\\22", '"'))
    # one map per element of As, Bs and Cs (each with its own box): the product's tile is
    # stored by TMA too, through the picked element's map
    params = sorted(m["array_param"] for m in maps)
    assert len(params) == 9 and len(set(params)) == 9, maps
    assert ptx.count("cvta.param") == 9  # each map's address, picked by the group
    assert "cp.async.bulk.tensor.2d.global.shared::cta" in ptx


def test_explain_reports_the_tma_ring() -> None:
    report = ct.explain(grouped_matmul, grouped_args())
    (loop,) = report.loops
    assert loop.path == "staged K loop" and loop.fast
    assert report.instructions["TMA copies"] > 0 and report.instructions["cp.async"] == 0
