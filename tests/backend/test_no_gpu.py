"""Launching on host arrays where no GPU is found: a clear error that names the interpreter."""

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct
from tilelang.runtime import binary
from tilelang.runtime.state import state_of


@ct.kernel
def add_one(x):
    ct.store(x, (0,), ct.load(x, (0,), (4,)) + 1.0)


def test_host_arrays_without_a_gpu(monkeypatch):
    monkeypatch.delenv("TILELANG_INTERPRET", raising=False)
    monkeypatch.setattr(binary, "gpu_count", lambda: 0)
    x = np.zeros(4, np.float32)
    with pytest.raises(ct.TileArgumentError, match="no GPU was found") as info:
        ct.launch(None, (1,), add_one, (x,))
    assert "TILELANG_INTERPRET=1" in info.value.hint
    ct.launch(None, (1,), add_one.replace_hints(interpret=True), (x,))  # what the hint says
    assert x.tolist() == [1.0] * 4


def test_resources_of_an_interpreted_kernel_point_at_compile(monkeypatch):
    """tilelang.resources reads a kernel loaded on a GPU: on the interpreter it says so and names
    what gives the figures without one."""
    monkeypatch.setenv("TILELANG_INTERPRET", "1")
    x = np.zeros(4, np.float32)
    with pytest.raises(ct.TileValueError, match=r"resources\(add_one\): the kernel runs on the "
                       r"interpreter.*tilelang.compile\(kernel, args\).resources\(\)"):
        ct.resources(add_one, (x,))
    assert not state_of(add_one).launchers


def test_resources_without_a_gpu_name_the_argument(monkeypatch):
    monkeypatch.delenv("TILELANG_INTERPRET", raising=False)
    monkeypatch.setattr(binary, "gpu_count", lambda: 0)
    with pytest.raises(ct.TileArgumentError, match="argument `x` is in cpu memory"):
        ct.resources(add_one, (np.zeros(4, np.float32),))
