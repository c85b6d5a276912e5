"""The general passes' paths under compute-sanitizer: one GPU test of each, run in a process of
its own under memcheck (out-of-bounds and misaligned accesses) and racecheck (shared-memory
hazards between threads): staged attention with and without the producer warpgroup's ping-pong,
products kept in flight a step, warp-specialized rings shared by two loops, persistent GEMM and
attention, two blocks an SM with a producer warp, the gathered-rows ring, lists of arrays by
TMA, TMA stores, row runs read as vectors, a persistent loop's prefetched tiles, float8 B given
(K, N), a column-major B read through its row-major view by TMA (bf16 and fp8), a column-major
A read M-major, split accumulators. Each case is small and awkward (partial tiles, one-row
tiles), so the sanitizer's slowdown stays within seconds."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gpu.test_fuzz_gpu import _sanitizer

pytestmark = [pytest.mark.gpu, pytest.mark.sanitizer]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

PATHS = {  # name: (file, test), under tests/gpu
    "attention ping-pong": ("test_staged_attention", "test_assemblers_and_turns[333-333-1-none]"),
    "attention causal": ("test_staged_attention",
                         "test_staged_attention[300-300-True-128-128x128w8]"),
    "attention one producer turn": ("test_staged_attention",
                                    "test_assemblers_and_turns[1-1000-0-none]"),
    "products one step late": ("test_staged_attention",
                               "test_products_one_iteration_late[129-517-False-config1-1]"),
    "two loops one ring": ("test_warp_specialize_gpu",
                           "test_two_loops_share_one_ring[tile4-4-129-300-64-40-128]"),
    "persistent gemm": ("test_warp_specialize_gpu", "test_persistent_gemm[300-520-72-132-tile0]"),
    "persistent attention": ("test_warp_specialize_gpu", "test_persistent_attention[5]"),
    "producer warp, two blocks": ("test_warp_specialize_gpu",
                                  "test_two_blocks_an_sm_with_a_producer_warp[257-304-72-8]"),
    "gathered rows": ("test_gathered_rows_gpu", "test_gathered_matmul[dtype0-196-tiles0]"),
    "gathered expert rows": ("test_gathered_rows_gpu", "test_gathered_expert_matmul[32]"),
    "list by tma": ("test_list_tma_gpu",
                    "test_grouped_matmul_picks_each_group_s_tensor_maps[dtype0-tiles0]"),
    "tma store": ("test_tma_store_gpu",
                  "test_gemm_stores_its_tiles_with_tma[129-1000-72-c_dtype0-tile0-8]"),
    "tma store, persistent": (
        "test_tma_store_gpu",
        "test_persistent_gemm_reuses_the_store_buffer_tile_after_tile[300-520-72-132]"),
    "row runs": ("test_row_runs_gpu", "test_row_copy[dtype1-300-0]"),
    "prefetched tiles": ("test_chunk_prefetch_gpu", "test_persistent_rms_norm[dtype0-7]"),
    "fp8 b k-by-n": ("test_wgmma", "test_fp8_batched_gemm_with_b_given_k_by_n"),
    "column-major b by tma": ("test_row_major_views_gpu",
                              "test_column_major_b[sm_90-129-264-200-dtype0-128x128x64x8-1]"),
    "column-major a": ("test_row_major_views_gpu",
                       "test_column_major_a[sm_90-136-264-200-False-128x256x64x8-1]"),
    "fp8 column-major b": ("test_row_major_views_gpu",
                           "test_fp8_column_major_b_is_read_k_major[64x128x128x4]"),
    "split accumulators": ("test_split_accumulators_gpu",
                           "test_split_epilogue_with_a_bias_row[sm_90]"),
}


@pytest.mark.parametrize("tool", ["memcheck", "racecheck"])
@pytest.mark.parametrize("path", list(PATHS), ids=lambda p: p.replace(" ", "-"))
def test_path_under_compute_sanitizer(path: str, tool: str, tmp_path: Path) -> None:
    file, test = PATHS[path]
    node = f"tests/gpu/{file}.py::{test}"
    command = [_sanitizer(), "--tool", tool, "--report-api-errors", "no", "--error-exitcode", "9",
               sys.executable, "-m", "pytest", "-q", "-m", "gpu", "-p", "no:cacheprovider",
               "-p", "no:xdist", "-p", "no:randomly", "-W", "ignore", node]
    env = {**os.environ, "TILELANG_CACHE_DIR": str(tmp_path)}
    env.pop("PYTEST_XDIST_WORKER", None)
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600, cwd=ROOT)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-4000:]
    assert "1 passed" in out, out[-4000:]
    summary = "RACECHECK SUMMARY: 0 hazards" if tool == "racecheck" else "ERROR SUMMARY: 0 errors"
    assert summary in out, out[-4000:]
