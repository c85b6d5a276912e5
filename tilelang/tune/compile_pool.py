"""Autotuning: compile the candidates' specializations in parallel, in worker processes.

The compiler holds the GIL throughout: its passes are Python, and the MLIR pass manager does not
release it either (measured: a thread ticking every 0.5 ms got no turn during a 31 ms
`PassManager.run`), so threads cannot overlap compilations; processes can. The workers are
`python -c ... compile_worker.main()` processes, started on first need and kept for the life of
the process. Unlike multiprocessing's spawn and forkserver they never import the user's main
script. The calling process compiles too while they start, so a search with a few quick
compilations never waits for them.
"""

from __future__ import annotations

import atexit
import json
import os
import pickle
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace

from tilelang import settings
from tilelang.runtime import disk_cache
from tilelang.runtime.build import BuildJob, Built, build
from tilelang.tune.compile_worker import read_message, write_message

MAX_WORKERS = 16


@dataclass
class Failure:
    """A job that did not compile: the exception's type and message."""

    kind: type[BaseException]
    message: str


def build_all(jobs: list[BuildJob], on_done: Callable[[], None] | None = None, *,
              compile_here: bool = True) -> list[Built | Failure]:
    """Build every job (disk cache, else compile), in worker processes and here at once.

    `compile_here=False` leaves every job a worker can take to the workers (tests use it)."""
    payloads = [_payload(job) for job in jobs]
    remote = sum(p is not None for p in payloads)
    count = _worker_count(remote) if remote >= (2 if compile_here else 1) else 0
    queue = _Queue(payloads, on_done)
    for worker in _workers(count):
        threading.Thread(target=worker.feed, args=(queue,), daemon=True).start()
    if compile_here:
        while (i := queue.take(remote=False)) is not None:
            queue.finish(i, _build_here(jobs[i]), remote=False)
    queue.wait_for_workers(drain=not compile_here and count > 0)
    for i, result in enumerate(queue.results):  # what workers gave back, or never took
        if result is None:
            queue.finish(i, _build_here(jobs[i]), remote=False)
    return queue.results  # type: ignore[return-value]


def _build_here(job: BuildJob) -> Built | Failure:
    try:
        return build(job)
    except Exception as e:
        return Failure(type(e), str(e))


def _payload(job: BuildJob) -> bytes | None:
    """The pickled job for a worker; None for jobs compiled here: those the disk cache already
    has, and kernels a worker could not import (defined in a function or in `__main__`)."""
    if getattr(job.fn, "__module__", "__main__") == "__main__" or "<locals>" in getattr(
            job.fn, "__qualname__", "<locals>"):
        return None
    if settings.disk_cache_enabled() and disk_cache.load(job.key) is not None:
        return None
    try:  # the function by name (its module's attribute is usually the @kernel object)
        return pickle.dumps((job.fn.__module__, job.fn.__qualname__, replace(job, fn=None)))
    except Exception:
        return None


def _worker_count(remote_jobs: int) -> int:
    """Workers for this many jobs: TILELANG_COMPILE_WORKERS (or one per CPU, at most 16)
    processes compile at once, this one included."""
    processes = settings.compile_workers()
    if processes is None:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
            os.cpu_count() or 1
        processes = min(MAX_WORKERS, cpus)
    return max(0, min(processes - 1, remote_jobs))


class _Queue:
    """The jobs of one `build_all`: which are left, which are out with workers, the results."""

    def __init__(self, payloads: list[bytes | None], on_done: Callable[[], None] | None) -> None:
        self.payloads = payloads
        self.pending = deque(range(len(payloads)))
        self.results: list[Built | Failure | None] = [None] * len(payloads)
        self.out_with_workers = 0
        self.on_done = on_done
        self.lock = threading.Condition()

    def take(self, remote: bool) -> int | None:
        with self.lock:
            for i in self.pending:
                if not remote or self.payloads[i] is not None:
                    self.pending.remove(i)
                    self.out_with_workers += remote
                    return i
            return None

    def finish(self, i: int, result: Built | Failure | None, remote: bool) -> None:
        with self.lock:
            self.results[i] = result
            self.out_with_workers -= remote
            self.lock.notify_all()
        if result is not None and self.on_done is not None:
            self.on_done()

    def wait_for_workers(self, drain: bool, timeout_s: float = 600.0) -> None:
        """Until no job is out with a worker. With `drain`, until the workers have also taken
        every job they can; else the jobs left stay for the caller."""
        with self.lock:
            if not drain:
                self.pending.clear()
            self.lock.wait_for(lambda: self.out_with_workers == 0 and not any(
                self.payloads[i] is not None for i in self.pending), timeout=timeout_s)
            self.pending.clear()


class _Worker:
    """One compile worker process and the pipe to it."""

    def __init__(self) -> None:
        code = ("import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
                "from tilelang.tune.compile_worker import main; main()")
        self.process = subprocess.Popen(
            [sys.executable, "-c", code, json.dumps(sys.path)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.ready = False
        self.alive = True
        self.jobs_done = 0
        self.lock = threading.Lock()  # one `build_all` feeds a worker at a time

    def feed(self, queue: _Queue) -> None:
        with self.lock:
            current = None
            try:
                if not self.ready:
                    self.ready = read_message(self.process.stdout) == "ready"
                while self.ready:
                    current = queue.take(remote=True)
                    if current is None:
                        return
                    queue.finish(current, self._ask(queue.payloads[current]), remote=True)
                    current = None
            except (EOFError, OSError, pickle.UnpicklingError):
                self.alive = False
                self.close()
                if current is not None:  # the caller compiles it
                    queue.finish(current, None, remote=True)

    def _ask(self, payload: bytes | None) -> Built | Failure | None:
        write_message(self.process.stdin, payload)
        reply = read_message(self.process.stdout)
        self.jobs_done += 1
        if reply[0] == "ok":
            return reply[1]
        if reply[0] == "error":
            return Failure(reply[1], reply[2])
        return None  # ("local", why): compiled by the caller

    def close(self) -> None:
        try:
            if self.process.stdin:
                self.process.stdin.close()
        except OSError:
            pass


_pool: list[_Worker] = []


def _workers(count: int) -> list[_Worker]:
    """`count` live workers (started now when fewer are running)."""
    _pool[:] = [w for w in _pool if w.alive and w.process.poll() is None]
    while len(_pool) < count:
        _pool.append(_Worker())
    return _pool[:count]


@atexit.register
def _stop_workers() -> None:
    for worker in _pool:
        worker.close()
    for worker in _pool:
        try:
            worker.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            worker.process.kill()
