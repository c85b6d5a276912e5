"""The GPU side of a search without a GPU: candidates' specializations are built once each
(PTX for sm_90) and installed in their kernels before timing; compile failures become the
candidates' failures. The device (its architecture, loading, launchers) is faked."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import tuning_kernels as tk

import tilelang as ct
from tilelang.runtime import binary, build, gpu_launch
from tilelang.tune.prebuild import prebuild
from tilelang.tune.progress import Progress
from tilelang.tune.search import _candidates


def test_prebuild_builds_each_specialization_once(monkeypatch) -> None:
    monkeypatch.delenv("TILELANG_INTERPRET")
    monkeypatch.setenv("TILELANG_COMPILE_WORKERS", "1")
    monkeypatch.setattr(binary, "device_arch", lambda device: "sm_90")
    monkeypatch.setattr(gpu_launch, "_target",
                        lambda kernel, stream, args: (kernel.specialize(args), [], 0))
    loaded = []

    def load(name, ptx, cubin, device, shared):
        loaded.append(ptx)
        return SimpleNamespace(ptx=ptx)

    monkeypatch.setattr(binary, "load", load)
    monkeypatch.setattr(build, "Launcher",
                        lambda kernel, signature, threads: ("launcher", threads))
    kernel = ct.kernel(tk.scaled_copy.fn)  # its own caches
    x = np.zeros(1000, np.float32)
    configs = [(64, 4), (128, 4), (64, 8), (64, 4), (-4, 4)]
    candidates, failures = _candidates(configs, lambda c: (1,), kernel,
                                       lambda c: (x, x.copy(), 1.0, c[0]),
                                       lambda c: {"num_warps": c[1]})
    assert failures == []
    failed = prebuild(candidates, None, Progress("test", enabled=False))
    assert list(failed) == [4] and failed[4][0] is ct.TileValueError
    assert len(loaded) == 3  # (64, 4) twice: one build, installed once
    assert all(".target sm_90" in ptx for ptx in loaded)
    four, eight = kernel.replace_hints(num_warps=4), kernel.replace_hints(num_warps=8)
    assert candidates[0].kernel is four and candidates[2].kernel is eight
    gpu_keys = [k for k in four.cache if k[0] == "gpu"]
    assert len(gpu_keys) == 2 and all(four.cache[k] == ("launcher", 128) for k in gpu_keys)
    assert [eight.cache[k] for k in eight.cache if k[0] == "gpu"] == [("launcher", 256)]
    # a second search finds them loaded: nothing to build
    assert prebuild(candidates[:4], None, Progress("test", enabled=False)) == {}
    assert len(loaded) == 3


def test_interpreter_candidates_are_left_to_their_first_run() -> None:
    x = np.zeros(64, np.float32)
    candidates, _ = _candidates([64], lambda c: (1,), tk.scaled_copy,
                                lambda c: (x, x.copy(), 1.0, c), None)
    assert prebuild(candidates, None, Progress("test", enabled=False)) == {}
    assert not any(k[0] == "gpu" for k in tk.scaled_copy.cache)
