"""Autotuning on the GPU: real searches on torch tensors, timed by CUDA events, candidates
compiled by worker processes; in-place kernels; the cold and warm cost of a search."""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import pytest

import tilelang as ct
from tilelang.tune import compile_pool, exhaustive_search
from tilelang.tune.timing import benchmark

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).parents[1] / "tune"))
import tuning_kernels as tk  # noqa: E402

BLOCKS = [256, 512, 1024, 2048, 4096, 8192]


@pytest.fixture(autouse=True)
def _own_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(tmp_path / "cache"))


def test_event_timing_measures_the_kernel() -> None:
    n = 1 << 26
    x = torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    args = (x, out, 2.0, 4096)
    benchmark(None, (n // 4096,), tk.scaled_copy, args)  # compile and warm up
    us = min(benchmark(None, (n // 4096,), tk.scaled_copy, args) for _ in range(5))
    tb_per_s = 8 * n / us / 1e6
    print(f"scaled_copy of 2^26 floats: {us:.1f} us, {tb_per_s:.2f} TB/s")
    assert 0.2 < tb_per_s < 4.0  # an H100 moves at most ~3.3 TB/s
    torch.testing.assert_close(out, 2 * x)


def test_exhaustive_search_on_torch_tensors() -> None:
    n = 3_000_001
    x = torch.randn(n, device="cuda")
    out = torch.full_like(x, float("nan"))
    result = exhaustive_search(
        BLOCKS, torch.cuda.current_stream(), lambda b: (math.ceil(n / b),), tk.scaled_copy,
        lambda b: (x, out, 0.5, b), lambda b: {"num_warps": 4 if b <= 1024 else 8})
    assert len(result.successes) == len(BLOCKS) and result.failures == ()
    assert all(0 < m.mean_us < 5000 for m in result.successes)
    assert result.best.mean_us == min(m.mean_us for m in result.successes)
    torch.testing.assert_close(out, 0.5 * x)  # the last run's results stay


def test_exhaustive_search_in_place_with_copies_and_a_side_stream() -> None:
    x = torch.arange(100_000, device="cuda", dtype=torch.float32)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    result = exhaustive_search([128, 256, 1024], side, lambda b: (math.ceil(100_000 / b),),
                               tk.add_one_in_place, lambda b: (x.clone(), b), quiet=True)
    torch.testing.assert_close(x, torch.arange(100_000, device="cuda", dtype=torch.float32))
    block = result.best.config
    ct.launch(None, (math.ceil(100_000 / block),), tk.add_one_in_place, (x, block))
    torch.testing.assert_close(x, torch.arange(100_000, device="cuda", dtype=torch.float32) + 1)


def test_autotune_in_place_then_warm() -> None:
    kernel = ct.autotune(configs=[ct.Config({"BLOCK": b}, num_warps=w)
                                  for b, w in [(256, 4), (1024, 4), (4096, 8)]],
                         key=["x"])(tk.add_one_in_place)
    x = torch.randn(1_000_003, device="cuda")
    expected = x + 1

    def grid(a):
        return (math.ceil(a["x"].shape[0] / a["BLOCK"]),)

    ct.launch(None, grid, kernel, (x,))
    torch.cuda.synchronize()
    torch.testing.assert_close(x, expected)
    searched = kernel.last_result
    assert searched is not None and len(searched.successes) == 3
    start = time.perf_counter()
    ct.launch(None, grid, kernel, (x,))
    torch.cuda.synchronize()
    warm = time.perf_counter() - start
    assert kernel.last_result is searched  # no second search
    torch.testing.assert_close(x, expected + 1)
    print(f"warm autotuned launch: {warm * 1e3:.2f} ms")
    assert warm < 0.01


def test_failed_config_is_skipped_on_the_gpu() -> None:
    kernel = ct.autotune(configs=[{"BLOCK": -4}, {"BLOCK": 512}], key=["x"])(tk.scaled_copy)
    x = torch.randn(4096, device="cuda")
    out = torch.empty_like(x)
    with pytest.warns(UserWarning, match="failed and is skipped"):
        ct.launch(None, (8,), kernel, (x, out, 3.0))
    torch.cuda.synchronize()
    torch.testing.assert_close(out, 3 * x)


def test_cold_and_warm_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same 6-config search, cold (nothing compiled: workers compile in parallel) and warm
    (a new autotuned kernel, as in a new process: the choice and the binary come from disk)."""
    monkeypatch.setenv("TILELANG_COMPILE_WORKERS", "8")
    configs = [ct.Config({"BLOCK": b}, num_warps=4 if b <= 1024 else 8) for b in BLOCKS]
    n = 1 << 24
    x = torch.randn(n, device="cuda")
    out = torch.empty_like(x)

    def grid(a):
        return (math.ceil(n / a["BLOCK"]),)

    # a kernel object of its own: earlier tests in this process compiled some of these
    # configurations of tk.scaled_copy into its in-memory cache, and those are no build jobs
    copy = ct.kernel(tk.scaled_copy.fn)

    def launch_fresh():
        kernel = ct.autotune(configs=configs, key=["x"])(copy)
        start = time.perf_counter()
        ct.launch(None, grid, kernel, (x, out, 1.5))
        torch.cuda.synchronize()
        return time.perf_counter() - start, kernel

    cold, kernel = launch_fresh()
    torch.testing.assert_close(out, 1.5 * x)
    # every config built once: by the workers, or here (jobs no worker took)
    stats = compile_pool.stats
    assert stats["by_workers"] + stats["here"] + stats["from_disk"] == len(BLOCKS), stats
    warm, again = launch_fresh()
    assert again.last_result is None  # no search: the record on disk
    assert again.cache == kernel.cache  # the chosen configs
    print(f"6-config search: cold {cold:.3f} s, warm {warm * 1e3:.2f} ms")
    assert cold < 10 and warm < 0.1
