"""benchmarks/bench_attention.py without a GPU: its command line and its dry run (one
configuration compiled for sm_90 with ptxas's figures, and checked on the interpreter)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import bench_attention


def test_quick_and_config_arguments() -> None:
    args = bench_attention.arguments(["--quick", "--configs", "64x16w8,128x32,64x128w4o2"])
    assert args.seqs == (4096,) and args.head_dims == (128,)
    assert [c.label for c in args.configs[128]] == ["64x16w8", "128x32w4", "64x128w4o2"]
    assert args.configs[64][2] == bench_attention.Config(64, 128, 4, occupancy=2)
    with pytest.raises(SystemExit):
        bench_attention.arguments(["--head-dims", "96"])


def test_flops_halve_for_causal() -> None:
    assert bench_attention.problem(8192, 128) == (2, 16)
    full = bench_attention.flops(2, 16, 8192, 128, causal=False)
    assert full == 4 * 2 * 16 * 8192**2 * 128
    assert bench_attention.flops(2, 16, 8192, 128, causal=True) == full / 2


def test_dry_run_compiles_and_interprets(capsys: pytest.CaptureFixture[str]) -> None:
    bench_attention.main(["--dry-run", "--quick", "--configs", "64x16w8", "--modes", "causal",
                          "--impls", "ours"])
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("sm_90  128"))
    assert "causal" in row and "64x16w8" in row and " ok " in row and "mma=" in row
