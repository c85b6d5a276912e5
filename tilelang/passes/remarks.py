"""Passes: why an analysis declined, for `tilelang.explain` (tilelang/explanation.py).

The analyses that choose a fast path (passes/matmul_loops.py, passes/staged_loops.py) return
`no("why")` where they return None: nothing happens unless a caller is collecting, which only
`explain` does, around its own calls of those analyses. The reasons are plain sentences about
the user's code ("the B operand is loaded with order=(1, 0)"), not about the pass.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

_local = threading.local()


def no(reason: str) -> Any:
    """Record `reason` where someone is collecting; returns None (`return no("...")` in an
    analysis that returns its plan or None: typed Any so that it fits any such function)."""
    stack: list[list[str]] | None = getattr(_local, "stack", None)
    if stack:
        stack[-1].append(reason)
    return None


def refuse(reason: str) -> bool:
    """Record `reason` where someone is collecting; returns False (`return refuse("...")`)."""
    no(reason)
    return False


def no_if(condition: bool, reason: str) -> bool:
    """`condition`, recording `reason` when it holds (for `if no_if(...): return None`)."""
    if condition:
        no(reason)
    return condition


@contextlib.contextmanager
def collecting() -> Iterator[list[str]]:
    """The reasons recorded inside the block, in order."""
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    found: list[str] = []
    stack.append(found)
    try:
        yield found
    finally:
        stack.pop()
