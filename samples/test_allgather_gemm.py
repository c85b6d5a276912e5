"""samples/allgather_gemm.py: the command line and the CPU simulation of W ranks here; the
kernels on 2 (and up to 4) GPUs under torchrun with `-m gpu` (docs/distributed.md)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import allgather_gemm as ag
import ml_dtypes
import numpy as np
import pytest

import tilelang as ct

HERE = Path(__file__).parent
TORCHRUN_VARS = ("RANK", "WORLD_SIZE", "LOCAL_RANK")


def test_check_is_the_default_and_shapes_parse():
    args = ag.parse_args([])
    assert args.check and not args.bench and args.shape is None
    args = ag.parse_args(["--bench", "--shape", "300,520,392", "--shape", "1,2,3"])
    assert args.bench and not args.check and args.shape == [(300, 520, 392), (1, 2, 3)]


@pytest.mark.parametrize("argv", [["--shape", "1,2"], ["--shape", "0,2,3"], ["--copiers", "0"]])
def test_bad_arguments_exit_with_a_usage_error(argv, capsys):
    with pytest.raises(SystemExit) as e:
        ag.parse_args(argv)
    assert e.value.code == 2
    assert "error" in capsys.readouterr().err


def test_bench_without_torchrun_says_how_to_launch(monkeypatch, capsys):
    for var in TORCHRUN_VARS:
        monkeypatch.delenv(var, raising=False)
    assert ag.main(["--bench"]) == 2
    err = capsys.readouterr().err
    assert "--bench needs GPUs" in err and "torchrun --nproc-per-node N" in err


def test_without_torchrun_it_simulates_two_ranks(monkeypatch, capsys):
    for var in TORCHRUN_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("TILELANG_INTERPRET", "1")
    assert ag.main(["--shape", "5,17,9"]) == 0
    out = capsys.readouterr().out
    assert "not launched by torchrun" in out and "rank 1 of 2" in out


def test_torchrun_without_a_gpu_is_an_error(monkeypatch, capsys):
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "1")
    monkeypatch.setenv("LOCAL_RANK", "0")
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert ag.main(["--check"]) == 2
    assert "no CUDA GPU is visible" in capsys.readouterr().err


@pytest.mark.parametrize(("world", "shape"), [(2, (37, 40, 50)), (3, (70, 33, 17)),
                                              (4, (1, 20, 64))])
def test_simulated_ranks_match_numpy(world, shape, monkeypatch):
    """Every rank's kernels on the interpreter, ranks one after another: M_local not a multiple
    of the tile, outputs poisoned with NaN, two launches (the flags and tickets carry over)."""
    monkeypatch.setenv("TILELANG_INTERPRET", "1")
    ag.simulate(world, *shape)


def test_the_kernels_compile_to_wgmma_for_sm_90():
    """The GPU configuration: the copier and GEMM roles in one kernel, its K loop staged on
    wgmma (after the flag wait); the partial GEMM likewise."""
    bf16, (bm, bn, bk), world, m, n, k = ml_dtypes.bfloat16, ag.BLOCK, 2, 300, 512, 256
    bufs = [np.zeros((world * m, k), bf16) for _ in range(world)]
    c = np.zeros((world * m, n), bf16)
    args = (bufs, bufs[0], bufs[0], np.zeros((k, n), bf16), c, np.zeros(8, np.int64),
            np.zeros(1, np.int64), m, 1, bm, bn, bk, 16, 256, 16, 8)
    report = ct.explain(ag.allgather_gemm_kernel, args, arch="sm_90")
    assert "staged K loop (wgmma" in str(report)
    ptx = ct.compile(ag.allgather_gemm_kernel, args, arch="sm_90").asm["ptx"]
    assert "wgmma.mma_async" in ptx and "atom.global.exch.b64" in ptx
    parts = [np.zeros((world * m, n), np.float32) for _ in range(world)]
    args = (np.zeros((world * m, k), bf16), np.zeros((k, n), bf16), parts, m, 0, bm, bn, bk)
    assert "staged K loop (wgmma" in str(ct.explain(ag.partial_gemm_kernel, args, arch="sm_90"))


def _gpus() -> int:
    try:
        import torch
    except ImportError:
        return 0
    return torch.cuda.device_count()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _torchrun(nproc: int, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "TILELANG_INTERPRET"}
    # a port of its own: the 2- and 4-GPU runs may run at once (pytest-xdist), and torchrun's
    # default port would be taken by the first
    return subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", f"--nproc-per-node={nproc}",
         f"--master-port={_free_port()}", str(HERE / "allgather_gemm.py"), *args],
        env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.gpu
@pytest.mark.multi_gpu
@pytest.mark.parametrize("nproc", sorted({2, min(4, max(2, _gpus()))}))
def test_torchrun_check_passes(nproc):
    if _gpus() < nproc:
        pytest.skip(f"needs {nproc} GPUs, {_gpus()} found")
    result = _torchrun(nproc, "--check")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert "check: passed" in result.stdout
    assert "FAILED" not in result.stdout
