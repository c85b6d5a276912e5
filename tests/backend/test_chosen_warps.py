"""The warps of a kernel that does not say: 8 for large tiles without a product and for
persistent kernels without one (compiler.choose_num_warps), 4 for small ones; a hint wins."""

import numpy as np

import tilelang as ct


@ct.kernel
def _scaled_rows(x, y, ROWS: ct.Constant[int], COLS: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(ROWS, COLS))
    ct.store(y, index=(ct.bid(0), 0), tile=t * 2.0)


def _warps(kernel, rows: int, cols: int) -> int:
    x = np.zeros((4 * rows, cols), np.float32)
    compiled = ct.compile(kernel, (x, x, rows, cols), arch="sm_90", stop_after="tile-opt")
    return compiled.options.num_warps


def test_tiles_past_8192_elements_get_8_warps():
    assert _warps(_scaled_rows, 2, 8192) == 8  # 16384 elements: 128 a thread on 4 warps
    assert _warps(_scaled_rows, 4, 4096) == 8


def test_smaller_tiles_keep_4_warps():
    assert _warps(_scaled_rows, 2, 4096) == 4  # 8192 elements: 64 a thread
    assert _warps(_scaled_rows, 1, 1024) == 4


def test_a_hint_wins():
    assert _warps(_scaled_rows.replace_hints(num_warps=4), 2, 8192) == 4
    assert _warps(_scaled_rows.replace_hints(num_warps=16), 1, 1024) == 16


@ct.kernel
def _scaled_rows_persistent(x, y, ROWS: ct.Constant[int], COLS: ct.Constant[int]):
    for i in range(ct.bid(0), ct.cdiv(x.shape[0], ROWS), ct.num_blocks(0)):
        t = ct.load(x, index=(i, 0), shape=(ROWS, COLS))
        ct.store(y, index=(i, 0), tile=t * 2.0)


@ct.kernel
def _scaled_rows_strided(x, y, ROWS: ct.Constant[int], COLS: ct.Constant[int]):
    for i in range(ct.bid(0), ct.cdiv(x.shape[0], ROWS), 3):
        t = ct.load(x, index=(i, 0), shape=(ROWS, COLS))
        ct.store(y, index=(i, 0), tile=t * 2.0)


def test_a_persistent_kernel_gets_8_warps_for_its_one_block_an_sm():
    assert _warps(_scaled_rows_persistent, 2, 1024) == 8
    assert _warps(_scaled_rows_strided, 2, 1024) == 4  # a step other than the grid's size
    assert _warps(_scaled_rows_persistent.replace_hints(num_warps=4), 2, 1024) == 4
