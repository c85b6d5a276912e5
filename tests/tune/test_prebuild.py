"""The GPU side of a search without a GPU: candidates' specializations are built once each
(PTX for sm_90) and installed in their kernels before timing; compile failures become the
candidates' failures. The device (its architecture, loading, launchers) is faked."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import tuning_kernels as tk

import tilelang as ct
from tilelang.runtime import binary, build, gpu_launch
from tilelang.runtime.state import state_of
from tilelang.tune.prebuild import prebuild
from tilelang.tune.progress import Progress
from tilelang.tune.search import _candidates


def problems(candidates) -> dict:
    """prebuild's problems by config order (every candidate must come once)."""
    found = list(prebuild(candidates, None, Progress("test", enabled=False)))
    assert sorted(c.order for c, _ in found) == sorted(c.order for c in candidates)
    return {c.order: problem for c, problem in found if problem is not None}


@pytest.fixture
def fake_gpu(monkeypatch):
    """An sm_90 device 0 that takes every launch's arguments."""
    monkeypatch.delenv("TILELANG_INTERPRET")
    monkeypatch.setattr(binary, "device_arch", lambda device: "sm_90")
    monkeypatch.setattr(gpu_launch, "target",
                        lambda kernel, stream, args: (kernel.specialize(args), [], 0))


@pytest.mark.parametrize("workers", ["1", "3"])
def test_prebuild_builds_each_specialization_once(fake_gpu, monkeypatch, workers) -> None:
    monkeypatch.setenv("TILELANG_COMPILE_WORKERS", workers)
    loaded = []

    def load(name, ptx, cubin, device, shared):
        loaded.append(ptx)
        return SimpleNamespace(ptx=ptx)

    monkeypatch.setattr(binary, "load", load)
    monkeypatch.setattr(build, "Launcher",
                        lambda kernel, signature, threads, maps=None: ("launcher", threads))
    kernel = ct.kernel(tk.scaled_copy.fn)  # its own caches
    x = np.zeros(1000, np.float32)
    configs = [(64, 4), (128, 4), (64, 8), (64, 4), (-4, 4)]
    candidates, failures = _candidates(configs, lambda c: (1,), kernel,
                                       lambda c: (x, x.copy(), 1.0, c[0]),
                                       lambda c: {"num_warps": c[1]})
    assert failures == []
    failed = problems(candidates)
    assert list(failed) == [4] and failed[4][0] is ct.TileTypeError
    assert len(loaded) == 3  # (64, 4) twice: one build, installed once
    assert all(".target sm_90" in ptx for ptx in loaded)
    four, eight = kernel.replace_hints(num_warps=4), kernel.replace_hints(num_warps=8)
    assert candidates[0].kernel is four and candidates[2].kernel is eight
    launchers = list(state_of(four).launchers.values())
    assert launchers == [("launcher", 128)] * 2
    assert list(state_of(eight).launchers.values()) == [("launcher", 256)]
    # a second search finds them loaded: nothing to build
    assert problems(candidates[:4]) == {}
    assert len(loaded) == 3


def test_interpreter_candidates_are_left_to_their_first_run() -> None:
    x = np.zeros(64, np.float32)
    candidates, _ = _candidates([64], lambda c: (1,), tk.scaled_copy,
                                lambda c: (x, x.copy(), 1.0, c), None)
    assert problems(candidates) == {}
    assert not state_of(tk.scaled_copy).launchers


def test_failures_belong_to_their_configs(fake_gpu, monkeypatch, timer) -> None:
    """A config that fails before compiling (its grid) and one that fails to compile: each
    failure names its own config, and the others are timed as each is loaded."""
    monkeypatch.setenv("TILELANG_COMPILE_WORKERS", "2")
    monkeypatch.setattr(binary, "load", lambda name, ptx, cubin, device, shared: None)
    monkeypatch.setattr(build, "Launcher", lambda kernel, signature, threads, maps=None: "launcher")
    timer(lambda stream, grid, kernel, args: float(args[-1]))
    kernel = ct.kernel(tk.scaled_copy.fn)
    x = np.zeros(1000, np.float32)

    def grid(block):
        if block == 32:
            raise ValueError("no grid for 32")
        return (1,)

    result = ct.tune.exhaustive_search([32, 128, -4, 64], None, grid, kernel,
                                       lambda b: (x, x.copy(), 1.0, b), quiet=True)
    assert [(c, kind) for c, kind, _ in result.failures] == [(32, ValueError),
                                                             (-4, ct.TileTypeError)]
    assert [m.config for m in result.successes] == [128, 64] and result.best.config == 64
