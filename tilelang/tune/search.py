"""Autotuning: cuTile's `exhaustive_search`: run every config of a kernel, keep the fastest.

Each config is warmed up, then timed in batches until its mean is known well enough (a 95%
confidence half-width under 1% or 0.5 µs, or 1000 samples, or 5 s of kernel time). Configs are
refined fastest-first until five have converged; the rest are timed only while they could still
beat those five. Timing goes through the module's `_benchmark`, which tests replace.
"""

from __future__ import annotations

import contextlib
import functools
import heapq
import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from tilelang.errors import TileLaunchTimeoutError
from tilelang.interface.kernel import Kernel
from tilelang.runtime.launch import use_interpreter
from tilelang.tune.prebuild import Problem, prebuild
from tilelang.tune.progress import Progress
from tilelang.tune.timing import benchmark as _benchmark

T = TypeVar("T")

# How much to time; module globals read at each use, so tests can shrink them.
_WARM_UP_REPEATS = 3  # untimed runs before the first sample
_BATCH_REPEATS = 5  # samples taken at a time
_MIN_REPEATS = 5  # before a mean counts as converged
_MAX_REPEATS = 1000
_MAX_MEASURE_TIME_US = 5_000_000
_TOP_K = 5  # configs refined to convergence; the others only while they could beat these
# On the interpreter the wall clock times NumPy, not the GPU: a few samples order the configs
# as well as many would.
_MAX_INTERPRETER_REPEATS = 10


@dataclass(frozen=True, kw_only=True)
class Measurement(Generic[T]):
    """The timing of one config."""

    config: T
    mean_us: float
    num_samples: int
    error_margin_us: float  # half the width of the mean's 95% confidence interval
    median_us: float = math.nan  # tilelang's addition (what `autotune` ranks by)


@dataclass(frozen=True, kw_only=True)
class TuningResult(Generic[T]):
    """Every config's measurement, the best one, and `(config, exception type, message)` of
    each config that failed."""

    best: Measurement[T]
    successes: Sequence[Measurement[T]]
    failures: Sequence[tuple[T, type[BaseException], str]]

    def summary(self, *, top_k: int = 10, bottom_k: int = 2) -> str:
        """The configs from fastest to slowest (the `top_k` first and `bottom_k` last), then
        the failures."""
        lines = [f"{len(self.successes)} succeeded, {len(self.failures)} failed"]
        ranked = sorted(self.successes, key=lambda m: m.mean_us)
        hidden = range(top_k, max(top_k, len(ranked) - bottom_k))
        if len(hidden) == 1:
            hidden = range(0)
        for i, m in enumerate(ranked):
            if i in hidden:
                if i == hidden.start:
                    lines.append(f"    ... {len(hidden)} more")
                continue
            mark = "*" if m is self.best else " "
            lines.append(f"{mark} {m.config}: {m.mean_us:.1f} ± {m.error_margin_us:.1f} us "
                         f"({m.num_samples} samples)")
        if self.failures:
            lines.append(f"  {len(self.failures)} failed:")
            for config, kind, message in self.failures[:top_k]:
                first = message.split("\n", 1)[0]
                lines.append(f"    {config}: {kind.__name__}: {first[:80]}")
            if len(self.failures) > top_k:
                lines.append(f"    ... {len(self.failures) - top_k} more")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


def exhaustive_search(
    search_space: Sequence[T],
    stream: object,
    grid_fn: Callable[[T], tuple[int, ...]],
    kernel: Kernel | Callable[[T], Kernel],
    args_fn: Callable[[T], tuple[Any, ...]],
    hints_fn: Callable[[T], dict[str, Any]] | None = None,
    *,
    quiet: bool = False,
    single_run_timeout_sec: float | None = None,
) -> TuningResult[T]:
    """Time `kernel` on every config of `search_space` and return the measurements.

    `grid_fn(cfg)` gives the grid, `args_fn(cfg)` the arguments (called before every run: return
    fresh copies of arrays the kernel writes if runs must not see each other's results),
    `hints_fn(cfg)` options for `kernel.replace_hints`; `kernel` may be a function of the config
    that returns the kernel. A config that fails (to compile, or to run) is recorded in
    `failures` and the search goes on. Prints the result unless `quiet`.

    Example:
        >>> result = tilelang.tune.exhaustive_search(
        ...     [64, 128, 256], stream, lambda t: (tilelang.cdiv(n, t),), add,
        ...     lambda t: (x, y, out, t), lambda t: {"num_warps": 4 if t < 256 else 8})
        >>> result.best.config
    """
    configs = list(search_space)
    if not configs:
        raise ValueError("Search space is empty.")
    progress = Progress("tuning", enabled=not quiet)
    try:
        result = search(configs, stream, grid_fn, kernel, args_fn, hints_fn,
                        single_run_timeout_sec, progress)
    finally:
        progress.close()
    if not quiet:
        print(result)
    return result


def search(configs: list[T], stream: object, grid_fn: Callable[[T], object],
           kernel: Kernel | Callable[[T], Kernel], args_fn: Callable[[T], tuple[Any, ...]],
           hints_fn: Callable[[T], dict[str, Any]] | None, timeout_s: float | None,
           progress: Progress) -> TuningResult[T]:
    """`exhaustive_search` without the printing (what `autotune` runs)."""
    candidates, failures = _candidates(configs, grid_fn, kernel, args_fn, hints_fn)
    with contextlib.closing(prebuild(candidates, stream, progress)) as ready:
        done = _rank(ready, len(candidates), stream, timeout_s, progress, failures, len(configs))
    failures.sort(key=lambda item: item[0])
    if not done:
        raise NoValidConfigError(tuple(f for _, f in failures))
    done.sort(key=lambda c: c.order)
    successes = tuple(c.measurement() for c in done)
    best = min(successes, key=lambda m: m.mean_us)
    return TuningResult(best=best, successes=successes, failures=tuple(f for _, f in failures))


class NoValidConfigError(ValueError):
    """Every config failed; `failures` says how (as `TuningResult.failures`)."""

    def __init__(self, failures: tuple[tuple[Any, type[BaseException], str], ...]) -> None:
        config, kind, message = failures[0]
        super().__init__(f"No valid config found in search space.\nConfig: {config}\n"
                         f"{kind.__name__}: {message}")
        self.failures = failures


@dataclass(eq=False)
class Candidate(Generic[T]):
    """One config being timed: its launch and its samples (a running mean and variance)."""

    order: int
    config: T
    grid: object
    kernel: Kernel
    args_fn: Callable[[], tuple[Any, ...]]
    on_interpreter: bool = False
    samples: list[float] = field(default_factory=list)
    mean_us: float = 0.0
    margin_us: float = 0.0
    _m2: float = 0.0

    def warm_up(self, stream: object, timeout_s: float | None) -> None:
        for i in range(_WARM_UP_REPEATS):
            if i == 0 and timeout_s is not None:
                benchmark_with_timeout(stream, self.grid, self.kernel, self.args_fn(), timeout_s)
            else:
                _benchmark(stream, self.grid, self.kernel, self.args_fn())

    def measure(self, stream: object, count: int) -> None:
        for _ in range(min(count, _MAX_REPEATS - len(self.samples))):
            self._add(_benchmark(stream, self.grid, self.kernel, self.args_fn()))

    def _add(self, us: float) -> None:  # Welford's update
        self.samples.append(us)
        n = len(self.samples)
        delta = us - self.mean_us
        self.mean_us += delta / n
        self._m2 += delta * (us - self.mean_us)
        if n > 1:
            self.margin_us = 1.96 * math.sqrt(self._m2 / (n - 1) / n)

    def converged(self) -> bool:
        n = len(self.samples)
        return n >= _MIN_REPEATS and (
            self.margin_us <= 0.01 * self.mean_us or self.margin_us <= 0.5
            or n >= _MAX_REPEATS or self.mean_us * n > _MAX_MEASURE_TIME_US
            or (self.on_interpreter and n >= _MAX_INTERPRETER_REPEATS))

    def measurement(self) -> Measurement[T]:
        return Measurement(config=self.config, mean_us=self.mean_us,
                           num_samples=len(self.samples), error_margin_us=self.margin_us,
                           median_us=_median(self.samples))


def benchmark_with_timeout(stream: object, grid: object, kernel: object, args: Sequence[Any],
                           timeout_s: float) -> tuple[float, float]:
    """One timed run that fails when it takes longer than `timeout_s` of wall time: returns
    (kernel µs, wall seconds). The run is not interrupted: a kernel that never ends still hangs
    the process (cuTile runs it in another process)."""
    start = time.perf_counter()
    elapsed_us = _benchmark(stream, grid, kernel, args)
    wall_s = time.perf_counter() - start
    if wall_s > timeout_s:
        raise TileLaunchTimeoutError(
            f"CUDA kernel launch exceeded timeout: {wall_s:.2f} s > {timeout_s} s")
    return elapsed_us, wall_s


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


Failures = list[tuple[int, tuple[Any, type[BaseException], str]]]  # (sort key, failure)


def _candidates(configs: list[T], grid_fn: Callable[[T], object],
                kernel: Kernel | Callable[[T], Kernel], args_fn: Callable[[T], tuple[Any, ...]],
                hints_fn: Callable[[T], dict[str, Any]] | None
                ) -> tuple[list[Candidate[T]], Failures]:
    candidates: list[Candidate[T]] = []
    failures: Failures = []
    for order, config in enumerate(configs):
        try:
            k = kernel if isinstance(kernel, Kernel) else kernel(config)
            hints = hints_fn(config) if hints_fn is not None else {}
            if hints:
                k = k.replace_hints(**hints)
            grid = grid_fn(config)
        except Exception as e:
            failures.append((order, (config, type(e), str(e))))
            continue
        on_interpreter = isinstance(k, Kernel) and use_interpreter(k)
        candidates.append(Candidate(order, config, grid, k, functools.partial(args_fn, config),
                                    on_interpreter))
    return candidates, failures


def _rank(ready: Iterable[tuple[Candidate[T], Problem]], count: int, stream: object,
          timeout_s: float | None, progress: Progress, failures: Failures, total: int
          ) -> list[Candidate[T]]:
    """Time the `count` candidates (see the module's docstring) as `ready` hands them over
    (prebuild.py: each with the problem that keeps it from running, or None); the ones that
    ran."""
    done: list[Candidate] = []
    running: list[tuple[float, float, int, Candidate]] = []  # a heap, fastest mean first

    def place(c: Candidate) -> None:
        if c.converged():
            done.append(c)
        else:
            heapq.heappush(running, (c.mean_us, c.margin_us, c.order, c))

    def failed(c: Candidate, e: Exception, first_run: bool) -> None:
        key = c.order if first_run else total + len(failures)
        failures.append((key, (c.config, type(e), str(e))))

    for i, (c, problem) in enumerate(ready):
        if problem is not None:
            failures.append((c.order, (c.config, *problem)))
            continue
        progress.update("timing config", i + 1, count, len(failures))
        try:
            c.warm_up(stream, timeout_s)
            c.measure(stream, _BATCH_REPEATS)
        except Exception as e:
            failed(c, e, True)
            continue
        place(c)
    while len(done) < _TOP_K and running:
        c = heapq.heappop(running)[-1]
        progress.update("refining the fastest", len(done), _TOP_K, len(failures))
        try:
            c.measure(stream, _BATCH_REPEATS)
        except Exception as e:
            failed(c, e, False)
            continue
        place(c)
    if done and running:  # the rest: only while they might still beat the top ones
        cutoff = max(c.mean_us for c in heapq.nsmallest(_TOP_K, done, key=lambda c: c.mean_us))
        for *_, c in running:
            try:
                while not c.converged() and c.mean_us - c.margin_us < cutoff:
                    c.measure(stream, _BATCH_REPEATS)
            except Exception as e:
                failed(c, e, False)
                continue
            done.append(c)
    return done
