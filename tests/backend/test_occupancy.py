"""The `occupancy` kernel option: PTX's .minnctapersm, which caps registers per thread."""

import numpy as np
import pytest

import tilelang as ct


@ct.kernel
def row_sum_of_squares(x, y, BLOCK: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(1, BLOCK)).astype(ct.float32)
    ct.store(y, index=(ct.bid(0), 0), tile=t * ct.rsqrt(ct.sum(t * t, axis=1, keepdims=True)))


def _compile(**hints):
    x = np.zeros((4, 16384), np.float32)
    return ct.compile(row_sum_of_squares.replace_hints(num_warps=8, **hints), (x, x, 16384))


def test_occupancy_caps_registers():
    free = _compile()
    capped = _compile(occupancy=4)
    assert ".minnctapersm 4" in capped.ptx and ".minnctapersm" not in free.ptx
    # 4 blocks of 256 threads share 65536 registers: at most 64 each
    assert capped.resources().registers <= 64 < free.resources().registers


@pytest.mark.parametrize("bad", [0, 33, 2.0, "2"])
def test_occupancy_must_be_a_small_int(bad):
    with pytest.raises(ct.TileTypeError, match="occupancy must be an int from 1 to 32"):
        row_sum_of_squares.replace_hints(occupancy=bad)
