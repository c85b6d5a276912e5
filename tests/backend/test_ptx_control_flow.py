"""Front end to PTX on the CPU for run-time control flow: `break`/`continue` (scf.while with
flags), `while True`, `return` from kernels and helpers, and tuples and arrays carried through
scf ops all lower to PTX that ptxas (or nvJitLink) assembles for sm_80 and sm_90."""

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct


@ct.kernel
def search_rows(x, out, n_cols, threshold):
    i = ct.bid(0)
    j = 0
    found = -1
    while True:
        if j >= n_cols:
            break
        if ct.load(x, (i, j), (1, 1)).item() > threshold:
            found = j
            break
        j += 1
    ct.store(out, (i,), found)


@ct.kernel
def chunks_until_budget(x, out, budget, n_chunks, B: ct.Constant[int]):
    i = ct.bid(0)
    acc = ct.zeros((1, B), ct.float32)
    for c in range(n_chunks):
        chunk = ct.load(x, (i, c), (1, B), padding_mode=ct.PaddingMode.ZERO)
        if c % 2 == 1:
            continue
        if ct.sum(acc + chunk) > budget:  # a block-wide reduction decides the break
            break
        acc += chunk
    ct.store(out, (i, 0), acc)


def _clamp(t, limit):
    if ct.max(t) > limit:
        return ct.minimum(t, limit)
    return t * 2.0


@ct.kernel
def early_returns(x, out, n):
    i = ct.bid(0)
    if i == n:
        return
    t = ct.load(x, (i, 0), (1, 64))
    k = 0
    while k < n:
        if ct.sum(t) > 1000.0:
            return
        t = _clamp(t, 50.0) + 1.0
        k += 1
    ct.store(out, (i, 0), t)


@ct.kernel
def carried_arrays(x, y, n, TILE: ct.Constant[int]):
    if ct.bid(0) == 0:
        target = x
    else:
        target = y
    ct.store(target, (0,), ct.full((TILE,), 1.0, ct.float32))
    views = (x.tiled_view(TILE), y.tiled_view(TILE))
    k = 0
    while k < n:
        views = (views[1], views[0])
        k += 1
    ct.store(target, (1,), views[0].load(0) + 1.0)


F32 = np.zeros((16, 128), np.float32)
CASES = {
    "search_rows": (search_rows, (F32, np.zeros(16, np.int32), 128, 0.5)),
    "chunks_until_budget": (chunks_until_budget, (F32, F32, 10.0, 4, 32)),
    "early_returns": (early_returns, (F32, F32, 3)),
    "carried_arrays": (carried_arrays, (F32[0], F32[1].copy(), 3, 64)),
}


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_control_flow_assembles(name: str, arch: str) -> None:
    kernel, args = CASES[name]
    compiled = ct.compile(kernel, args, arch=arch)
    simt = compiled.asm["simt"]
    assert "scf.while" in simt or "scf.for" in simt or name == "carried_arrays"
    resources = compiled.resources()  # assembles with ptxas (or nvJitLink)
    assert resources.spill_stores == 0 and resources.spill_loads == 0
    assert 0 < resources.registers <= 128


def test_carried_array_is_its_pointer_extent_and_stride() -> None:
    kernel, args = CASES["carried_arrays"]
    simt = ct.compile(kernel, args, stop_after="simt").asm["simt"]
    assert "-> (!llvm.ptr<1>, i64, i64)" in simt  # the scf.if choosing x or y
