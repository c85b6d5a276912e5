"""Compile failures on the GPU path are exceptions that point at the user's line."""

from __future__ import annotations

import inspect

import pytest

import tilelang as ct

torch = pytest.importorskip("torch")


@ct.kernel
def bad_shape(x, n):
    t = ct.load(x, (0,), (n,))  # a run-time value as a tile shape
    ct.store(x, (0,), t)


def test_front_end_error_through_launch():
    x = torch.zeros(16, device="cuda")
    with pytest.raises(ct.TileTypeError) as info:
        ct.launch(None, (1,), bad_shape, (x, 16))
    lines, first = inspect.getsourcelines(bad_shape.fn)
    load_line = first + next(i for i, line in enumerate(lines) if "ct.load" in line)
    assert info.value.loc.line == load_line
    assert "ct.load(x, (0,), (n,))" in str(info.value)
    ok = torch.ones(4, device="cuda")  # the process goes on working
    ct.launch(None, (1,), copy4, (ok, ok))
    torch.cuda.synchronize()


@ct.kernel
def copy4(x, y):
    ct.store(y, (0,), ct.load(x, (0,), (4,)))


@ct.kernel
def transpose_tile(x, y, BM: ct.Constant[int], BN: ct.Constant[int]):
    t = ct.load(x, (0, 0), (BM, BN), order=(1, 0))  # a layout change through shared memory
    ct.store(y, (0, 0), t)


def test_conversion_beyond_48_kb_uses_dynamic_shared_memory():
    x = torch.randn(128, 256, device="cuda")
    y = torch.full((256, 128), float("nan"), device="cuda")
    ct.launch(None, (1,), transpose_tile, (x, y, 256, 128))  # 128 KB of shared memory
    torch.cuda.synchronize()
    assert torch.equal(y, x.T)


def test_oversized_conversion_is_a_clear_error():
    x = torch.zeros(512, 512, device="cuda")
    y = torch.zeros(512, 512, device="cuda")
    with pytest.raises(ct.TileUnsupportedFeatureError, match="shared memory") as info:
        ct.launch(None, (1,), transpose_tile, (x, y, 512, 512))  # 1 MB
    message = str(info.value)
    assert "transpose_tile needs" in message and "at most 232448" in message
    assert "ct.load(x, (0, 0), (BM, BN), order=(1, 0))" in message  # the user's line
