"""Differential fuzzing, GPU tier: a bounded three-way run (reference, interpreter, GPU), the
saved reproducers and the issue's wrong answers on the GPU, and the fuzzer's programs under
compute-sanitizer's memcheck and racecheck."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import tilelang as ct
from tilelang.testing import trust
from tilelang.testing.fuzz import check
from tilelang.testing.fuzz.check import failures, from_torch, to_torch
from tilelang.testing.fuzz.program import Program

SIDES = ("reference", "interpreter", "gpu")
REGRESSIONS = sorted((Path(__file__).parents[1] / "fuzz" / "regressions").glob("*.json"))
CHUNK = 50


@pytest.mark.parametrize("first", range(0, 400, CHUNK))
def test_bounded_run_has_no_mismatch(first: int) -> None:
    failing = failures(range(first, first + CHUNK), SIDES)
    assert not failing, "\n".join(f"seed {s}: {m[0]}" for s, m in failing.items())


def _known(path: Path) -> list[pytest.MarkDecorator]:
    """Reproducers of open GPU miscompiles (the JSON says where the bug is): strict xfails,
    so that a fix shows up as an XPASS failure and the mark comes off."""
    why = json.loads(path.read_text()).get("known_gpu_miscompile")
    return [pytest.mark.xfail(strict=True, reason=why)] if why else []


@pytest.mark.parametrize("path", [pytest.param(p, marks=_known(p)) for p in REGRESSIONS],
                         ids=[p.stem for p in REGRESSIONS])
def test_saved_reproducers_pass(path: Path) -> None:
    report = check(Program.from_json(path.read_text()), SIDES)
    assert report.ok, report.mismatches


@pytest.mark.parametrize("propagate_nan", [False, True])
@pytest.mark.parametrize("n", [1, 3, 5, 6, 7, 8, 100])
def test_extrema_of_nan_rows(n: int, propagate_nan: bool) -> None:
    kernel = trust.make_nan_extrema(n, propagate_nan)
    rng = np.random.default_rng(n)
    rows = [np.full(n, np.nan, np.float32), rng.normal(size=n).astype(np.float32)]
    rows[1][rng.integers(0, n)] = np.nan
    for x in rows:
        out = torch.full((4,), -7.0, device="cuda")
        ct.launch(None, (1,), kernel, (torch.from_numpy(x).cuda(), out))
        np.testing.assert_array_equal(out.cpu().numpy(), trust.expected_extrema(x, propagate_nan))


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint16",
                                   "uint32"])
def test_integer_division_by_zero_and_minus_one(dtype: str) -> None:
    shape, divisor = (5, 7, 2), (1, 7, 2)
    kernel = trust.make_int_division(shape, divisor)
    a, b = trust.division_operands(np.dtype(dtype), shape, np.random.default_rng(4))
    outs = [to_torch(np.full(shape, 99, dtype)).cuda() for _ in range(4)]
    ct.launch(None, (1,), kernel, (to_torch(a).cuda(), to_torch(b).cuda(), *outs))
    torch.cuda.synchronize()
    got = [from_torch(o, np.dtype(dtype)) for o in outs]
    q, r = trust.expected_division(a, b)
    np.testing.assert_array_equal(got[0], q)
    np.testing.assert_array_equal(got[1], r)
    assert not got[2].any() and not got[3].any()


def _sanitizer() -> str:
    found = shutil.which("compute-sanitizer") or next(
        (p for p in ("/usr/local/cuda/bin/compute-sanitizer",) if os.path.exists(p)), None)
    assert found, "compute-sanitizer is part of the GPU machine's CUDA toolkit"
    return found


@pytest.mark.parametrize("tool,count", [("memcheck", 24), ("racecheck", 12)])
def test_fuzz_programs_under_compute_sanitizer(tool: str, count: int, tmp_path: Path) -> None:
    command = [_sanitizer(), "--tool", tool, "--report-api-errors", "no", "--error-exitcode", "9",
               sys.executable, "-m",
               "tilelang.testing.fuzz", "--gpu", "--seed", "9000", "--count", str(count),
               "--jobs", "1", "--no-shrink", "--save", ""]
    env = {**os.environ, "TILELANG_CACHE_DIR": str(tmp_path)}
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    summary = "RACECHECK SUMMARY: 0 hazards" if tool == "racecheck" else "ERROR SUMMARY: 0 errors"
    assert summary in done.stdout + done.stderr
    assert f"gpu: {count} of {count} programs ran" in done.stdout
