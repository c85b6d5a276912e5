"""Shared fixtures of the kernel tests: every test runs on the CPU interpreter and, marked
`gpu` (run with `pytest -m gpu` on a GPU machine), on the GPU against the same NumPy references.

Helpers are exposed through the `it` fixture (conftest modules cannot be imported by name, as
several test folders have one). `rng` is seeded from the test's node id, so every test, and every
parametrization of a test, gets its own reproducible data.
"""

from __future__ import annotations

import os
import zlib
from types import SimpleNamespace
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct

BF16 = np.dtype(ml_dtypes.bfloat16)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked `interpreter_only` check what only the interpreter does (serial blocks,
    run-time errors, CPU tensors): their GPU variants are deselected."""
    gpu_only_on_interpreter = [
        item for item in items
        if item.get_closest_marker("interpreter_only") and item.get_closest_marker("gpu")
    ]
    if gpu_only_on_interpreter:
        config.hook.pytest_deselected(items=gpu_only_on_interpreter)
        items[:] = [item for item in items if item not in gpu_only_on_interpreter]


@pytest.fixture(params=["interpreter", pytest.param("gpu", marks=pytest.mark.gpu)])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "interpreter":
        monkeypatch.setenv("TILELANG_INTERPRET", "1")
    else:
        monkeypatch.delenv("TILELANG_INTERPRET", raising=False)
    return request.param


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


def np_dtype(name: Any) -> np.dtype:
    """NumPy dtype of a dtype name ('bfloat16' and 'bool_' included)."""
    if name in ("bfloat16", BF16):
        return BF16
    return np.dtype("bool" if name == "bool_" else name)


def is_float(dtype: Any) -> bool:
    d = np_dtype(dtype)
    return d == BF16 or d.kind == "f"


def rand(
    rng: np.random.Generator, shape: Any, dtype: Any, *, low: float | None = None,
    high: float | None = None, nonzero: bool = False, special: bool = False,
) -> np.ndarray:
    """Random values of `dtype`: the full range of integers (or [low, high)), normal floats.

    `special=True` sprinkles NaN, infinities and signed zeros into float data.
    """
    d = np_dtype(dtype)
    if d.kind == "b":
        return rng.random(shape) < 0.5
    if is_float(d):
        if low is not None or high is not None:
            x = rng.uniform(low if low is not None else -1, high if high is not None else 1, shape)
        else:
            x = rng.standard_normal(shape) * 4
        x = x.astype(d)
        if special and x.size:
            flat = x.reshape(-1)
            picks = rng.integers(0, flat.size, max(1, flat.size // 8))
            flat[picks] = rng.choice(np.array([np.nan, np.inf, -np.inf, 0.0, -0.0]), picks.size)
            x = flat.reshape(x.shape)
        if nonzero:
            x = np.where(x == 0, np.ones_like(x), x)
        return x
    info = np.iinfo(d)
    lo = info.min if low is None else int(low)
    hi = info.max if high is None else int(high) - 1
    x = rng.integers(lo, hi, shape, dtype=d, endpoint=True)
    if nonzero:
        x = np.where(x == 0, np.ones_like(x), x)
    return x


def poison(shape: Any, dtype: Any) -> np.ndarray:
    """An output buffer whose every element stands out: NaN for floats, a sentinel for ints."""
    d = np_dtype(dtype)
    if is_float(d):
        return np.full(shape, np.nan, d)
    if d.kind == "b":
        return np.zeros(shape, d)
    return np.full(shape, 0x5B if d.itemsize == 1 else 0x5BAD, d)


def launch(kernel: Any, grid: Any, *args: Any) -> None:
    if os.environ.get("TILELANG_TEST_COMPILE_TOO"):  # the GPU compiler too, to PTX (no GPU needed)
        _compile_too(kernel, args)
    ct.launch(None, grid, kernel, args)


def _compile_too(kernel: Any, args: tuple) -> None:
    """Compile what the interpreter is about to run for sm_90: the compiler's passes (which the
    interpreter does not run) meet every kernel of these tests. A user error the launch would
    report too is left to it; an internal error fails the test here."""
    from tilelang.errors import TileInternalError

    try:
        ct.compile(kernel, args, stop_after="ptx", arch="sm_90")
    except TileInternalError:
        raise
    except Exception:
        pass  # the launch says what is wrong, as the test expects


def launch_on_gpu(kernel: Any, grid: Any, *args: Any) -> None:
    """Launch with every NumPy array mirrored on the GPU (same strides), then copied back."""
    from device_arrays import DeviceMirror

    mirrors = [DeviceMirror(a) if isinstance(a, np.ndarray) else None for a in args]
    device_args = tuple(m.device if m is not None else a for m, a in zip(mirrors, args))
    ct.launch(None, grid, kernel, device_args)
    for mirror in mirrors:
        if mirror is not None:
            mirror.copy_back()


def _same(actual: np.ndarray, expected: np.ndarray, signed_zero: bool) -> np.ndarray:
    if is_float(expected.dtype):
        a, e = actual.astype(np.float64), expected.astype(np.float64)
        both_nan = np.isnan(a) & np.isnan(e)
        same = (a == e) | both_nan
        if signed_zero:  # the sign of zero matters; a NaN's sign bit does not (GPUs differ)
            same &= (np.signbit(a) == np.signbit(e)) | both_nan
        return same
    return actual == expected


def assert_same(actual: Any, expected: Any, *, signed_zero: bool = True) -> None:
    """Exact equality of dtype, shape and every element (NaN equals NaN; -0.0 is not 0.0)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, f"dtype {actual.dtype} != {expected.dtype}"
    assert actual.shape == expected.shape, f"shape {actual.shape} != {expected.shape}"
    same = _same(actual, expected, signed_zero)
    if not same.all():
        bad = np.argwhere(~same)[:8]
        detail = ", ".join(f"{tuple(i)}: {actual[tuple(i)]!r} != {expected[tuple(i)]!r}"
                           for i in bad)
        raise AssertionError(f"{(~same).sum()} of {same.size} elements differ: {detail}")


def assert_close(
    actual: Any, expected: Any, *, ulps: float = 4.0, atol: float | None = None
) -> None:
    """Equality within `ulps` units in the last place of the dtype (NaN and infinities exact).

    `atol` defaults to the dtype's smallest subnormal (one ulp of the tiniest results).
    """
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, f"dtype {actual.dtype} != {expected.dtype}"
    assert actual.shape == expected.shape
    finfo = ml_dtypes.finfo(expected.dtype)
    eps = float(finfo.eps)
    atol = float(finfo.smallest_subnormal) if atol is None else atol
    a, e = actual.astype(np.float64), expected.astype(np.float64)
    with np.errstate(invalid="ignore"):
        close = np.abs(a - e) <= ulps * eps * np.abs(e) + atol
    ok = np.where(np.isfinite(e), close, _same(a, e, False))
    if not ok.all():
        bad = np.argwhere(~ok)[:8]
        detail = ", ".join(f"{tuple(i)}: {a[tuple(i)]!r} vs {e[tuple(i)]!r}" for i in bad)
        raise AssertionError(f"{(~ok).sum()} of {ok.size} elements differ: {detail}")


def expected_store(out: np.ndarray, region: Any, value: Any) -> np.ndarray:
    """A copy of `out` (the poisoned buffer) with `region` set to `value`."""
    expected = out.copy()
    expected[region] = value
    return expected


@pytest.fixture
def it(backend: str) -> SimpleNamespace:
    return SimpleNamespace(
        BF16=BF16, np_dtype=np_dtype, is_float=is_float, rand=rand, poison=poison,
        launch=launch if backend == "interpreter" else launch_on_gpu, backend=backend,
        assert_same=assert_same, assert_close=assert_close, expected_store=expected_store,
    )
