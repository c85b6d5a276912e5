"""What assume_divisible_by and the grid dependency control change in the code: wider accesses
through a slice whose start is promised a multiple, and griddepcontrol on sm_90."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest

import tilelang as ct

X = np.zeros(4096, np.float32)


def vector_loads(ptx: str) -> set[str]:
    """The kinds of global loads in `ptx` that read more than one element ("ld.global.v4.b32")
    (the element-wise path of tiles at the array's edge loads one at a time: "ld.global.b32")."""
    return set(re.findall(r"\bld\.global\.v[0-9]\.[a-z0-9]+", ptx))


@ct.kernel
def slice_at_run_time_start(x, y, start):
    rows = x.slice(0, start, start + 128)
    ct.store(y, (0,), ct.load(rows, (0,), (128,)))


@ct.kernel
def slice_at_promised_start(x, y, start, D: ct.Constant[int]):
    start = ct.assume_divisible_by(start, D)
    rows = x.slice(0, start, start + 128)
    ct.store(y, (0,), ct.load(rows, (0,), (128,)))


@ct.kernel
def slice_at_derived_start(x, y, n):
    n = ct.assume_divisible_by(n, 8)
    start = ct.bid(0) * n + 4  # a multiple of 4 elements: 16 bytes of float32
    rows = x.slice(0, start, start + 128)
    ct.store(y, (0,), ct.load(rows, (0,), (128,)))


def test_a_promised_start_keeps_the_slice_aligned_for_vector_loads():
    plain = ct.compile(slice_at_run_time_start, (X, X, 8))
    assert vector_loads(plain.ptx) == set()  # 4-byte alignment: one element per load
    hinted = ct.compile(slice_at_promised_start, (X, X, 8, 4))
    assert vector_loads(hinted.ptx) == {"ld.global.v4.b32"}  # 16 bytes: 4 floats at once
    assert '"tile.assume_div_by"(%arg2) {divisor = 4 : i64}' in hinted.asm["tile"]
    # the slice's array type carries the alignment (bytes) the promise gives
    assert "!tile.array<f32, array<i64: 1>, 16 : i64>" in hinted.asm["tile"].split(
        '"tile.slice"')[1].splitlines()[0]


@pytest.mark.parametrize("divisor, loads", [(1, set()), (2, {"ld.global.v2.b32"}),
                                            (4, {"ld.global.v4.b32"}), (64, {"ld.global.v4.b32"})])
def test_the_vector_width_follows_the_divisor(divisor, loads):
    compiled = ct.compile(slice_at_promised_start, (X, X, 8, divisor))
    assert vector_loads(compiled.ptx) == loads


def test_the_fact_carries_through_arithmetic():
    compiled = ct.compile(slice_at_derived_start, (X, X, 8))
    assert vector_loads(compiled.ptx) == {"ld.global.v4.b32"}


@ct.kernel
def consumer(b, produced, out):
    i = ct.bid(0)
    t = ct.load(b, (i,), (32,))
    ct.grid_dependency_control_wait()
    p = ct.load(produced, (i,), (32,))
    ct.grid_dependency_control_launch_dependents()
    ct.store(out, (i,), p + t)


def test_grid_dependency_control_is_in_the_tile_ir():
    ir = ct.compile(consumer, (X, X, X), stop_after="tile").asm["tile"]
    order = [op for op in re.findall(r'"tile\.(\w+)"', ir)
             if op in ("load", "grid_dependency_control_wait",
                       "grid_dependency_control_launch_dependents", "store")]
    assert order == ["load", "grid_dependency_control_wait", "load",
                     "grid_dependency_control_launch_dependents", "store"]


@pytest.mark.parametrize("arch", ["sm_90", "sm_90a"])
def test_griddepcontrol_on_sm_90_in_program_order(arch):
    ptx = ct.compile(consumer, (X, X, X), arch=arch).ptx
    body = [line.strip() for line in ptx.splitlines()]
    wait = body.index("griddepcontrol.wait;")
    launch = body.index("griddepcontrol.launch_dependents;")
    loads = [i for i, line in enumerate(body) if "ld.global" in line]
    stores = [i for i, line in enumerate(body) if "st.global" in line]
    # b is read before the wait, `produced` after it; the result is stored after both
    assert min(loads) < wait < max(loads) < launch < min(stores)


def test_griddepcontrol_is_left_out_before_sm_90():
    ptx = ct.compile(consumer, (X, X, X), arch="sm_80").ptx
    assert "griddepcontrol" not in ptx


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="needs ptxas")
def test_the_ptx_assembles_for_sm_90(tmp_path):
    source = tmp_path / "consumer.ptx"
    source.write_text(ct.compile(consumer, (X, X, X), arch="sm_90").ptx)
    subprocess.run(["ptxas", "-arch=sm_90", str(source), "-o", str(tmp_path / "consumer.cubin")],
                   check=True, capture_output=True)
