"""Autotuning tests: kernels run on the CPU interpreter, the cache directory is the test's own,
and `timer` replaces the timing of a run (tilelang.tune.search._benchmark)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # tuning_kernels, importable by workers too

import tilelang.tune.search as search_module


@pytest.fixture(autouse=True)
def _interpreter_and_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TILELANG_INTERPRET", "1")
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TILELANG_AUTOTUNE", raising=False)


@pytest.fixture
def timer(monkeypatch: pytest.MonkeyPatch) -> Callable[[Callable[..., float]], list[Any]]:
    """`timer(fn)` times every run with `fn(stream, grid, kernel, args)`; returns the list of
    the argument tuples it was called with."""

    def install(fn: Callable[..., float]) -> list[Any]:
        calls: list[Any] = []

        def fake(stream: Any, grid: Any, kernel: Any, args: Any) -> float:
            calls.append(tuple(args))
            return fn(stream, grid, kernel, args)

        monkeypatch.setattr(search_module, "_benchmark", fake)
        return calls

    return install
