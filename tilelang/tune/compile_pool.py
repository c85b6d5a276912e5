"""Autotuning: compile the candidates' specializations in parallel, in forked worker processes.

The compiler holds the GIL throughout: its passes are Python, and the MLIR pass manager does not
release it either (measured: a thread ticking every 0.5 ms got no turn during a 31 ms
`PassManager.run`), so threads cannot overlap compilations; processes can. The workers are
forks of this process, made for each batch of jobs (compile_worker.py): they have every kernel
wherever it was defined (in a function, in `__main__`) with the globals it sees now, and the
compiler, which this process imports once before the first fork, so they start in milliseconds
and import nothing. This process compiles nothing while they work: `build_each` hands each
result over as it arrives, so the caller loads and times a candidate while the others compile.
"""

from __future__ import annotations

import contextlib
import gc
import os
import queue
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Generator, Iterator
from typing import Any

from tilelang import settings
from tilelang.errors import TileCompilerExecutionError
from tilelang.runtime import disk_cache
from tilelang.runtime.build import BuildJob, Built, build
from tilelang.tune.compile_worker import (
    TASK,
    Failure,
    gpu_free_assembler,
    read_message,
    run_worker,
)

__all__ = ["Failure", "build_all", "build_each", "stats"]

MAX_WORKERS = 16
# Seconds without a word from any worker after which the batch's workers are taken as stuck
# and killed, and the jobs they did not finish compiled in this process. A fork of a process
# with threads can deadlock (a lock another thread held at the fork): seen once, a worker of a
# worker asleep on a futex in pure Python code while its CI run's pytest waited for it.
SILENCE_S = 300.0

# What the last batch did (benchmarks and tests read it): workers forked, jobs each way, and
# the seconds spent preparing the fork (the compiler's import) and in the whole batch.
stats: dict[str, Any] = {}


def build_all(jobs: list[BuildJob]) -> list[Built | Failure]:
    """Every job's result, in order (see `build_each`)."""
    results: list[Built | Failure | None] = [None] * len(jobs)
    for i, result in build_each(jobs):
        results[i] = result
    return results  # type: ignore[return-value]


def build_each(jobs: list[BuildJob]) -> Generator[tuple[int, Built | Failure], None, None]:
    """(index, result) of every job, as each is ready: those in the disk cache first, then the
    others as they compile, in worker processes when there are two or more and workers are
    allowed (TILELANG_COMPILE_WORKERS), else here one by one."""
    start = time.perf_counter()
    stats.clear()
    stats.update(workers=0, from_disk=0, by_workers=0, here=0, prepare_s=0.0, wall_s=0.0)
    todo = []
    for i, job in enumerate(jobs):
        cached = _from_disk(job)
        if cached is None:
            todo.append(i)
        else:
            stats["from_disk"] += 1
            yield i, cached
    count = _worker_count(len(todo)) if hasattr(os, "fork") else 0
    if count >= 2:
        yield from _forked(jobs, todo, count)
    else:
        for i in todo:
            stats["here"] += 1
            yield i, _build_here(jobs[i])
    stats["wall_s"] = time.perf_counter() - start


def _from_disk(job: BuildJob) -> Built | None:
    if not settings.disk_cache_enabled():
        return None
    cached = disk_cache.load(job.key)
    return None if cached is None else Built(*cached, "disk")


def _build_here(job: BuildJob) -> Built | Failure:
    try:
        return build(job)
    except Exception as e:
        return Failure(type(e), str(e))


def _worker_count(jobs: int) -> int:
    """Processes for this many jobs: TILELANG_COMPILE_WORKERS, or one per CPU (at most 16)."""
    processes = settings.compile_workers()
    if processes is None:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
            os.cpu_count() or 1
        processes = min(MAX_WORKERS, cpus)
    return max(0, min(processes, jobs))


def _forked(jobs: list[BuildJob], todo: list[int], count: int
            ) -> Iterator[tuple[int, Built | Failure]]:
    prepared = time.perf_counter()
    import tilelang.compiler  # noqa: F401  (once: every fork after this one has it)

    stats["assembler"] = assembler = gpu_free_assembler()
    stats["prepare_s"] = time.perf_counter() - prepared
    tasks = os.pipe()
    results = [os.pipe() for _ in range(count)]
    for stream in (sys.stdout, sys.stderr):  # a worker must not inherit unwritten output
        with contextlib.suppress(AttributeError, OSError, ValueError):
            stream.flush()
    # nor garbage to collect: an MLIR context freed in a worker joins the threads of its pool,
    # which the fork did not copy, and waits forever (compile_worker.run_worker)
    gc.collect()
    try:
        with warnings.catch_warnings():  # Python 3.12 warns of forking a threaded process: the
            warnings.simplefilter("ignore", DeprecationWarning)  # workers use none of the threads
            pid = os.fork()
    except OSError:
        pid = None
    if pid == 0:
        run_worker(0, count, jobs, tasks, results, assembler)
    if pid is not None:  # the workers' process group (see compile_worker.py)
        with contextlib.suppress(OSError):
            os.setpgid(pid, pid)
    os.close(tasks[0])
    for _, write_end in results:
        os.close(write_end)
    if pid is None:  # could not fork: compile here
        os.close(tasks[1])
        for read_end, _ in results:
            os.close(read_end)
        for i in todo:
            stats["here"] += 1
            yield i, _build_here(jobs[i])
        return
    stats["workers"], stats["group"] = count, pid
    yield from _collect(jobs, todo, pid, tasks[1], [r for r, _ in results])


def _collect(jobs: list[BuildJob], todo: list[int], first_pid: int, tasks: int,
             reads: list[int]) -> Iterator[tuple[int, Built | Failure]]:
    """Feed the task pipe, hand results over as the workers send them; jobs no worker took
    (they could not start) are compiled here."""
    events: queue.Queue[tuple[int, Any]] = queue.Queue()
    for k, fd in enumerate(reads):
        threading.Thread(target=_read_messages, args=(fd, k, events.put), daemon=True).start()
    left = set(todo)
    working: dict[int, int] = {}  # worker -> the job it is compiling
    open_pipes = len(reads)
    try:
        try:  # a write blocks only while the pipe is full (thousands of jobs): workers drain it
            data = memoryview(b"".join(TASK.pack(i) for i in todo))
            while data:
                data = data[os.write(tasks, data):]
        except OSError:  # every worker is gone: what they did not take is compiled below
            pass
        finally:
            os.close(tasks)
        while open_pipes:
            try:
                k, message = events.get(timeout=SILENCE_S)
            except queue.Empty:  # stuck workers (below): the rest is compiled here
                stats["stuck"] = True
                with contextlib.suppress(OSError):
                    os.killpg(first_pid, signal.SIGKILL)
                break
            if message is None:  # the worker is gone
                open_pipes -= 1
                job = working.pop(k, None)
                if job is not None:
                    left.discard(job)
                    yield job, Failure(TileCompilerExecutionError,
                                       "the compile worker ended without an answer (a crash "
                                       "in the compiler?)")
            elif message[0] == "start":
                working[k] = message[1]
            else:
                _, job, result = message
                working.pop(k, None)
                left.discard(job)
                stats["by_workers"] += 1
                yield job, result
        for job in sorted(left):
            stats["here"] += 1
            yield job, _build_here(jobs[job])
    finally:
        if open_pipes:  # abandoned (an exception, an interrupt): stop the workers
            with contextlib.suppress(OSError):
                os.killpg(first_pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(first_pid, 0)  # it waits for its own children first


def _read_messages(fd: int, worker: int, put: Callable[[tuple[int, Any]], None]) -> None:
    with os.fdopen(fd, "rb") as inp:
        while True:
            try:
                message = read_message(inp)
            except Exception:  # EOF, or a worker that died mid-message
                put((worker, None))
                return
            put((worker, message))
