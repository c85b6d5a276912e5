"""Autotuning: compile the GPU candidates of a search before timing them, all at once
(compile_pool.py), so the compilations overlap; failures are the candidates' own."""

from __future__ import annotations

from typing import Any

from tilelang.interface.kernel import Kernel
from tilelang.runtime.launch import use_interpreter
from tilelang.tune.progress import Progress


def prebuild(candidates: list[Any], stream: Any, progress: Progress
             ) -> dict[int, tuple[type[BaseException], str]]:
    """Load every candidate's specialization; returns (exception type, message) by the order
    of each candidate that failed to specialize or compile. Interpreter candidates are left to
    their first run."""
    failures: dict[int, tuple[type[BaseException], str]] = {}
    wanted = []  # (candidate, job, device)
    for c in candidates:
        if not isinstance(c.kernel, Kernel) or use_interpreter(c.kernel):
            continue
        from tilelang.runtime.gpu_launch import pending_build

        try:
            found = pending_build(c.kernel, stream, c.args_fn())
        except Exception as e:
            failures[c.order] = (type(e), str(e))
            continue
        if found is not None:
            wanted.append((c, *found))
    if wanted:
        _build(wanted, progress, failures)
    return failures


def _build(wanted: list[Any], progress: Progress,
           failures: dict[int, tuple[type[BaseException], str]]) -> None:
    from tilelang.runtime.build import install
    from tilelang.tune.compile_pool import Failure, build_all

    index: dict[str, int] = {}  # configs that select one specialization compile it once
    jobs = []
    for _, job, _ in wanted:
        if job.key not in index:
            index[job.key] = len(jobs)
            jobs.append(job)
    finished = 0

    def tick() -> None:
        nonlocal finished
        finished += 1
        progress.update("compiling", finished, len(jobs))

    results = build_all(jobs, tick)
    for c, job, device in wanted:
        result = results[index[job.key]]
        if isinstance(result, Failure):
            failures[c.order] = (result.kind, result.message)
            continue
        if ("gpu", job.signature, job.arch, device) not in c.kernel.cache:
            try:
                install(c.kernel, job, result, device)
            except Exception as e:
                failures[c.order] = (type(e), str(e))
