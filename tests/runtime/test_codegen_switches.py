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


def test_llvm_opt_level_reaches_the_target_and_the_cache_keys(monkeypatch):
    """TILELANG_LLVM_OPT sets the nvvm.target's O (what the ptx stage optimizes at) and is part
    of the keys; a bad value is a TileValueError naming the variable."""
    import pytest

    from tilelang import compile as tl_compile
    from tilelang.errors import TileValueError

    monkeypatch.setattr(binary, "device_arch", lambda device: "sm_90")
    kernel = make_matmul(8)
    a = np.zeros((256, 256), ml_dtypes.bfloat16)
    signature = kernel.specialize((a, a, a, 128, 128, 64))
    keys = {}
    for level in ("3", "1"):
        monkeypatch.setenv("TILELANG_LLVM_OPT", level)
        keys[level] = build.build_job(kernel, signature, 0).key, build.memory_key(signature,
                                                                                   "sm_90", 0)
        simt = tl_compile(kernel, (a, a, a, 128, 128, 64), stop_after="simt").asm["simt"]
        assert f"#nvvm.target<O = {level}," in simt
    assert keys["3"][0] != keys["1"][0] and keys["3"][1] != keys["1"][1]
    monkeypatch.setenv("TILELANG_LLVM_OPT", "fast")
    with pytest.raises(TileValueError, match="TILELANG_LLVM_OPT must be 0, 1, 2 or 3"):
        build.build_job(kernel, signature, 0)
