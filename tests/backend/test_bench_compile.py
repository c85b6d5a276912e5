"""benchmarks/bench_compile.py runs without a GPU (it broke silently once when the assembly
path moved): one sample, one fresh process, every stage timed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_first_call_of_a_sample_is_timed_stage_by_stage(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_compile.py"), "--samples", "vector_add",
         "--repeats", "1"],
        capture_output=True, text=True, env={**os.environ, "OUT": str(tmp_path)}, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    rows = json.loads((tmp_path / "compile.json").read_text())
    text = json.dumps(rows)
    for stage in ("tile-opt", "layout", "simt", "ptx", "cubin"):
        assert f'"{stage}"' in text
