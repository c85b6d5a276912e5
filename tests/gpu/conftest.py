"""GPU runtime tests: run with `pytest -m gpu` on a machine with an NVIDIA GPU."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _on_the_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TILELANG_INTERPRET", raising=False)


HERE = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:  # everything in this folder (and only here) needs the GPU
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.gpu)
    multi = [item for item in items if item.get_closest_marker("multi_gpu")]
    if multi and _gpu_count() < 2:  # deselected, like GPU tests on a machine without one
        config.hook.pytest_deselected(items=multi)
        items[:] = [item for item in items if not item.get_closest_marker("multi_gpu")]


def _gpu_count() -> int:
    try:
        import torch
    except ImportError:
        return 0
    return torch.cuda.device_count()
