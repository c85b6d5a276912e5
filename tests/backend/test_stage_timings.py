"""The compiler records each stage's seconds (what benchmarks/bench_compile.py reports)."""

from __future__ import annotations

import numpy as np

import tilelang as ct


@ct.kernel
def double(x, y, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(y, index=(i,), tile=ct.load(x, index=(i,), shape=(BLOCK,)) * 2)


def test_every_stage_reached_is_timed() -> None:
    x = np.zeros(300, np.float32)
    compiled = ct.compile(double, (x, x, 128))
    timings = compiled.metadata["timings"]
    assert list(timings) == ["tile", "tile-opt", "layout", "simt", "llvm", "ptx"]
    assert all(t > 0 for t in timings.values())


def test_a_stopped_compile_times_only_its_stages() -> None:
    x = np.zeros(300, np.float32)
    compiled = ct.compile(double, (x, x, 128), stop_after="layout")
    assert list(compiled.metadata["timings"]) == ["tile", "tile-opt", "layout"]
