"""`Tile`, `Scalar` and `ScalarInt64` as annotations (cuTile's), and the cuTile names that
tilelang/language/future.py no longer lists."""

from __future__ import annotations

import numpy as np

import tilelang as ct
from tilelang.interface.specs import ScalarSpec
from tilelang.language.future import NOT_YET


@ct.function
def scaled(t: ct.Tile, s: ct.Scalar) -> ct.Tile:
    return t * s


@ct.kernel
def kernel(x: ct.Array, y: ct.Array, n: ct.Scalar, m: ct.ScalarInt64):
    t = ct.load(x, (0,), (16,))
    b = ct.bid(0)
    ct.static_assert(isinstance(t, ct.Tile) and isinstance(b, ct.Tile))
    ct.static_assert(not isinstance(x, ct.Tile))
    ct.store(y, (0,), scaled(t, n) + m)


def test_annotated_kernels_and_helpers_compile_and_run(monkeypatch):
    monkeypatch.setenv("TILELANG_INTERPRET", "1")
    x, y = np.arange(16, dtype=np.float32), np.zeros(16, np.float32)
    compiled = ct.compile(kernel, (x, y, 2, 3), stop_after="tile")
    assert compiled.signature[2:] == (ScalarSpec(ct.int32), ScalarSpec(ct.int64))
    ct.launch(None, 1, kernel, (x, y, 2, 3))
    np.testing.assert_array_equal(y, x * 2 + 3)


def test_tile_and_scalar_outside_kernels():
    assert not isinstance(3, ct.Tile) and not isinstance(np.zeros(3), ct.Tile)
    assert isinstance(3, ct.Scalar) and isinstance(2.5, ct.Scalar)


def test_cutile_names_are_all_there():
    names = ("ByTarget", "compiler_timeout", "TileCompilerTimeoutError", "Tile", "Scalar",
             "ScalarInt64", "assume_divisible_by", "grid_dependency_control_wait",
             "grid_dependency_control_launch_dependents", "float8_e5m3fnu", "mma_scaled")
    assert [n for n in names if n not in ct.__all__ or not hasattr(ct, n)] == []
    assert frozenset() == NOT_YET
