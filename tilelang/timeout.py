"""Compiler: the time a compilation may take (`compiler_timeout`, as cuTile's) and the deadline
the compiler checks between its passes (compiler.py).

A compilation runs in this process, through the MLIR bindings: it cannot be killed midway
without losing the process, so it stops at the first check after the limit, between two passes
(or two stages), raising `TileCompilerTimeoutError`; nothing of it is kept, and the next
compilation starts clean. One pass that runs long (LLVM's code generation in the `ptx` stage,
an upstream pass pipeline) finishes before the check sees the time.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from contextlib import contextmanager

from tilelang import settings
from tilelang.errors import TileCompilerTimeoutError

_UNSET = object()
_override: list[object] = [_UNSET]  # the innermost compiler_timeout's value (process-wide)


@contextmanager
def compiler_timeout(timeout_sec: float | None) -> Iterator[None]:
    """Limit every compilation started inside the `with` block to `timeout_sec` seconds
    (`None`: no limit), as cuTile's `compiler_timeout`.

    A compilation that takes longer stops at the compiler's next check (between two passes)
    with `TileCompilerTimeoutError`; the process stays usable and the kernel compiles again at
    its next launch. A single pass is not interrupted (the `ptx` stage's LLVM code generation
    is one), so a compilation may overrun by that pass's time. The setting is process-wide,
    not per thread (as cuTile's); compile worker processes (autotuning's parallel compilation)
    keep the limit in force when they were forked: set `TILELANG_COMPILER_TIMEOUT_SEC` for
    those.

    Example:
        >>> with tilelang.compiler_timeout(60):
        ...     tilelang.launch(stream, grid, kernel, args)
    """
    if timeout_sec is not None:
        if isinstance(timeout_sec, bool) or not isinstance(timeout_sec, int | float):
            raise TypeError(f"compiler_timeout takes a number of seconds or None, got "
                            f"{timeout_sec!r}")
        if math.isnan(timeout_sec) or timeout_sec < 0:
            raise ValueError(f"compiler_timeout must be 0 or more seconds, got {timeout_sec}")
    previous = _override[0]
    _override[0] = None if timeout_sec is None else float(timeout_sec)
    try:
        yield
    finally:
        _override[0] = previous


def current_timeout() -> float | None:
    """The limit of a compilation starting now: the innermost `compiler_timeout`, else
    TILELANG_COMPILER_TIMEOUT_SEC (or cuTile's CUDA_TILE_COMPILER_TIMEOUT_SEC), else none."""
    value = _override[0]
    if value is _UNSET:
        return settings.compiler_timeout()
    return value if isinstance(value, float) else None


class Deadline:
    """The clock of one compilation: started when the compilation starts."""

    def __init__(self, kernel: str, limit: float | None = None) -> None:
        self.kernel = kernel
        self.limit = current_timeout() if limit is None else limit
        self.started = time.perf_counter()

    def check(self, where: str) -> None:
        """Raise TileCompilerTimeoutError when the limit has passed; `where` says what was to
        run next (a stage, or a pass of one)."""
        if self.limit is None:
            return
        elapsed = time.perf_counter() - self.started
        if elapsed > self.limit:
            error = TileCompilerTimeoutError(
                f"compiling kernel {self.kernel} exceeded the compiler timeout of "
                f"{self.limit:g} s: stopped after {elapsed:.3f} s, {where}",
                f"timeout={self.limit:g}")
            error.hint = ("allow more time with `with tilelang.compiler_timeout(seconds):` or "
                          "TILELANG_COMPILER_TIMEOUT_SEC")
            raise error
