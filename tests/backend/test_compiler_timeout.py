"""`compiler_timeout`: a compilation that takes longer stops between two passes with
`TileCompilerTimeoutError` (cuTile's class, a `TileInternalError`), and the process compiles
and runs kernels as before afterwards."""

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct
from tilelang import timeout
from tilelang.passes import register_pass


@ct.kernel
def add_one(x, y):
    ct.store(y, (ct.bid(0),), ct.load(x, (ct.bid(0),), (64,)) + 1)


X = np.arange(128, dtype=np.float32)


class FakeClock:
    """perf_counter for tilelang/timeout.py: time passes only when the slow pass runs."""

    now = 0.0

    def perf_counter(self) -> float:
        return self.now


CLOCK = FakeClock()


@register_pass("tile-spend-ten-seconds")
def slow_pass(module, options) -> None:
    """A pass that takes (fake) ten seconds."""
    CLOCK.now += 10.0


@pytest.fixture
def fake_clock(monkeypatch):
    monkeypatch.setattr(timeout, "time", CLOCK)
    CLOCK.now = 0.0
    return CLOCK


def test_a_zero_timeout_stops_the_compilation_and_the_next_one_succeeds(monkeypatch):
    monkeypatch.setenv("TILELANG_INTERPRET", "1")
    y = np.zeros_like(X)
    with ct.compiler_timeout(0):
        with pytest.raises(ct.TileCompilerTimeoutError) as info:
            ct.compile(add_one, (X, y))
        with pytest.raises(ct.TileCompilerTimeoutError):
            ct.launch(None, 2, add_one, (X, y))  # a launch compiles too
    error = info.value
    assert isinstance(error, ct.TileInternalError)
    assert "compiling kernel add_one exceeded the compiler timeout of 0 s" in error.message
    assert "compiler_timeout" in error.hint
    assert error.loc is not None and error.loc.line == add_one.fn.__code__.co_firstlineno + 1
    # the process is sound: the same kernel compiles and runs
    assert "ld.global" in ct.compile(add_one, (X, y)).ptx
    ct.launch(None, 2, add_one, (X, y))
    np.testing.assert_array_equal(y, X + 1)


def test_the_deadline_is_checked_between_passes(fake_clock):
    with ct.compiler_timeout(5):
        with pytest.raises(ct.TileCompilerTimeoutError,
                           match=r"stopped after 10\.000 s, in stage layout, after pass "
                                 r"tile-spend-ten-seconds"):
            ct.compile(add_one, (X, X), extra_passes={"layout": "tile-spend-ten-seconds"})
        # one slow pass within the limit passes
        fake_clock.now = 0.0
        with ct.compiler_timeout(15):
            compiled = ct.compile(add_one, (X, X),
                                  extra_passes={"layout": "tile-spend-ten-seconds"})
        assert compiled.ptx


def test_the_context_restores_the_previous_limit(monkeypatch):
    monkeypatch.delenv("TILELANG_COMPILER_TIMEOUT_SEC", raising=False)
    monkeypatch.delenv("CUDA_TILE_COMPILER_TIMEOUT_SEC", raising=False)
    assert timeout.current_timeout() is None
    with ct.compiler_timeout(3):
        assert timeout.current_timeout() == 3.0
        with ct.compiler_timeout(None):
            assert timeout.current_timeout() is None
        assert timeout.current_timeout() == 3.0
    assert timeout.current_timeout() is None


@pytest.mark.parametrize("name", ["TILELANG_COMPILER_TIMEOUT_SEC",
                                  "CUDA_TILE_COMPILER_TIMEOUT_SEC"])
def test_the_environment_sets_the_default_limit(monkeypatch, fake_clock, name):
    monkeypatch.setenv(name, "2.5")
    assert timeout.current_timeout() == 2.5
    with pytest.raises(ct.TileCompilerTimeoutError, match=r"compiler timeout of 2\.5 s"):
        ct.compile(add_one, (X, X), extra_passes={"tile-opt": "tile-spend-ten-seconds"})
    with ct.compiler_timeout(60):  # the context wins over the environment
        assert timeout.current_timeout() == 60.0


@pytest.mark.parametrize("value", ["0", "-1", "soon"])
def test_a_bad_environment_value_is_refused(monkeypatch, value):
    monkeypatch.setenv("TILELANG_COMPILER_TIMEOUT_SEC", value)
    with pytest.raises(ct.TileValueError, match="must be a positive number of seconds"):
        timeout.current_timeout()


@pytest.mark.parametrize("value, error", [(-1, ValueError), (float("nan"), ValueError),
                                          ("10", TypeError), (True, TypeError)])
def test_a_bad_limit_is_refused(value, error):
    with pytest.raises(error, match="compiler_timeout"), ct.compiler_timeout(value):
        pass
