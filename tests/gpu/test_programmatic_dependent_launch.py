"""Programmatic dependent launch on the GPU (sm_90): a consumer launched with
`programmatic_dependent_launch=True` starts while its producer still runs, does its own work,
and reads the producer's result only after `grid_dependency_control_wait()`."""

from __future__ import annotations

import pytest

import tilelang as ct

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.skipif(
    not torch.cuda.is_available() or torch.cuda.get_device_capability() < (9, 0),
    reason="programmatic dependent launch needs sm_90")

SPIN = 200_000  # iterations of each kernel's own work: a few ms, far longer than a launch


@ct.kernel
def producer(a, out, spin: int):
    i = ct.bid(0)
    ct.grid_dependency_control_launch_dependents()  # the consumer may start now
    t = ct.load(a, index=(i,), shape=(32,))
    for _ in range(spin):
        t += 1
    ct.store(out, index=(i,), tile=t)


@ct.kernel
def consumer(b, produced, out, spin: int):
    i = ct.bid(0)
    t = ct.load(b, index=(i,), shape=(32,))
    for _ in range(spin):  # overlaps the producer's loop
        t += 1
    ct.grid_dependency_control_wait()  # the producer has completed: `produced` is written
    ct.store(out, index=(i,), tile=ct.load(produced, index=(i,), shape=(32,)) + t)


def _run(a, b, produced, out, pdl: bool) -> float:
    """Both kernels back to back on the current stream; milliseconds from start to end."""
    stream = torch.cuda.current_stream()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    produced.zero_()
    out.fill_(float("nan"))
    start.record()
    ct.launch(stream, (a.shape[0] // 32,), producer, (a, produced, SPIN))
    ct.launch(stream, (a.shape[0] // 32,), consumer, (b, produced, out, SPIN),
              programmatic_dependent_launch=pdl)
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end)


def test_dependent_kernel_reads_the_producers_result_after_its_wait():
    a = torch.arange(64, dtype=torch.float32, device="cuda")
    b = torch.arange(64, dtype=torch.float32, device="cuda") * 10
    produced, out = torch.zeros_like(a), torch.empty_like(a)
    _run(a, b, produced, out, pdl=False)  # compiled and loaded before the measured runs
    for _ in range(3):
        _run(a, b, produced, out, pdl=True)
        torch.testing.assert_close(out, a + b + 2 * SPIN)


@ct.kernel
def early_reader(produced, seen, out):
    """What `produced` holds before the wait (in `seen`), and after it (in `out`)."""
    i = ct.bid(0)
    ct.store(seen, index=(i,), tile=ct.load(produced, index=(i,), shape=(32,)))
    ct.grid_dependency_control_wait()
    ct.store(out, index=(i,), tile=ct.load(produced, index=(i,), shape=(32,)))


@pytest.mark.parametrize("pdl", [False, True])
def test_dependent_kernel_starts_while_its_producer_runs(pdl):
    """Not timed (other tests share the GPU): the consumer reads `produced` before its wait.
    Launched dependent, it may start once the producer's blocks passed their trigger, while
    they spin for milliseconds, and then sees the zeros written before them; launched plainly,
    it always starts after the producer ended and sees its result. After the wait it sees the
    result either way (the load before the wait is not reused after it). An early start is
    allowed, not promised: with other processes' kernels time-sliced on the GPU (the tier runs
    12 at once) one pair in a run started late, so the dependent launch must start early in
    one of five pairs."""
    a = torch.arange(64, dtype=torch.float32, device="cuda") + 1
    stream = torch.cuda.current_stream()
    early = []
    for attempt in range(6):  # the first pair compiles and loads both kernels (host time)
        produced = torch.zeros_like(a)
        seen, out = torch.full_like(a, float("nan")), torch.full_like(a, float("nan"))
        torch.cuda.synchronize()
        ct.launch(stream, (2,), producer, (a, produced, SPIN))
        ct.launch(stream, (2,), early_reader, (produced, seen, out),
                  programmatic_dependent_launch=pdl)
        torch.cuda.synchronize()
        torch.testing.assert_close(out, a + SPIN)
        if not pdl:
            torch.testing.assert_close(seen, a + SPIN)
        elif attempt:
            early.append(torch.equal(seen, torch.zeros_like(a)))
    assert not pdl or any(early), "the dependent kernel never started before its producer ended"


def test_a_dependent_launch_on_the_c_entry_reaches_the_attribute_path():
    """Once `tilelang.launch` is the native entry, a keyword still goes to the Python launch."""
    a = torch.zeros(32, device="cuda")
    produced, out = torch.zeros_like(a), torch.empty_like(a)
    for _ in range(3):  # the first launches bind the C entry where it is built
        _run(a, a, produced, out, pdl=True)
    torch.testing.assert_close(out, torch.full_like(a, 2 * SPIN))
