"""GPU runtime tests: run with `pytest -m gpu` on a machine with an NVIDIA GPU."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _on_the_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TILELANG_INTERPRET", raising=False)


HERE = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:  # everything in this folder (and only here) needs the GPU
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.gpu)
