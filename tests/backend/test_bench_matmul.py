"""benchmarks/bench_matmul.py and bench_fp8_matmul.py without a GPU: configuration parsing, and
the kernels they time checked on the interpreter (grouped order, split-K) or compiled for sm_90
onto wgmma (fp8)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import bench_fp8_matmul
import bench_matmul
import sweep


def test_config_suffixes_parse():
    configs = bench_matmul.parse_configs("64x64x64w4k4,128x256x64w8g8,64x64x32")
    assert [c.label for c in configs] == ["64x64x64w4k4", "128x256x64w8g8", "64x64x32w4"]
    assert (configs[0].split, configs[1].group) == (4, 8)


@pytest.mark.parametrize("config", [bench_matmul.Config(32, 32, 32, 4, group=2),
                                    bench_matmul.Config(32, 32, 32, 4, split=3),
                                    bench_matmul.Config(64, 64, 64, 4, split=4)],
                         ids=lambda c: c.label)
def test_grouped_and_split_k_kernels_on_the_interpreter(config):
    """Split-K: 10 and 5 K tiles in 3 and 4 ranges (K = 300), partial products into a float32
    workspace poisoned with NaN, then summed into C (poisoned too)."""
    assert bench_matmul.interpreter_check(config, "bf16", 40, 170, 300) == "ok"


def test_split_k_is_tried_on_skinny_products_short_of_blocks():
    k4, plain = bench_matmul.Config(64, 64, 64, 4, split=4), bench_matmul.Config(64, 64, 64, 4)
    assert k4.fits(16, 4096, 4096) and k4.fits(64, 4096, 14336) and k4.fits(16, 14336, 4096)
    assert not k4.fits(4096, 4096, 4096)  # square: no
    assert not k4.fits(256, 14336, 4096)  # 896 tiles fill the SMs already
    assert not k4.fits(16, 4096, 192)  # 3 K tiles: fewer than 4 ranges
    assert plain.fits(4096, 4096, 4096) and plain.fits(16, 4096, 4096)
    assert not bench_matmul.Config(16, 64, 64, 4).fits(4096, 4096, 4096)


def test_fp8_dry_run_is_on_wgmma(capsys):
    bench_fp8_matmul.dry_run(((128, 128, 128, 8),))
    out = capsys.readouterr().out
    # the promotion is overlapped (simt/wgmma.py): two iterations a trip, and the odd last
    # one after the loop, four wgmma each
    assert "wgmma=12" in out and "tma=" in out and "spill_stores=0" in out
    assert "wgmma_serialized=False" in out


def test_fp8_dry_run_of_b_given_k_by_n_is_on_wgmma(capsys):
    """--layouts kn: b stored (K, N), transposed in shared memory, still wgmma, no spills."""
    bench_fp8_matmul.dry_run(((128, 128, 128, 8),), ("kn",))
    (line,) = capsys.readouterr().out.strip().splitlines()
    assert line.startswith("kn 128x128x128w8 (precise)")
    assert "wgmma=" in line and "wgmma=0" not in line and "spill_stores=0" in line


def test_each_arch_times_its_own_kernel_object():
    """--arch native,sm_80: the configurations under each arch get their own Kernel objects, so
    one's fast path never launches the other's specialization."""
    kernels: dict = {}
    native = sweep.kernel_for(kernels, ("native", "bf16", 1), bench_matmul.matmul, 8)
    sm80 = sweep.kernel_for(kernels, ("sm_80", "bf16", 1), bench_matmul.matmul, 8)
    assert native is not sm80 and native.options == sm80.options
    assert sweep.kernel_for(kernels, ("native", "bf16", 1), bench_matmul.matmul, 8) is native
    assert sweep.kernel_for(kernels, ("o2",), bench_matmul.matmul, 4, 2).options.occupancy == 2


def test_final_rounds_alternate_and_keep_each_median():
    """sweep.rematch times the entries in turn, round after round, and gives each result the
    median of its rounds; results that were not timed (wrong, error) are left as they are."""
    calls = []

    def timing(name, values):
        values = iter(values)

        def run():
            calls.append(name)
            return next(values), 0.0
        return run

    ours, peer, wrong = {"TFLOP/s": 9.0}, {"TFLOP/s": 1.0}, {"status": "wrong", "why": "nan"}
    sweep.rematch({"ours": (ours, timing("ours", [2.0, 4.0, 3.0])),
                   "peer": (peer, timing("peer", [1.0, 1.0, 5.0])),
                   "bad": (wrong, timing("bad", [1.0] * 3))}, rounds=3, work=6e9)
    assert calls == ["ours", "peer"] * 3
    assert ours["sweep_TFLOP/s"] == 9.0 and ours["ms"] == 3.0 and ours["TFLOP/s"] == 2.0
    assert peer["TFLOP/s"] == 6.0 and peer["rounds_ms"] == [1.0, 1.0, 5.0]
    assert wrong == {"status": "wrong", "why": "nan"}


def test_final_rounds_fill_the_row_with_the_best_configuration_and_peers():
    from types import SimpleNamespace

    best, peer = {"TFLOP/s": 5.0, "config": "64x64x64w4"}, {"TFLOP/s": 4.0}
    row = {"ours_result": best}
    timings = {("native", "64x64x64w4"): lambda: (1.0, 0.0), ("native", "other"): None}
    args = SimpleNamespace(arch=("native",), rounds=3)
    got = sweep.final_rounds(args, row, {"cuBLAS": (peer, lambda: (2.0, 0.0))}, timings, 2e9)
    assert got is best and best["TFLOP/s"] == 2.0 and peer["TFLOP/s"] == 1.0
    assert row["ours"] == 2.0 and row["cuBLAS"] == 1.0
    args.rounds = 1  # the sweep's figures stay
    row = {"ours_result": {"TFLOP/s": 5.0, "config": "64x64x64w4"}}
    sweep.final_rounds(args, row, {}, timings, 2e9)
    assert row["ours"] == 5.0
