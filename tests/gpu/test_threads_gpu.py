"""Launches from several Python threads at once on the GPU, each thread with its own torch
stream and tensors: every element is checked (a launch must never run with another thread's
arguments, and a specialization compiled cold while others launch warm is compiled once)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import tilelang as ct
from tilelang.runtime.state import state_of
from tilelang.testing.threads import add_one, double, negate
from tilelang.testing.threads import in_threads as run_in_threads

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.gpu

THREADS = 8
N = 65536
BLOCK = 64


def in_threads(work: Callable[[int], Any], count: int = THREADS) -> list[Any]:
    return run_in_threads(work, count)


def own_input(t: int, dtype: Any = None) -> Any:
    """Thread t's data: no element equal to any other thread's (exact in float32)."""
    x = torch.arange(N, device="cuda", dtype=torch.float32) + t * N
    return x.to(dtype) if dtype is not None else x


def mismatches(kernel: Any, fn: Callable[[Any], Any], t: int, repeats: int = 4,
               dtype: Any = None) -> int:
    """Launch `kernel` `repeats` times on this thread's own stream; wrong elements, in all."""
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        x = own_input(t, dtype)
        outs = [torch.full_like(x, float("nan")) for _ in range(repeats)]
        for y in outs:
            ct.launch(stream, (N // BLOCK,), kernel, (x, y, BLOCK))
        stream.synchronize()
        want = fn(x)
        return sum(int((y != want).sum()) for y in outs)


def test_one_kernel_from_eight_threads():
    x = own_input(0)
    ct.launch(torch.cuda.current_stream(), (N // BLOCK,), double, (x, torch.empty_like(x), BLOCK))
    torch.cuda.synchronize()
    for _ in range(3):
        assert in_threads(lambda t: mismatches(double, lambda x: 2 * x, t)) == [0] * THREADS


def test_one_kernel_cold_from_eight_threads():
    kernel = ct.kernel(double._pyfunc)
    assert in_threads(lambda t: mismatches(kernel, lambda x: 2 * x, t)) == [0] * THREADS
    gpu_entries = list(state_of(kernel).launchers)
    assert len({key[1] for key in gpu_entries}) == 1
    assert len(state_of(kernel).timings) == 1  # built (or read from disk) once


def test_different_kernels_at_once():
    kernels = [(double, lambda x: 2 * x), (add_one, lambda x: x + 1), (negate, lambda x: -x)]
    for _ in range(2):
        bad = in_threads(lambda t: mismatches(*kernels[t % len(kernels)], t))
        assert bad == [0] * THREADS


def test_cold_compile_races_warm_launches():
    kernel = ct.kernel(double._pyfunc)
    x = own_input(0)
    ct.launch(torch.cuda.current_stream(), (N // BLOCK,), kernel, (x, torch.empty_like(x), BLOCK))
    torch.cuda.synchronize()

    def work(t: int) -> int:
        dtype = torch.float32 if t % 2 else torch.float64
        return mismatches(kernel, lambda x: 2 * x, t, dtype=dtype)

    assert in_threads(work) == [0] * THREADS
    assert len(state_of(kernel).timings) == 2  # float32 before, float64 once
