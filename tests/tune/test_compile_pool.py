"""Compiling autotuning candidates in worker processes (no GPU needed: PTX for sm_90)."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import tuning_kernels as tk

import tilelang as ct
from tilelang.frontend.source import fingerprint
from tilelang.runtime import disk_cache
from tilelang.runtime.build import BuildJob, Built
from tilelang.tune import compile_pool

X = np.zeros((300, 500), np.float32)
OUT = np.zeros(300, np.float32)


def job(kernel, *args, num_warps: int = 4) -> BuildJob:
    """What a launch with these arguments would compile on an sm_90 device."""
    signature = kernel.specialize(args)
    digest = fingerprint(kernel.fn)
    key = disk_cache.cache_key(digest, kernel.name, signature, "sm_90", num_warps, None, [])
    return BuildJob(kernel.fn, kernel.name, signature, "sm_90", "sm_90", num_warps, None,
                    digest, key)


@pytest.fixture
def workers(monkeypatch):
    monkeypatch.setenv("TILELANG_COMPILE_WORKERS", "3")  # this process and two workers
    yield
    compile_pool._stop_workers()
    compile_pool._pool.clear()


def test_workers_compile_and_fill_the_disk_cache(workers) -> None:
    jobs = [job(tk.row_sums, X, OUT, r, c) for r, c in [(8, 64), (8, 128), (16, 64)]]
    results = compile_pool.build_all(jobs, compile_here=False)
    assert [type(r) for r in results] == [Built] * 3
    assert all(r.source == "compiled" for r in results)
    for r in results:
        assert ".entry row_sums" in r.ptx and ".target sm_90" in r.ptx
        if shutil.which("ptxas"):  # workers assemble without a GPU when they can
            assert r.cubin and r.cubin[:4] == b"\x7fELF"
    assert sum(w.jobs_done for w in compile_pool._pool) == 3
    assert len(compile_pool._pool) == 2
    # what a worker compiled is what this process compiles
    here = ct.compile(tk.row_sums, (X, OUT, 16, 64), arch="sm_90")
    assert results[2].ptx == here.ptx
    again = compile_pool.build_all(jobs)  # now from the disk cache, in this process
    assert [r.source for r in again] == ["disk"] * 3
    assert sum(w.jobs_done for w in compile_pool._pool) == 3


def test_compile_errors_come_back_as_failures(workers) -> None:
    jobs = [job(tk.scaled_copy, X[0], OUT, 1.0, -4), job(tk.scaled_copy, X[0], OUT, 1.0, 128)]
    failed, built = compile_pool.build_all(jobs, compile_here=False)
    assert isinstance(failed, compile_pool.Failure)
    assert failed.kind is ct.TileValueError and "is not positive" in failed.message
    assert isinstance(built, Built)
    assert sum(w.jobs_done for w in compile_pool._pool) == 2


def test_kernels_workers_cannot_import_compile_here(workers) -> None:
    @ct.kernel
    def local_copy(x, out, BLOCK: ct.Constant[int]):
        ct.store(out, (ct.bid(0),), ct.load(x, (ct.bid(0),), (BLOCK,)))

    jobs = [job(local_copy, X[0], OUT, 64), job(local_copy, X[0], OUT, 32)]
    results = compile_pool.build_all(jobs, compile_here=False)
    assert all(isinstance(r, Built) and r.source == "compiled" for r in results)
    assert sum(w.jobs_done for w in compile_pool._pool) == 0


def test_one_process_means_no_workers(monkeypatch) -> None:
    monkeypatch.setenv("TILELANG_COMPILE_WORKERS", "1")
    done = []
    jobs = [job(tk.scaled_copy, X[0], OUT, 2.0, b) for b in (64, 128)]
    results = compile_pool.build_all(jobs, lambda: done.append(1))
    assert all(isinstance(r, Built) for r in results) and len(done) == 2
    assert compile_pool._worker_count(5) == 0
    monkeypatch.setenv("TILELANG_COMPILE_WORKERS", "4")
    assert compile_pool._worker_count(5) == 3 and compile_pool._worker_count(2) == 2
