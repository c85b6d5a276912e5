"""One set of launch limits on every backend: grids beyond CUDA's (2^31 - 1 blocks along x,
65535 along y and z) are a `TileLaunchError` on the interpreter as on the GPU path, and a tile of
more than 2**24 elements is a `TileValueError` at the line that makes it, when compiling."""

from __future__ import annotations

import time

import numpy as np
import pytest

import tilelang as ct
from tilelang.frontend.semantics import MAX_TILE_ELEMENTS
from tilelang.runtime import fast_path
from tilelang.runtime.grid import MAX_GRID, normalize_grid
from tilelang.runtime.state import state_of
from tilelang.runtime.streams import stream_handle


@ct.kernel
def mark(out):
    ct.store(out, (0,), ct.bid(0) + ct.bid(1) + ct.bid(2) + 1)
    ct.assert_(ct.bid(0) < 0, "a block ran")  # a grid let through fails at its first block


OVER = [
    ((1, 65536), "65536 blocks along y"),
    ((1, 1, 65536), "65536 blocks along z"),
    ((2**31,), "2147483648 blocks along x"),
    ((2**31, 1, 1), "along x"),
    ((1, 2**40), "along y"),
    ([3, 70000], "70000 blocks along y"),
]


@pytest.mark.parametrize(("grid", "says"), OVER)
def test_the_interpreter_refuses_grids_the_gpu_refuses(monkeypatch, grid, says):
    monkeypatch.setenv("TILELANG_INTERPRET", "1")
    out = np.zeros(1, np.int32)
    start = time.perf_counter()
    with pytest.raises(ct.TileLaunchError, match=says) as info:
        ct.launch(None, grid, mark, (out,))
    assert time.perf_counter() - start < 5  # refused before any block runs
    assert "at most" in str(info.value) and "hint" in str(info.value)
    assert out[0] == 0


@pytest.mark.parametrize(("grid", "says"), OVER)
def test_the_gpu_path_refuses_them_with_the_same_check(monkeypatch, grid, says):
    """The GPU launch's slow path checks the grid first (no GPU is needed to see it)."""
    monkeypatch.delenv("TILELANG_INTERPRET", raising=False)
    kernel = ct.kernel(mark._pyfunc, interpret=False)
    with pytest.raises(ct.TileLaunchError, match=says):
        ct.launch(None, grid, kernel, (np.zeros(1, np.int32),))


def test_the_generated_fast_path_hands_grids_over_the_limits_to_the_slow_path():
    handed: list = []
    kernel = ct.kernel(mark._pyfunc)
    fast = fast_path.generate(kernel, lambda k, s, grid, a: handed.append(grid), stream_handle)
    x = np.zeros(1, np.int32)
    state_of(kernel).fast_table[fast_path.fast_key(kernel, (x,))] = _NeverCalled()
    for grid, _ in OVER:
        fast(0, tuple(grid), (x,))
    assert handed == [tuple(grid) for grid, _ in OVER]


class _NeverCalled:
    loaded = type("Loaded", (), {"device": 0})()

    def call(self, *args):
        raise AssertionError(f"the launcher was called with {args}")


def test_the_largest_grids_pass_the_check():
    assert normalize_grid((2**31 - 1, 65535, 65535)) == MAX_GRID
    assert normalize_grid(2**31 - 1) == (2**31 - 1, 1, 1)
    assert normalize_grid([4, 65535]) == (4, 65535, 1)


@pytest.mark.parametrize("grid", [(0,), (-1,), (1, 0), (1, 1, -5)])
def test_zero_and_negative_sizes_stay_argument_errors(monkeypatch, grid):
    monkeypatch.setenv("TILELANG_INTERPRET", "1")
    with pytest.raises(ct.TileArgumentError, match="positive"):
        ct.launch(None, grid, mark, (np.zeros(1, np.int32),))


def test_grids_at_the_limit_run_on_the_interpreter(monkeypatch):
    monkeypatch.setenv("TILELANG_INTERPRET", "1")

    @ct.kernel
    def last(out):
        if ct.bid(1) == ct.num_blocks(1) - 1:
            ct.store(out, (0,), ct.bid(1))

    out = np.zeros(1, np.int32)
    ct.launch(None, (1, 65535), last, (out,))
    assert out[0] == 65534


def test_the_largest_grid_starts_at_once(monkeypatch):
    """Blocks are made as they run: the first of 2^31 - 1 fails in no time (no list of every
    index is built first)."""
    monkeypatch.setenv("TILELANG_INTERPRET", "1")
    start = time.perf_counter()
    with pytest.raises(ct.TileInterpreterError, match=r"a block ran"):
        ct.launch(None, (2**31 - 1, 2, 3), mark, (np.zeros(1, np.int32),))
    assert time.perf_counter() - start < 5


# ----- tile sizes ------------------------------------------------------------------------------


@ct.kernel
def full_tile(x, B: ct.Constant[int], C: ct.Constant[int]):
    t = ct.full((B, C), 1.0, dtype=ct.float32)  # the line the error points at
    ct.store(x, (0, 0), t)


@ct.kernel
def broadcast_tile(x, B: ct.Constant[int]):
    a = ct.load(x, (0, 0), (B, 1))
    b = ct.load(x, (0, 0), (1, B))
    ct.store(x, (0, 0), a + b)  # (B, 1) + (1, B): B * B elements


@ct.kernel
def arange_tile(x, B: ct.Constant[int]):
    ct.store(x, (0,), ct.arange(B, dtype=ct.int32))


@pytest.mark.parametrize(("kernel", "args", "line"), [
    (full_tile, (2**20, 2**20), "t = ct.full((B, C), 1.0, dtype=ct.float32)"),
    (full_tile, (2**12, 2**12 + 1), "t = ct.full((B, C), 1.0, dtype=ct.float32)"),
    (broadcast_tile, (2**13,), "ct.store(x, (0, 0), a + b)"),
])
def test_tiles_over_the_limit_are_value_errors_at_their_line(monkeypatch, kernel, args, line):
    monkeypatch.setenv("TILELANG_INTERPRET", "1")
    x = np.zeros((4, 4), np.float32)
    start = time.perf_counter()
    with pytest.raises(ct.TileValueError, match=r"a tile may have at most 16777216") as info:
        ct.launch(None, (1,), kernel, (x, *args))
    assert time.perf_counter() - start < 30
    text = str(info.value)
    assert __file__ in text and line in text, text
    assert "MemoryError" not in text


def test_one_dimensional_tiles_over_the_limit():
    x = np.zeros(4, np.int32)
    with pytest.raises(ct.TileValueError, match=r"\(33554432,\) has 33554432 elements"):
        ct.compile(arange_tile, (x, 2**25), stop_after="tile")


def test_a_tile_at_the_limit_compiles():
    assert MAX_TILE_ELEMENTS == 2**24
    x = np.zeros((4, 4), np.float32)
    ct.compile(full_tile, (x, 2**12, 2**12), stop_after="tile")
    ct.compile(broadcast_tile, (x, 2**12), stop_after="tile")
