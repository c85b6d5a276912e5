"""Structured kernel arguments to PTX on the CPU: a list of arrays indexed at run time becomes
selects over its arrays' parameters, IndexedWithInt64 shapes stay 64-bit, and every kernel
assembles for sm_80 and sm_90."""

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct


@ct.kernel
def pick(xs, out, i):
    ct.store(out, (0,), ct.load(xs[i], (0,), (64,)))


@ct.kernel
def extent(x: ct.IndexedWithInt64, out):
    ct.store(out, (0,), ct.full((1,), x.shape[0] * x.strides[0], ct.int64))


@ct.kernel
def nested(t, out):
    ct.store(out, (0,), ct.load(t[0], (0,), (64,)) * t[1][0] + t[1][1])


F32 = np.zeros(256, np.float32)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_list_indexed_at_run_time(arch):
    compiled = ct.compile(pick, ([F32, F32[1:], F32[::2]], F32.copy(), 1), arch=arch)
    assert '"tile.array_select"' in compiled.asm["tile-opt"]
    params = [line for line in compiled.ptx.splitlines() if ".param" in line and
              line.strip().startswith(".param")]
    assert len(params) == 4 * 3 + 1  # each array: pointer, extent, stride; then `i`
    assert compiled.resources().spill_stores == 0


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_int64_extents(arch):
    compiled = ct.compile(extent, (np.zeros((5, 3), np.float32), np.zeros(1, np.int64)),
                          arch=arch)
    queries = [line for line in compiled.asm["tile"].splitlines()
               if '"tile.dim"' in line or '"tile.stride"' in line]
    assert queries and all(line.endswith("-> i64") for line in queries)
    assert "cvt.s64.s32" not in compiled.ptx  # a 64-bit product, not a widened 32-bit one
    assert compiled.resources().registers > 0


def test_tuple_leaves_are_kernel_parameters_in_order():
    compiled = ct.compile(nested, ((F32, (2.0, 3)), F32.copy()), stop_after="tile")
    header = compiled.asm["tile"].split("attributes {tile.kernel")[0]
    for name in ('"t[0]"', '"t[1][0]"', '"t[1][1]"', '"out"'):
        assert name in header
    assert header.index('"t[0]"') < header.index('"t[1][0]"') < header.index('"t[1][1]"') < \
        header.index('"out"')
