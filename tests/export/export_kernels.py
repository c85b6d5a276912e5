"""The kernels the export tests export (CPU: tests/export; GPU: tests/gpu/test_export_gpu.py)."""

from __future__ import annotations

import tilelang as ct


@ct.kernel
def vector_add(a, b, c, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(c, (i,), ct.load(a, (i,), (BLOCK,)) + ct.load(b, (i,), (BLOCK,)))


@ct.kernel
def affine2d(x, bias, out, scale, TM: ct.Constant[int], TN: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    t = ct.load(x, (i, j), (TM, TN)) * scale + ct.load(bias, (j,), (TN,))
    ct.store(out, (i, j), t.astype(out.dtype))
