"""Testing: run work in many threads at once (the thread-safety tests of every tier)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import tilelang as ct


def in_threads(work: Callable[[int], Any], count: int) -> list[Any]:
    """Run work(0) ... work(count - 1) in threads released together; their results, or raise
    the first exception one of them raised."""
    start = threading.Barrier(count)
    results: list[Any] = [None] * count
    errors: list[BaseException] = []

    def body(t: int) -> None:
        try:
            start.wait()
            results[t] = work(t)
        except BaseException as e:  # handed to the test's thread
            errors.append(e)

    threads = [threading.Thread(target=body, args=(t,)) for t in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results


# three kernels of one shape, launched at once from many threads
@ct.kernel
def double(x, y, B: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(y, (i,), 2 * ct.load(x, (i,), (B,)))


@ct.kernel
def add_one(x, y, B: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(y, (i,), ct.load(x, (i,), (B,)) + 1)


@ct.kernel
def negate(x, y, B: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(y, (i,), -ct.load(x, (i,), (B,)))
