"""A compile imports each module at most once: the MLIR bindings retry a failed import of
`mlir.dialects.<namespace>` every time they wrap an op of that dialect (thousands of times per
compile for the `tile` dialect before tilelang.dialect stood in a module for it)."""

from __future__ import annotations

import collections
import importlib._bootstrap as bootstrap
import sys
from pathlib import Path

import numpy as np
import pytest

import tilelang as ct

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "samples"))
from layer_norm import layer_norm_fwd


def test_no_import_is_retried(monkeypatch: pytest.MonkeyPatch):
    x = np.zeros((100, 256), np.float32)
    w, m = np.zeros(256, np.float32), np.zeros(100, np.float32)
    args = (x, w, w, x.copy(), m, m.copy(), 1e-5, 4, 256)
    ct.compile(layer_norm_fwd, args, stop_after="tile-opt")  # imports what a compile needs
    attempts: collections.Counter[str] = collections.Counter()
    find_and_load = bootstrap._find_and_load

    def counting(name, import_):
        attempts[name] += 1
        return find_and_load(name, import_)

    monkeypatch.setattr(bootstrap, "_find_and_load", counting)
    ct.compile(layer_norm_fwd, args)
    assert not [name for name, n in attempts.items() if n > 1]
