"""Autotuning: the time of one run of a kernel, in microseconds: CUDA events around the launch
on the GPU, the wall clock on the interpreter."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

from tilelang.errors import TileLaunchError
from tilelang.interface.kernel import Kernel, as_kernel
from tilelang.runtime.launch import exported_in, launch, use_interpreter

exported_in(globals())  # `launch` here becomes the C entry once built (runtime/launch.py)

if TYPE_CHECKING:
    from cuda.bindings import driver


def benchmark(stream: object, grid: object, kernel: object, args: Sequence[Any]) -> float:
    """Run `kernel` once and return how long it took (µs); the launch is synchronized."""
    k = as_kernel(kernel)
    if use_interpreter(k):
        start = time.perf_counter()
        launch(stream, grid, k, args)
        return (time.perf_counter() - start) * 1e6
    return _gpu_time(stream, grid, k, args)


@dataclass
class _DeviceTimer:
    """Two events and a scratch buffer of one device (made once, kept for the process)."""

    context: driver.CUcontext
    start: driver.CUevent
    end: driver.CUevent
    scratch: driver.CUdeviceptr
    scratch_bytes: int


_timers: dict[int, _DeviceTimer] = {}


def _gpu_time(stream: object, grid: object, kernel: Kernel, args: Sequence[Any]) -> float:
    from tilelang.runtime.gpu_launch import launch_device
    from tilelang.runtime.streams import stream_handle

    device = launch_device(kernel, stream, args)
    timer = _timers.get(device) or _make_timer(device)
    handle = stream_handle(stream, tuple(args), device)
    with _current(timer.context):
        # Writing a buffer larger than L2 evicts the last run's data (every run starts from
        # DRAM, as Triton times), and keeps the GPU busy while the launch is enqueued, so the
        # events do not time the host's launch overhead.
        _check(_driver().cuMemsetD8Async(timer.scratch, 0, timer.scratch_bytes, handle))
        _check(_driver().cuEventRecord(timer.start, handle))
    launch(stream, grid, kernel, args)
    with _current(timer.context):
        _check(_driver().cuEventRecord(timer.end, handle))
        _check(_driver().cuEventSynchronize(timer.end))
        err, ms = _driver().cuEventElapsedTime(timer.start, timer.end)
        _check((err,))
    return float(ms) * 1000.0


def _make_timer(device: int) -> _DeviceTimer:
    from tilelang.runtime import binary

    driver = _driver()
    context = driver.CUcontext(binary.primary_context(device))
    with _current(context):
        err, start = driver.cuEventCreate(0)
        _check((err,))
        err, end = driver.cuEventCreate(0)
        _check((err,))
        attribute = driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE
        err, l2 = driver.cuDeviceGetAttribute(attribute, device)
        _check((err,))
        size = max(2 * int(l2), 16 << 20)
        err, scratch = driver.cuMemAlloc(size)
        _check((err,))
    timer = _timers[device] = _DeviceTimer(context, start, end, scratch, size)
    return timer


class _current:
    """Make `context` current for the driver calls inside (the thread's may be another's)."""

    def __init__(self, context: driver.CUcontext) -> None:
        self.context = context

    def __enter__(self) -> None:
        _check(_driver().cuCtxPushCurrent(self.context))

    def __exit__(self, *exc: object) -> None:
        _driver().cuCtxPopCurrent()


def _driver() -> ModuleType:
    from tilelang.cuda_compat import driver

    return driver


def _check(result: tuple[Any, ...]) -> None:
    driver = _driver()
    err = result[0]
    if err != driver.CUresult.CUDA_SUCCESS:
        name = driver.cuGetErrorName(err)[1]
        raise TileLaunchError(f"timing a kernel run failed: {name!r}")
