"""tile-pipeline-loads on a whole persistent kernel (tilelang/testing/norm_kernels.py's
`persistent_rms_norm`, cuTile's static persistent RMS norm in short): its grid-stride loop
stores into another array and still loads its next row tile during this one; the kernel's own
numbers on the interpreter, in place too (tests/gpu/test_chunk_prefetch_gpu.py runs it on the
GPU)."""

import re

import numpy as np
import pytest

import tilelang as ct
from tilelang.testing.norm_kernels import persistent_rms_norm


def _layout(args) -> str:
    return ct.compile(persistent_rms_norm, args, arch="sm_90", stop_after="layout").asm["layout"]


def test_the_grid_stride_loop_carries_its_next_tile():
    x, w = np.zeros((301, 1024), np.float32), np.zeros(1024, np.float32)
    ir = _layout((x, w, np.zeros_like(x), 2, 1024))
    before, loop = ir[:ir.index("scf.for")], ir[ir.index("scf.for"):]
    assert '"tile.load"(%arg0' in before, "the first tile is loaded before the loop"
    header = loop.split("\n")[0]
    assert re.search(r"iter_args\(%\w+ = %\w+\)", header), "and carried into it"
    step = re.match(r"scf\.for %\w+ = %\w+ to %\w+ step (%\w+)", header).group(1)
    nxt = re.search(r"(%\w+) = \"tile.add\"\(%\w+, " + step + r"\)", loop).group(1)
    body = loop[loop.index("{"):]
    # each iteration loads the tile `step` rows of tiles on, before it stores this one
    assert body.index(f'"tile.load"(%arg0, {nxt}') < body.index('"tile.store"(%arg2')


def test_the_same_array_for_both_still_prefetches():
    """In place (x passed for y): the parameters differ, so the load moves; each iteration
    reads and writes its own tile, which keeps it correct (below, and on the GPU)."""
    x, w = np.zeros((301, 1024), np.float32), np.zeros(1024, np.float32)
    ir = _layout((x, w, x, 2, 1024))
    assert "iter_args" in ir[ir.index("scf.for"):].split("\n")[0]


@pytest.mark.parametrize("in_place", [False, True])
@pytest.mark.parametrize("blocks", [1, 3, 40])
def test_numbers_on_the_interpreter(monkeypatch, blocks, in_place):
    monkeypatch.setenv("TILELANG_INTERPRET", "1")
    rng = np.random.default_rng(blocks)
    x = rng.standard_normal((31, 100)).astype(np.float32)
    w = rng.standard_normal(100).astype(np.float32)
    want = x / np.sqrt((x * x).mean(1, keepdims=True) + 1e-6) * w
    y = x if in_place else np.full_like(x, np.nan)
    ct.launch(None, (blocks,), persistent_rms_norm, (x, w, y, 2, 100))
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)
