"""The warps of a kernel that does not say: 8 for large tiles without a product and for
persistent kernels without one (compiler.choose_num_warps), 4 for small ones and for products
of 64 rows (one warpgroup's wgmma); a hint wins."""

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


@ct.kernel
def _product(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, 1, (BM, BK))):
        acc = ct.mma(ct.load(a, (ct.bid(0), k), (BM, BK)), ct.load(b, (k, 0), (BK, BN)), acc)
    ct.store(c, (ct.bid(0), 0), tile=(acc * 0.5).astype(c.dtype))


@ct.kernel
def _product_and_rows(a, b, c, x, y, BM: ct.Constant[int], BN: ct.Constant[int],
                      BK: ct.Constant[int], COLS: ct.Constant[int]):
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, 1, (BM, BK))):
        acc = ct.mma(ct.load(a, (ct.bid(0), k), (BM, BK)), ct.load(b, (k, 0), (BK, BN)), acc)
    ct.store(c, (ct.bid(0), 0), tile=acc.astype(c.dtype))
    ct.store(y, (ct.bid(0), 0), tile=ct.load(x, (ct.bid(0), 0), (2, COLS)) * 2.0)


def _product_warps(bm: int, bn: int, bk: int = 64) -> int:
    a, b = np.zeros((4 * bm, 2 * bk), np.float16), np.zeros((2 * bk, bn), np.float16)
    c = np.zeros((4 * bm, bn), np.float32)
    compiled = ct.compile(_product, (a, b, c, bm, bn, bk), arch="sm_90", stop_after="tile-opt")
    return compiled.options.num_warps


def test_a_product_of_64_rows_keeps_one_warpgroup():
    """wgmma takes 64 rows a warpgroup and cannot split them over two: its 64 x 256
    accumulator (16384 elements, past LARGE_TILE) stays on 4 warps, 128 values a thread."""
    assert _product_warps(64, 256) == 4
    assert _product_warps(64, 128) == 4
    assert _product_warps(128, 128) == 8  # two warpgroups of 64 rows
    assert _product_warps(32, 512) == 8  # no wgmma shape: the large-tile rule


def test_a_larger_tile_beside_a_64_row_product_still_gets_8_warps():
    a, b = np.zeros((256, 128), np.float16), np.zeros((128, 128), np.float16)
    c = np.zeros((256, 128), np.float32)
    x = np.zeros((8, 16384), np.float32)
    compiled = ct.compile(_product_and_rows, (a, b, c, x, x, 64, 128, 64, 16384), arch="sm_90",
                          stop_after="tile-opt")
    assert compiled.options.num_warps == 8  # 2 x 16384 elements: more than the accumulator
    compiled = ct.compile(_product_and_rows, (a, b, c, x, x, 64, 128, 64, 4096), arch="sm_90",
                          stop_after="tile-opt")
    assert compiled.options.num_warps == 4
