"""The access hints of ct.load and ct.store. `latency=` chooses the stages of the ring a loop's
tiles are copied into: the largest hint among the loop's ring loads, at least what the engine
needs (wgmma 3, mma.sync 2), at most what shared memory holds; without hints the stages that
fit (up to 8 for a plain K loop, 4 for a loop with other work). `allow_tma=False` keeps TMA
off the accesses that say it. The GPU side: tests/gpu/test_access_hints_gpu.py."""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct
from tilelang.testing.kernels import hinted_matmul, hinted_two_products

BF = ml_dtypes.bfloat16


def ring_stages(kernel, args) -> int:
    """The stages of the kernel's TMA ring: each has two mbarriers, invalidated once."""
    return ct.compile(kernel, args, arch="sm_90").ptx.count("mbarrier.inval") // 2


def matmul_args(latency_a, latency_b, bn=128):
    a = np.zeros((512, 512), BF)
    return (a, a, a, latency_a, latency_b, None, None, 128, bn, 64)


@pytest.mark.parametrize(("hints", "stages"), [
    ((None, None), 7),  # 128x128x64 bf16: 32 KiB a stage, 7 fit in 227 KiB
    ((1, None), 3),  # wgmma's least
    ((2, 5), 5),  # the largest hint of the loop's loads
    ((None, 4), 4),
    ((10, 10), 7),  # no more than shared memory holds
])
def test_latency_sets_a_k_loops_stages(hints, stages):
    assert ring_stages(hinted_matmul, matmul_args(*hints)) == stages


def test_mma_sync_rings_take_two_stages_at_least():
    """sm_80's ring (cp.async): 2 stages of 32 KiB (the buffer is declared 1024-byte aligned:
    no slack)."""
    simt = ct.compile(hinted_matmul, matmul_args(1, 1), arch="sm_80").asm["simt"]
    assert int(re.search(r"tile.shared_bytes = (\d+)", simt).group(1)) == 2 * 32768


def test_explain_names_the_hint():
    report = ct.explain(hinted_matmul, matmul_args(2, 5))
    assert report.loops[0].detail == "wgmma, 5 stages of 128x128x64 (the loads' latency=5 hint)"


@pytest.mark.parametrize(("latency", "stages"), [(None, 4), (2, 3), (6, 6)])
def test_latency_sets_a_staged_loops_stages(latency, stages):
    """cuTile's FMHA hints its K loads 2 and V loads 4: 4 stages, as without hints."""
    q = np.zeros((1, 2, 256, 64), BF)
    args = (q, q, q, q, 0.125, latency, 64, 64, 64)
    assert ring_stages(hinted_two_products, args) == stages


@pytest.mark.parametrize(("loads", "store", "tma_loads", "tma_store"), [
    (None, None, True, True),
    (True, True, True, True),  # allowed: the compiler's choice, as without the hint
    (False, None, False, True),  # the ring filled by cp.async
    (None, False, True, False),  # the tile converted and stored by every thread
])
def test_allow_tma_false_keeps_tma_off_those_accesses(loads, store, tma_loads, tma_store):
    a = np.zeros((512, 512), BF)
    ptx = ct.compile(hinted_matmul, (a, a, a, None, None, loads, store, 128, 128, 64),
                     arch="sm_90").ptx
    assert ("cp.async.bulk.tensor.2d.shared::cluster.global" in ptx) == tma_loads
    assert ("cp.async.cg.shared.global" in ptx) == (not tma_loads)
    assert ("cp.async.bulk.tensor.2d.global.shared::cta" in ptx) == tma_store
