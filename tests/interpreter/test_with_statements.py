"""`with` over @contextlib.contextmanager helpers: setup, the value yielded and the teardown run
in Python's order, also when `break`, `continue` or `return` leaves the body at run time.
References run the same context managers in plain Python (contextlib) on lists."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np
import pytest

import tilelang as ct

# ----- an event log per block: the order of entries and exits ---------------------------------


def _append(log, b, value):
    """Append `value` to row `b` of `log`, whose column 0 counts the entries."""
    n = ct.gather(log, (b, 0)) + 1
    ct.scatter(log, (b, 0), n)
    ct.scatter(log, (b, n), value)


@contextlib.contextmanager
def logged(log, b, enter, leave):
    _append(log, b, enter)
    yield enter * 10
    _append(log, b, leave)


@contextlib.contextmanager
def wrapped(log, b):
    """A context manager entering another one around its own `yield`."""
    _append(log, b, 8)
    with logged(log, b, 1, 2) as ten:
        yield ten + 1
    _append(log, b, 9)


@ct.kernel
def exits_through_with(log, limits, n):
    b = ct.bid(0)
    limit = ct.gather(limits, b)
    i = 0
    while i < n:
        with wrapped(log, b) as eleven:
            with logged(log, b, 3, 4), logged(log, b, 5, 6) as fifty:
                _append(log, b, eleven * 100 + fifty + i)
                if i == limit:
                    break
                if i % 3 == 1:
                    i += 1
                    continue
            _append(log, b, 7)
        i += 1
    _append(log, b, -1)


def _reference_log(limit: int, n: int) -> list[int]:
    events: list[int] = []

    @contextlib.contextmanager
    def py_logged(enter, leave):
        events.append(enter)
        yield enter * 10
        events.append(leave)

    @contextlib.contextmanager
    def py_wrapped():
        events.append(8)
        with py_logged(1, 2) as ten:
            yield ten + 1
        events.append(9)

    i = 0
    while i < n:
        with py_wrapped() as eleven:
            with py_logged(3, 4), py_logged(5, 6) as fifty:
                events.append(eleven * 100 + fifty + i)
                if i == limit:
                    break
                if i % 3 == 1:
                    i += 1
                    continue
            events.append(7)
        i += 1
    events.append(-1)
    return events


@pytest.mark.parametrize("n", [0, 1, 5])
def test_break_and_continue_run_the_teardowns(it, rng, n):
    blocks = 5
    limits = rng.integers(-1, n + 1, blocks).astype(np.int32)
    limits[0] = n  # never reached: the loop ends by its test
    wants = [_reference_log(int(limit), n) for limit in limits]
    width = max(len(w) for w in wants) + 1
    log = np.zeros((blocks, width), np.int32)
    it.launch(exits_through_with, (blocks,), log, limits, n)
    want = np.zeros_like(log)
    for b, events in enumerate(wants):
        want[b, 0] = len(events)
        want[b, 1:len(events) + 1] = events
    it.assert_same(log, want)


# ----- a tile staged through a context manager, returned early from a helper ------------------


@dataclass(frozen=True)
class Staging:
    """Loads a tile of `x` on entry; on exit stores it, doubled, to `out`."""

    x: ct.Array
    out: ct.Array

    @contextlib.contextmanager
    def tile(self, i, B):
        t = ct.load(self.x, (i,), (B,), padding_mode=ct.PaddingMode.ZERO)
        yield t
        ct.store(self.out, (i,), t * 2.0)


def _clipped_sum(stage, i, B, limit):
    with stage.tile(i, B) as t:
        s = ct.sum(t)
        if s > limit:
            return limit + 0.0 * s
    return s


@ct.kernel
def stage_and_sum(x, out, sums, limit, B: ct.Constant[int]):
    i = ct.bid(0)
    ct.scatter(sums, i, _clipped_sum(Staging(x, out), i, B, limit))


@pytest.mark.parametrize("size", [1, 37, 100])
def test_return_from_a_with_in_a_helper(it, rng, size):
    B = 32
    tiles = -(-size // B)
    x = it.rand(rng, (size,), np.float32, low=0.0, high=1.0)
    limit = float(np.float32(B / 4))
    out, sums = it.poison((size,), np.float32), it.poison((tiles,), np.float32)
    it.launch(stage_and_sum, (tiles,), x, out, sums, limit, B)
    it.assert_same(out, x * np.float32(2.0))
    padded = np.zeros(tiles * B, np.float32)
    padded[:size] = x
    want = np.minimum(padded.reshape(tiles, B).sum(axis=1, dtype=np.float32), np.float32(limit))
    np.testing.assert_allclose(sums, want, rtol=1e-5)


# ----- a closure yielded, called after the teardown has changed what it reads -----------------


@contextlib.contextmanager
def counter_closure(log, b, start):
    def emit():
        _append(log, b, start)
    yield emit
    start += 1  # the closure reads the generator's `start` when it is called


@ct.kernel
def closure_after_exit(log, starts):
    b = ct.bid(0)
    with counter_closure(log, b, ct.gather(starts, b)) as emit:
        emit()
    emit()


def test_yielded_closure_sees_the_teardown(it, rng):
    blocks = 3
    starts = rng.integers(-1000, 1000, blocks).astype(np.int32)
    log = np.zeros((blocks, 4), np.int32)
    it.launch(closure_after_exit, (blocks,), log, starts)
    want = np.stack([[2, s, s + 1, 0] for s in starts]).astype(np.int32)
    it.assert_same(log, want)
