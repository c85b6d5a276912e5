"""tile-unroll-single-iterations and the load merging of tile-eliminate-common-subexpressions
on whole kernels: a norm's chunk loops of one iteration load each tile once; loads are not
merged across a store or a loop of several iterations."""

import numpy as np

import tilelang as ct
from tilelang.testing.norm_kernels import chunked_rms_norm, reload_after_store


def _tile_opt(kernel, args) -> str:
    return ct.compile(kernel, args, arch="sm_90", stop_after="tile-opt").asm["tile-opt"]


def test_one_chunk_a_row_loads_each_tile_once():
    x = np.zeros((40, 1000), np.float32)
    w = np.zeros((1000,), np.float32)
    ir = _tile_opt(chunked_rms_norm, (x, w, x, 1000, 2, 1024))
    assert "scf.for" not in ir
    assert ir.count('"tile.load"(%arg0') == 1  # x: the second pass reuses the first's tile


def test_several_chunks_keep_their_loops_and_loads():
    x = np.zeros((40, 1000), np.float32)
    w = np.zeros((1000,), np.float32)
    ir = _tile_opt(chunked_rms_norm, (x, w, x, 1000, 2, 256))
    assert ir.count("scf.for") == 2
    assert ir.count('"tile.load"(%arg0') == 2


def test_a_store_between_keeps_both_loads():
    x = np.zeros((100,), np.float32)
    ir = _tile_opt(reload_after_store, (x, x, x, 32))
    assert ir.count('"tile.load"') == 2
