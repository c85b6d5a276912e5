"""Compiling autotuning candidates in forked worker processes (no GPU needed: PTX for sm_90)."""

from __future__ import annotations

import os
import shutil
import time

import numpy as np
import pytest
import tuning_kernels as tk

import tilelang as ct
from tilelang.compile_job import describe
from tilelang.runtime import build as runtime_build
from tilelang.runtime import disk_cache
from tilelang.runtime.build import BuildJob, Built
from tilelang.tune import compile_pool

X = np.zeros((300, 500), np.float32)
OUT = np.zeros(300, np.float32)


def job(kernel, *args, num_warps: int = 4) -> BuildJob:
    """What a launch with these arguments would compile on an sm_90 device."""
    signature = kernel.specialize(args)
    compile_job = describe(kernel.fn, kernel.name, signature, "sm_90", "sm_90", num_warps, None)
    return BuildJob(compile_job, disk_cache.cache_key(*compile_job.identity()))


@pytest.fixture
def workers(monkeypatch):
    monkeypatch.setenv("TILELANG_COMPILE_WORKERS", "3")


def test_workers_compile_and_fill_the_disk_cache(workers) -> None:
    jobs = [job(tk.row_sums, X, OUT, r, c) for r, c in [(8, 64), (8, 128), (16, 64)]]
    results = compile_pool.build_all(jobs)
    assert [type(r) for r in results] == [Built] * 3
    assert all(r.source == "compiled" for r in results)
    assert compile_pool.stats["workers"] == 3 and compile_pool.stats["by_workers"] == 3
    assert compile_pool.stats["here"] == 0
    for r in results:
        assert ".entry row_sums" in r.ptx and ".target sm_90" in r.ptx
        if shutil.which("ptxas"):  # workers assemble without a GPU when they can
            assert r.cubin and r.cubin[:4] == b"\x7fELF"
    # what a worker compiled is what this process compiles
    here = ct.compile(tk.row_sums, (X, OUT, 16, 64), arch="sm_90")
    assert results[2].ptx == here.ptx
    again = compile_pool.build_all(jobs)  # now from the disk cache, in this process
    assert [r.source for r in again] == ["disk"] * 3
    assert compile_pool.stats["workers"] == 0 and compile_pool.stats["from_disk"] == 3


def test_compile_errors_come_back_as_failures(workers) -> None:
    jobs = [job(tk.scaled_copy, X[0], OUT, 1.0, -4), job(tk.scaled_copy, X[0], OUT, 1.0, 128)]
    failed, built = compile_pool.build_all(jobs)
    assert isinstance(failed, compile_pool.Failure)
    assert failed.kind is ct.TileTypeError and "is not positive" in failed.message
    assert isinstance(built, Built)
    assert compile_pool.stats["by_workers"] == 2


def test_kernels_defined_anywhere_compile_in_workers(workers) -> None:
    scale = 3.0  # a closure: the workers see the function as it is here

    @ct.kernel
    def local_copy(x, out, BLOCK: ct.Constant[int]):
        ct.store(out, (ct.bid(0),), ct.load(x, (ct.bid(0),), (BLOCK,)) * scale)

    jobs = [job(local_copy, X[0], OUT, 64), job(local_copy, X[0], OUT, 32)]
    results = compile_pool.build_all(jobs)
    assert all(isinstance(r, Built) and r.source == "compiled" for r in results)
    assert compile_pool.stats["by_workers"] == 2
    assert results[0].ptx == ct.compile(local_copy, (X[0], OUT, 64), arch="sm_90").ptx


def test_workers_fork_from_a_process_that_has_compiled(workers) -> None:
    """This process has used the compiler (MLIR contexts and all): its forks compile too, and
    the second batch finds the compiler imported."""
    ct.compile(tk.scaled_copy, (X[0], OUT, 1.0, 16), arch="sm_90")
    jobs = [job(tk.scaled_copy, X[0], OUT, 1.0, b) for b in (32, 64)]
    first = compile_pool.build_all(jobs)
    assert compile_pool.stats["by_workers"] == 2
    jobs = [job(tk.scaled_copy, X[0], OUT, 1.0, b) for b in (128, 256)]
    second = compile_pool.build_all(jobs)
    assert compile_pool.stats["by_workers"] == 2 and compile_pool.stats["prepare_s"] < 0.1
    assert all(isinstance(r, Built) for r in first + second)


def test_a_worker_that_dies_fails_its_job_only(workers, monkeypatch) -> None:
    real_build = runtime_build.build

    def build(job, assembler="nvjitlink"):  # what a worker runs (it inherits our patches)
        if job.signature[-1].value == 32:
            os._exit(3)  # a crash in the compiler
        return real_build(job, assembler)

    monkeypatch.setattr(runtime_build, "build", build)
    jobs = [job(tk.scaled_copy, X[0], OUT, 1.0, b) for b in (64, 32, 128, 256)]
    results = compile_pool.build_all(jobs)
    assert isinstance(results[1], compile_pool.Failure)
    assert results[1].kind is ct.TileCompilerExecutionError
    assert "ended without an answer" in results[1].message
    assert [type(results[i]) for i in (0, 2, 3)] == [Built] * 3


def test_results_come_as_each_job_finishes(workers, monkeypatch, tmp_path) -> None:
    real_build = runtime_build.build
    go = tmp_path / "go"

    def build(job, assembler="nvjitlink"):  # the first job waits for the caller's next result
        if job.signature[-1].value == 64:
            deadline = time.monotonic() + 30
            while not go.exists() and time.monotonic() < deadline:
                time.sleep(0.01)
        return real_build(job, assembler)

    monkeypatch.setattr(runtime_build, "build", build)
    jobs = [job(tk.scaled_copy, X[0], OUT, 1.0, b) for b in (64, 128)]
    order = []
    for i, result in compile_pool.build_each(jobs):
        assert isinstance(result, Built)
        order.append(i)
        go.touch()
    assert order == [1, 0]


def test_abandoning_a_batch_stops_its_workers(workers, monkeypatch) -> None:
    real_build = runtime_build.build

    def build(job, assembler="nvjitlink"):
        if job.signature[-1].value != 64:
            time.sleep(60)
        return real_build(job, assembler)

    monkeypatch.setattr(runtime_build, "build", build)
    jobs = [job(tk.scaled_copy, X[0], OUT, 1.0, b) for b in (64, 128, 256)]
    start = time.monotonic()
    results = compile_pool.build_each(jobs)
    assert next(results)[0] == 0
    results.close()  # kills the two still sleeping
    assert time.monotonic() - start < 30
    deadline = time.monotonic() + 10
    while running_in_group(compile_pool.stats["group"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert running_in_group(compile_pool.stats["group"]) == []


def test_stuck_workers_are_stopped_and_their_jobs_compiled_here(workers, monkeypatch) -> None:
    """Workers that say nothing for SILENCE_S seconds (a fork of a threaded process can
    deadlock) are killed; the jobs they did not finish are compiled in this process."""
    def build(job, assembler="nvjitlink"):  # every worker hangs (this process's own
        time.sleep(60)  # compile_pool.build is the real one)

    monkeypatch.setattr(runtime_build, "build", build)
    monkeypatch.setattr(compile_pool, "SILENCE_S", 1.0)
    jobs = [job(tk.scaled_copy, X[0], OUT, 1.0, b) for b in (64, 128, 256)]
    start = time.monotonic()
    results = compile_pool.build_all(jobs)
    assert [type(r) for r in results] == [Built] * 3
    assert compile_pool.stats["stuck"] and compile_pool.stats["here"] == 3
    assert time.monotonic() - start < 30
    assert running_in_group(compile_pool.stats["group"]) == []


def test_workers_survive_garbage_mlir_contexts_of_the_parent(workers, monkeypatch) -> None:
    """An MLIR context whose thread pool ran (a pass over many functions) left in a reference
    cycle: a worker that collected it would join threads its fork did not copy and sleep
    forever (seen twice in one session's CI). The parent collects before forking, and the
    workers never collect what they inherited."""
    import gc

    import mlir.ir as ir
    from mlir.passmanager import PassManager

    def garbage_context() -> None:
        ctx = ir.Context()
        with ctx, ir.Location.unknown():
            module = ir.Module.parse("\n".join(f"func.func @f{i}() {{ return }}"
                                               for i in range(64)))
            PassManager.parse("builtin.module(func.func(cse))").run(module.operation)
        cycle: list = [ctx, module]
        cycle.append(cycle)

    real_build = runtime_build.build

    def build(job, assembler="nvjitlink"):  # each worker collects before it compiles
        gc.collect()
        return real_build(job, assembler)

    was_enabled = gc.isenabled()
    gc.disable()  # the cycles stay garbage until someone collects them
    try:
        for _ in range(3):
            garbage_context()
        monkeypatch.setattr(runtime_build, "build", build)
        monkeypatch.setattr(compile_pool, "SILENCE_S", 30.0)
        jobs = [job(tk.scaled_copy, X[0], OUT, 1.0, b) for b in (64, 128, 256)]
        results = compile_pool.build_all(jobs)
    finally:
        if was_enabled:
            gc.enable()
    assert [type(r) for r in results] == [Built] * 3
    assert compile_pool.stats["by_workers"] == 3 and not compile_pool.stats.get("stuck")


def running_in_group(group: int) -> list[int]:
    """The live (not zombie) processes of a process group, from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == group and fields[0] != "Z":
                found.append(int(entry))
    return found


def test_worker_output_goes_to_stderr(workers, monkeypatch, capfd) -> None:
    real_build = runtime_build.build

    def build(job, assembler="nvjitlink"):
        print("compiling in a worker")
        return real_build(job, assembler)

    monkeypatch.setattr(runtime_build, "build", build)
    print("before", end="")  # unwritten when the workers fork: written once, by this process
    jobs = [job(tk.scaled_copy, X[0], OUT, 1.0, b) for b in (64, 128)]
    assert all(isinstance(r, Built) for r in compile_pool.build_all(jobs))
    out, err = capfd.readouterr()
    assert out == "before" and err.count("compiling in a worker") == 2


def test_one_process_means_no_workers(monkeypatch) -> None:
    monkeypatch.setenv("TILELANG_COMPILE_WORKERS", "1")
    jobs = [job(tk.scaled_copy, X[0], OUT, 2.0, b) for b in (64, 128)]
    results = compile_pool.build_all(jobs)
    assert all(isinstance(r, Built) for r in results)
    assert compile_pool.stats["workers"] == 0 and compile_pool.stats["here"] == 2
    assert compile_pool._worker_count(5) == 1
    monkeypatch.setenv("TILELANG_COMPILE_WORKERS", "4")
    assert compile_pool._worker_count(5) == 4 and compile_pool._worker_count(2) == 2
    monkeypatch.delenv("TILELANG_COMPILE_WORKERS")
    assert 1 <= compile_pool._worker_count(100) <= compile_pool.MAX_WORKERS


def test_workers_assemble_with_the_ptxas_command_where_it_is_installed(monkeypatch):
    """What `auto` prefers (a whole program: fewer registers than nvJitLink's unit of a link);
    nvJitLink without the command; "none" (the caller assembles) without either."""
    import shutil
    import sys

    from tilelang.tune import compile_worker

    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/ptxas")
    assert compile_worker.gpu_free_assembler() == "ptxas"
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setitem(sys.modules, "cuda.bindings.nvjitlink", None)  # not importable
    assert compile_worker.gpu_free_assembler() == "none"
