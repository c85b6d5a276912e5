"""tile-row-major-views (on unless TILELANG_ROW_MAJOR_VIEWS=0): a matrix product's operand
read from a column-major array (PyTorch's `w.t()`) goes through the array's transposed view,
which the staged paths copy by rows. The products' values on the interpreter (which runs the
tile-opt IR the pass rewrote), the path explain reports, and the PTX for sm_90 and sm_80 (no
GPU: the GPU tier has tests/gpu/test_row_major_views_gpu.py)."""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct
from tilelang.testing.kernels import make_matmul

BF16 = ml_dtypes.bfloat16


@pytest.fixture(autouse=True)
def views_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TILELANG_ROW_MAJOR_VIEWS", "1")


def column_major(rng: np.random.Generator, rows: int, cols: int, dtype) -> np.ndarray:
    """A (rows, cols) array whose first dimension is the contiguous one."""
    return rng.standard_normal((cols, rows)).astype(dtype).T


@pytest.mark.parametrize("a_major, b_major", [("row", "column"), ("column", "row"),
                                              ("column", "column")])
def test_products_of_column_major_operands_on_the_interpreter(monkeypatch, a_major, b_major):
    monkeypatch.setenv("TILELANG_INTERPRET", "1")
    rng = np.random.default_rng(3)
    m, n, k = 70, 90, 100  # not multiples of the tiles
    a = column_major(rng, m, k, np.float32) if a_major == "column" else \
        rng.standard_normal((m, k)).astype(np.float32)
    b = column_major(rng, k, n, np.float32) if b_major == "column" else \
        rng.standard_normal((k, n)).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)
    ct.launch(None, (ct.cdiv(m, 32), ct.cdiv(n, 32)), make_matmul(), (a, b, c, 32, 32, 16))
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4,
                               atol=1e-4)


def test_the_tile_opt_ir_reads_a_column_major_b_through_its_transposed_view():
    a, w, c = np.zeros((256, 128), BF16), np.zeros((192, 128), BF16), np.zeros((256, 192), BF16)
    ir = ct.compile(make_matmul(8), (a, w.T, c, 128, 64, 64), arch="sm_90",
                    stop_after="tile-opt").asm["tile-opt"]
    assert '"tile.array_permute"(%arg1) {order = array<i64: 1, 0>}' in ir
    assert "!tile.array<bf16, array<i64: -1, 1>, 16 : i64>" in ir.split("tile.array_permute")[1]


@pytest.mark.parametrize("arch, engine", [("sm_90", "wgmma"), ("sm_80", "mma.sync")])
def test_a_column_major_b_takes_the_staged_k_loop(arch, engine):
    a, w, c = np.zeros((512, 256), BF16), np.zeros((384, 256), BF16), np.zeros((512, 384), BF16)
    report = ct.explain(make_matmul(8), (a, w.T, c, 128, 128, 64), arch=arch)
    (loop,) = report.loops
    assert loop.path == "staged K loop" and loop.detail.startswith(engine), str(report)
    assert report.fallbacks == [], str(report)


def test_a_float8_column_major_b_needs_no_transpose_in_shared_memory():
    """wgmma reads 8-bit B only K-major: a (K, N) array given as `w.t()` already is, where a
    row-major one is transposed in shared memory each stage."""
    e4m3 = ml_dtypes.float8_e4m3fn
    a, w = np.zeros((512, 256), e4m3), np.zeros((384, 256), e4m3)
    c = np.zeros((512, 384), np.float32)
    report = ct.explain(make_matmul(8), (a, w.T, c, 128, 128, 128), arch="sm_90")
    (product,) = report.products
    assert product.engine.startswith("wgmma") and "transposed" not in product.engine, \
        str(report)
    row_major = ct.explain(make_matmul(8), (a, np.zeros((256, 384), e4m3), c, 128, 128, 128),
                           arch="sm_90")
    assert "B transposed there first" in row_major.products[0].engine


def test_on_by_default_and_off_by_switch(monkeypatch):
    monkeypatch.delenv("TILELANG_ROW_MAJOR_VIEWS")
    a, w, c = np.zeros((512, 256), BF16), np.zeros((384, 256), BF16), np.zeros((512, 384), BF16)
    report = ct.explain(make_matmul(8), (a, w.T, c, 128, 128, 64), arch="sm_90")
    assert report.loops[0].fast, str(report)
    monkeypatch.setenv("TILELANG_ROW_MAJOR_VIEWS", "0")
    report = ct.explain(make_matmul(8), (a, w.T, c, 128, 128, 64), arch="sm_90")
    assert not report.loops[0].fast


def body(ptx: str, kernel: str, renamed: dict[int, int] | None = None) -> str:
    """The entry's text with `kernel`'s parameter names made neutral (parameter i renamed to
    renamed[i]) and the two sources of each or.pred in order (it commutes)."""
    text = ptx[ptx.index("{", ptx.index(".entry")):]  # the instructions, not the declarations
    text = re.sub(rf"\b{kernel}_param_(\d+)",
                  lambda m: f"P{(renamed or {}).get(int(m.group(1)), int(m.group(1)))}", text)
    return re.sub(r"or\.pred\s+(%\w+), (%\w+), (%\w+);",
                  lambda m: f"or.pred {m.group(1)}, {', '.join(sorted(m.groups()[1:]))};", text)


def test_its_ptx_is_the_linear_kernel_s(monkeypatch):
    """With cp.async copies (TILELANG_TMA=0), a column-major B read through its view compiles
    to the PTX of make_linear's kernel on the row-major `w` (loaded and transposed: the path
    tests/gpu/test_wgmma.py runs), B's extents and strides read from the parameters that hold
    them: w.T's extents (K, N) and strides (1, K) are parameters 6, 7 and 8, 9, w's (N, K) and
    (K, 1) too."""
    from tilelang.testing.kernels import make_linear

    monkeypatch.setenv("TILELANG_TMA", "0")
    a, w, c = np.zeros((512, 256), BF16), np.zeros((384, 256), BF16), np.zeros((512, 384), BF16)
    views = ct.compile(make_matmul(8), (a, w.T, c, 128, 128, 64), arch="sm_90").asm["ptx"]
    linear = ct.compile(make_linear(8), (a, w, c, 128, 128, 64), arch="sm_90").asm["ptx"]
    assert body(views, "matmul", {6: 7, 7: 6, 8: 9, 9: 8}) == body(linear, "linear")
    assert "wgmma.mma_async" in views and "cp.async.cg.shared" in views


def test_tma_copies_it_through_the_parameter_s_map_in_the_view_s_order():
    """With TMA (the default on sm_90), the view's tiles are copied by boxes of a tensor map of
    w.T's parameter with its dimensions in the view's order (the runtime lists them so:
    runtime/tensor_maps.py); the PTX is make_linear's on the row-major `w`, whose map is of `w`
    itself. The view is lowered after the producer warpgroup takes its maps at the entry."""
    from tilelang.testing.kernels import make_linear

    a, w, c = np.zeros((512, 256), BF16), np.zeros((384, 256), BF16), np.zeros((512, 384), BF16)
    views = ct.compile(make_matmul(8), (a, w.T, c, 128, 128, 64), arch="sm_90")
    linear = ct.compile(make_linear(8), (a, w, c, 128, 128, 64), arch="sm_90")
    ptx = views.asm["ptx"]
    assert body(ptx, "matmul", {6: 7, 7: 6, 8: 9, 9: 8}) == body(linear.asm["ptx"], "linear")
    assert "cp.async.bulk.tensor" in ptx and "cp.async.cg.shared" not in ptx
    maps = views.metadata["tensor_maps"]
    b_map, = (m for m in maps if m["array_param"] == 5)
    assert b_map["order"] == [1, 0]
    assert all(m["order"] is None for m in linear.metadata["tensor_maps"])


@pytest.mark.parametrize("tma", ["1", "0"])
def test_a_column_major_a_is_the_transposed_tile_s_kernel(monkeypatch, tma):
    """A column-major A read through its view (an A loaded with order=(1, 0)) and the same
    product spelled `ct.transpose(load(at, (k, i), (BK, BM)))` on the row-major (K, M) `at`
    are one staged K loop with M-major A stages, read by wgmma transposed (trans-a = 1): the
    same PTX, A's extents and strides swapped (parameters 1, 2 and 3, 4), and with TMA the
    view's map is at's in the view's order."""
    from tilelang.testing.kernels import make_transposed_a_matmul

    monkeypatch.setenv("TILELANG_TMA", tma)
    at, b, c = np.zeros((256, 512), BF16), np.zeros((256, 384), BF16), np.zeros((512, 384), BF16)
    views = ct.compile(make_matmul(8), (at.T, b, c, 128, 128, 64), arch="sm_90")
    spelled = ct.compile(make_transposed_a_matmul(8), (at, b, c, 128, 128, 64), arch="sm_90")
    ptx = views.asm["ptx"]
    assert body(ptx, "matmul", {1: 2, 2: 1, 3: 4, 4: 3}) == body(spelled.asm["ptx"],
                                                                 "transposed_a")
    instructions = re.findall(r"wgmma\.mma_async[^;]*", ptx)
    assert instructions and all(i.replace(" ", "").endswith("1,1,1,1") for i in instructions)
    if tma == "1":
        (a_map,) = (m for m in views.metadata["tensor_maps"] if m["array_param"] == 0)
        assert a_map["order"] == [1, 0]


def test_sm80_reads_an_m_major_a_with_ldmatrix_trans():
    """On sm_80 a column-major A is the same staged K loop on mma.sync: its M-major stages are
    read by `ldmatrix.trans` (so are B's N-major ones): every ldmatrix of the loop is .trans,
    where a row-major A's are not."""
    from tilelang.testing.kernels import make_transposed_a_matmul

    at, b, c = np.zeros((256, 512), BF16), np.zeros((256, 384), BF16), np.zeros((512, 384), BF16)
    for kernel, a in ((make_matmul(8), at.T), (make_transposed_a_matmul(8), at)):
        report = ct.explain(kernel, (a, b, c, 128, 128, 64), arch="sm_80")
        assert report.loops[0].path == "staged K loop", str(report)
        ptx = ct.compile(kernel, (a, b, c, 128, 128, 64), arch="sm_80").asm["ptx"]
        loads = re.findall(r"ldmatrix\.sync\.aligned\.m8n8\.x4(\.trans)?", ptx)
        assert loads and all(loads), loads
    rows = ct.compile(make_matmul(8), (np.zeros((512, 256), BF16), b, c, 128, 128, 64),
                      arch="sm_80").asm["ptx"]
    assert re.findall(r"ldmatrix\.sync\.aligned\.m8n8\.x4\.shared", rows)  # A's, not .trans
