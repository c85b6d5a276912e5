"""Autotuning: load the GPU candidates' specializations, compiling the missing ones all at once
(compile_pool.py), and hand each candidate to the timing as soon as it can run, so the first
candidates are timed while the others still compile; failures are the candidates' own."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Generator, Iterator
from typing import TYPE_CHECKING, Any

from tilelang.interface.kernel import Kernel
from tilelang.runtime.launch import use_interpreter
from tilelang.tune.progress import Progress

if TYPE_CHECKING:
    from tilelang.runtime.build import BuildJob

Problem = tuple[type[BaseException], str] | None  # why a candidate cannot run (None: it can)


def prebuild(candidates: list[Any], stream: object, progress: Progress
             ) -> Generator[tuple[Any, Problem], None, None]:
    """Every candidate once, when it can run (its specialization loaded, or an interpreter
    candidate, left to its first run) or with the (exception type, message) that keeps it from
    running: it failed to specialize, compile or load. Ready ones come first, then the others
    as their compilations finish."""
    wanted = []  # (candidate, job, device)
    for c in candidates:
        if not isinstance(c.kernel, Kernel) or use_interpreter(c.kernel):
            yield c, None
            continue
        from tilelang.runtime.gpu_launch import pending_build

        try:
            found = pending_build(c.kernel, stream, c.args_fn())
        except Exception as e:
            yield c, (type(e), str(e))
            continue
        if found is None:
            yield c, None
        else:
            wanted.append((c, *found))
    if wanted:
        yield from _build(wanted, progress)


def _build(wanted: list[Any], progress: Progress) -> Iterator[tuple[Any, Problem]]:
    from tilelang.runtime.build import install, is_installed
    from tilelang.tune.compile_pool import Failure, build_each

    launcher = _prepare_launcher()
    index: dict[str, int] = {}  # configs that select one specialization compile it once
    jobs: list[BuildJob] = []
    waiting: list[list[Any]] = []  # per job: its (candidate, device)s
    for c, job, device in wanted:
        if job.key not in index:
            index[job.key] = len(jobs)
            jobs.append(job)
            waiting.append([])
        waiting[index[job.key]].append((c, device))
    with contextlib.closing(build_each(jobs)) as results:
        for finished, (i, result) in enumerate(results, 1):
            progress.update("compiling", finished, len(jobs))
            launcher.join()
            for c, device in waiting[i]:
                if isinstance(result, Failure):
                    yield c, (result.kind, result.message)
                    continue
                try:
                    if not is_installed(c.kernel, jobs[i], device):
                        install(c.kernel, jobs[i], result, device)
                except Exception as e:
                    yield c, (type(e), str(e))
                    continue
                yield c, None


def _prepare_launcher() -> threading.Thread:
    """Have the native launcher ready (the first launch in a new cache folder compiles it with
    the C compiler, a few tenths of a second) while the kernels compile: a thread, since it
    mostly waits for the C compiler. Joined before the first candidate is loaded."""
    from tilelang.runtime.native_launch import native_module

    def prepare() -> None:
        with contextlib.suppress(Exception):  # the first launch tries again, and reports it
            native_module()

    thread = threading.Thread(target=prepare, daemon=True)
    thread.start()
    return thread
