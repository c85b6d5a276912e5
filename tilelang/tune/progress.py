"""Autotuning: a one-line progress report, shown once a search has run for a second."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

DELAY_S = 1.0  # quick searches print nothing


class Progress:
    """Rewrites one line of `out` (a terminal) with what the search is doing."""

    def __init__(self, label: str, enabled: bool = True, out: TextIO | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.label = label
        self.out = out if out is not None else sys.stderr
        self.clock = clock
        self.start = clock()
        self.enabled = enabled and _is_terminal(self.out)
        self.shown = False

    def update(self, step: str, done: int, total: int, failed: int = 0) -> None:
        if not self.enabled or self.clock() - self.start < DELAY_S:
            return
        text = f"{self.label}: {step} {done}/{total}"
        if failed:
            text += f", {failed} failed"
        self.out.write(f"\r\033[K{text} ({self.clock() - self.start:.1f} s)")
        self.out.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.out.write("\r\033[K")
            self.out.flush()
            self.shown = False


def _is_terminal(out: TextIO) -> bool:
    try:
        return bool(out.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False
