"""benchmarks/bench_cutile_kernels.py records what assembled the cubins it timed: figures taken
before the nineteenth session ran nvJitLink's serialized wgmma (docs/compiler.md, Backend)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import bench_cutile_kernels as bench


def test_the_default_names_the_warp_specialized_kernels_assembler(monkeypatch):
    monkeypatch.delenv("TILELANG_ASSEMBLER", raising=False)
    monkeypatch.setattr("shutil.which", lambda name: "/usr/bin/ptxas")
    assert bench.assembler_in_use() == "auto: the ptxas command"
    monkeypatch.setattr("shutil.which", lambda name: None)
    assert bench.assembler_in_use().endswith("the driver")


def test_the_environment_is_named(monkeypatch):
    monkeypatch.setenv("TILELANG_ASSEMBLER", "nvjitlink")
    assert bench.assembler_in_use() == "nvjitlink (TILELANG_ASSEMBLER)"
