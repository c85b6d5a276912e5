"""Launches from several Python threads at once on the interpreter: a compiled kernel holds no
state of any one launch (block index, grid), and a specialization compiled cold while other
threads launch it, or another one, warm is compiled once and never seen half built."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tilelang as ct
from tilelang.runtime.state import state_of
from tilelang.testing.threads import add_one, double, negate
from tilelang.testing.threads import in_threads as run_in_threads

THREADS = 8
N = 65536
BLOCK = 64


@pytest.fixture(autouse=True)
def _interpret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TILELANG_INTERPRET", "1")


@ct.kernel
def grid_of(out):
    ct.store(out, (ct.bid(0), ct.bid(1)), ct.num_blocks(0) * 1000 + ct.num_blocks(1))


@ct.kernel
def fail_in_block(k):
    ct.assert_(ct.bid(0) != k, "the chosen block")


def in_threads(work: Callable[[int], Any], count: int = THREADS) -> list[Any]:
    return run_in_threads(work, count)


def own_input(t: int) -> np.ndarray:
    """Thread t's data: no element equal to any other thread's."""
    return np.arange(N, dtype=np.float32) + np.float32(t * N)


def mismatches(kernel: Any, fn: Callable[[np.ndarray], np.ndarray], t: int) -> int:
    x = own_input(t)
    y = np.full(N, np.nan, np.float32)
    ct.launch(None, (N // BLOCK,), kernel, (x, y, BLOCK))
    return int((y != fn(x)).sum())


def test_one_kernel_from_eight_threads():
    ct.launch(None, (1,), double, (own_input(0)[:BLOCK], np.empty(BLOCK, np.float32), BLOCK))
    for _ in range(3):
        bad = in_threads(lambda t: mismatches(double, lambda x: 2 * x, t))
        assert bad == [0] * THREADS


def test_one_kernel_cold_from_eight_threads(monkeypatch):
    """Every thread's first launch needs the one specialization: it is compiled once."""
    kernel = ct.kernel(double._pyfunc)
    calls = count_compiles(monkeypatch)
    bad = in_threads(lambda t: mismatches(kernel, lambda x: 2 * x, t))
    assert bad == [0] * THREADS
    assert calls(kernel) == 1


def test_different_kernels_at_once():
    kernels = [(double, lambda x: 2 * x), (add_one, lambda x: x + 1), (negate, lambda x: -x)]
    for _ in range(2):
        bad = in_threads(lambda t: mismatches(*kernels[t % len(kernels)], t))
        assert bad == [0] * THREADS


def test_cold_compile_races_warm_launches(monkeypatch):
    """Half the threads launch a warm specialization while the other half need a new one (other
    dtype) of the same kernel."""
    kernel = ct.kernel(double._pyfunc)
    ct.launch(None, (1,), kernel, (own_input(0)[:BLOCK], np.empty(BLOCK, np.float32), BLOCK))
    calls = count_compiles(monkeypatch)

    def work(t: int) -> int:
        dtype = np.float32 if t % 2 else np.float64
        x = own_input(t).astype(dtype)
        y = np.full(N, np.nan, dtype)
        ct.launch(None, (N // BLOCK,), kernel, (x, y, BLOCK))
        return int((y != 2 * x).sum())

    assert in_threads(work) == [0] * THREADS
    assert calls(kernel) == 1  # the float64 one, once
    assert len(state_of(kernel).interpreted) == 2


def count_compiles(monkeypatch: pytest.MonkeyPatch) -> Callable[[Any], int]:
    """Count the compilations of each kernel's function from now on (the interpreter's launch
    imports compile_signature when it needs it)."""
    import tilelang.compiler as compiler

    real, seen = compiler.compile_signature, []

    def counting(fn: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(fn)
        return real(fn, *args, **kwargs)

    monkeypatch.setattr(compiler, "compile_signature", counting)
    return lambda kernel: sum(fn is kernel.fn for fn in seen)


def test_each_launch_sees_its_own_grid():
    def work(t: int) -> bool:
        grid = (64 + t, 8 - t)
        out = np.zeros((64 + t, 8 - t), np.int32)
        for _ in range(3):
            ct.launch(None, grid, grid_of, (out,))
            if not (out == (64 + t) * 1000 + 8 - t).all():
                return False
        return True

    assert in_threads(work) == [True] * THREADS


def test_assertion_names_its_own_block():
    def work(t: int) -> str:
        with pytest.raises(ct.TileInterpreterError) as e:
            ct.launch(None, (4096,), fail_in_block, (1000 + 100 * t,))
        return str(e.value)

    for t, message in enumerate(in_threads(work)):
        assert f"assertion failed in block ({1000 + 100 * t}, 0, 0)" in message
