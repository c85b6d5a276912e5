"""Runtime tests: a private cache folder per test."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The cache folder (not made yet), in tmp_path."""
    root = tmp_path / "cache"
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(root))
    monkeypatch.delenv("TILELANG_DISABLE_DISK_CACHE", raising=False)
    return root
