"""Settings that change the generated code (TILELANG_WGMMA) are part of the cache keys, so a
kernel compiled with one setting is never reused under another."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from tilelang.runtime import binary, build
from tilelang.testing.kernels import make_matmul


def test_wgmma_switch_changes_the_cache_keys(monkeypatch):
    monkeypatch.setattr(binary, "device_arch", lambda device: "sm_90")
    kernel = make_matmul(8)
    a = np.zeros((256, 256), ml_dtypes.bfloat16)
    signature = kernel.specialize((a, a, a, 128, 128, 64))
    on = build.build_job(kernel, signature, 0).key, build.memory_key(signature, "sm_90", 0)
    monkeypatch.setenv("TILELANG_WGMMA", "0")
    off = build.build_job(kernel, signature, 0).key, build.memory_key(signature, "sm_90", 0)
    assert on[0] != off[0] and on[1] != off[1]
