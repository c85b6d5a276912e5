"""Benchmark: launch overhead of a cached tiny kernel from Python, µs per launch.

Compared in the same run: tilelang.launch with torch tensors; the same cubin through a bare
cuda.bindings cuLaunchKernel with pre-packed parameters (the floor); cuda.core's launch with
ready arguments and with arguments converted per call; Triton's launch of an equivalent kernel;
and cuLaunchKernel in a C loop (the driver's own cost, no Python at all).
Also the first-call compile time and the cache-hit times (in-memory, on-disk).

Two ways to time, both reported:
- drained: 10000 launches back to back, then a synchronize (the GPU runs each tiny kernel as it
  comes, so the rate mixes host cost and how fast the GPU takes launches off the queue);
- queued: 256 launches issued while the stream is held by a sleep kernel, timed on the host
  before any synchronize (host cost only: what a launch costs the Python thread when the GPU is
  busy, as in a real model).
"""

from __future__ import annotations

import ctypes
import os
import statistics
import struct
import tempfile
import time

import torch
from common import bar_plot, save, table, wall_us_per_call

import tilelang as ct
from tilelang.runtime.state import state_of

CALLS, REPEATS, ROUNDS, N = 10000, 3, 9, 1000
QUEUED_CALLS, QUEUED_REPEATS = 256, 15  # 256 launches fit in the queue; 1024 do not
C_BATCH = 100  # launches per call of the C loop


@ct.kernel
def add_one(x, y, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(y, index=(i,), tile=ct.load(x, index=(i,), shape=(BLOCK,)) + 1.0)


def first_call_times(x, y) -> dict[str, float]:
    """Compile from scratch (empty disk cache), then cache hits in memory and on disk."""
    os.environ["TILELANG_CACHE_DIR"] = tempfile.mkdtemp(prefix="tilelang-bench-cache-")
    stream = torch.cuda.current_stream()
    out = {}
    for label, kernel in (("compile (cold)", add_one), ("disk cache hit", add_one.replace_hints())):
        start = time.perf_counter()
        ct.launch(stream, (1,), kernel, (x, y, 128))
        torch.cuda.synchronize()
        out[label] = (time.perf_counter() - start) * 1e3
    start = time.perf_counter()
    ct.launch(stream, (1,), add_one, (x, y, 128))
    torch.cuda.synchronize()
    out["memory cache hit"] = (time.perf_counter() - start) * 1e3
    return out


def bare_launcher(x, y):
    """cuLaunchKernel on our cubin with a pre-packed parameter block."""
    from cuda.bindings import driver

    launcher = next(iter(state_of(add_one).launchers.values()))
    values = (x.data_ptr(), N, 1, y.data_ptr(), N, 1)
    block = ctypes.create_string_buffer(struct.pack("<" + "Qqq" * 2, *values))
    base = ctypes.addressof(block)
    pointers = (ctypes.c_void_p * 6)(*[base + 8 * i for i in range(6)])
    params = ctypes.addressof(pointers)
    # The same resolved CUfunction tilelang launches: the floor gets every advantage we get.
    handle = driver.CUfunction(launcher.loaded.handle)
    stream = torch.cuda.current_stream().cuda_stream

    success = driver.CUresult.CUDA_SUCCESS

    def run():
        (err,) = driver.cuLaunchKernel(handle, 1, 1, 1, 128, 1, 1, 0, stream, params, 0)
        if err is not success:
            raise RuntimeError(f"the bare launch failed: {err}")

    run.keep = (block, pointers)  # the parameter block must outlive every launch
    return run, launcher, params


def driver_loop(launcher, params):
    """cuLaunchKernel in a C loop (driver_loop.c), C_BATCH launches per call; None without gcc."""
    import shutil
    import subprocess

    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        return None
    library = os.path.join(tempfile.mkdtemp(prefix="tilelang-bench-"), "driver_loop.so")
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "driver_loop.c")
    subprocess.run([compiler, "-O2", "-shared", "-fPIC", source, "-o", library, "-ldl"],
                   check=True)
    loop = ctypes.CDLL(library).launch_loop
    loop.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p,
                     ctypes.c_int]
    stream = torch.cuda.current_stream().cuda_stream
    function, threads = launcher.loaded.handle, launcher.threads

    def run():
        if loop(function, threads, stream, params, C_BATCH):
            raise RuntimeError("cuLaunchKernel failed in the C loop")

    return run


def queued_us_per_call(fn, calls: int, repeats: int) -> float:
    """Median host µs per call while a sleep kernel holds the stream (no queue drain timed)."""
    samples = []
    for _ in range(repeats):
        torch.cuda._sleep(20_000_000)  # ~10 ms of GPU time: longer than the calls take
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - start) / calls * 1e6)
        torch.cuda.synchronize()
    return statistics.median(samples)


def cuda_core_launchers(launcher, x, y):
    from cuda.core import LaunchConfig, Stream, launch

    stream = Stream.from_handle(torch.cuda.current_stream().cuda_stream)
    config = LaunchConfig(grid=(1,), block=(128,))
    kernel = launcher.loaded.kernel
    ready = (x.data_ptr(), N, 1, y.data_ptr(), N, 1)
    import numpy as np

    def with_ready_args():
        launch(stream, config, kernel, *ready)

    def converting():
        launch(stream, config, kernel, x.data_ptr(), np.int64(x.shape[0]), np.int64(x.stride(0)),
               y.data_ptr(), np.int64(y.shape[0]), np.int64(y.stride(0)))

    return with_ready_args, converting


def triton_launcher(x, y):
    try:
        import triton
        import triton.language as tl
    except ImportError:
        return None

    @triton.jit
    def add_one_triton(x, y, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(y + offs, tl.load(x + offs, mask=mask) + 1.0, mask=mask)

    def run():
        add_one_triton[(1,)](x, y, N, BLOCK=128)

    return run


def released(call, h, values):
    from tilelang.runtime.native_launch import native_module

    native = native_module()
    native.set_release_gil(True)
    call(h, 1, 1, 1, *values)
    native.set_release_gil(False)


def diagnostic_rows(stream, args) -> dict:
    """Layers of tilelang's own path, to see where time goes when the ratio moves."""
    from tilelang.runtime import launch as launch_module
    from tilelang.runtime.native_launch import native_module

    native = native_module()
    if native is None or add_one.native_entry is None:
        return {}
    entry = add_one.native_entry
    launcher = next(iter(state_of(add_one).launchers.values()))
    h = stream.cuda_stream
    values = (args[0].data_ptr(), N, 1, args[1].data_ptr(), N, 1)
    return {
        "  (native.fast, called directly)": lambda: native.fast(entry, stream, (1,), args),
        "  (native launch of ready values)": lambda: launcher.call(h, 1, 1, 1, *values),
        "  (same, GIL released)": lambda: released(launcher.call, h, values),
        "  (Python launch(), no C entry)": lambda: launch_module.launch(stream, (1,), add_one,
                                                                        args),
    }


def main() -> None:
    x = torch.randn(N, device="cuda")
    y = torch.full_like(x, float("nan"))
    compile_times = first_call_times(x, y)
    torch.testing.assert_close(y[:128], x[:128] + 1.0)
    stream = torch.cuda.current_stream()
    sync = torch.cuda.synchronize
    args = (x, y, 128)
    runs = {"tilelang.launch (torch tensors)": lambda: ct.launch(stream, (1,), add_one, args)}
    bare, launcher, params = bare_launcher(x, y)
    runs["bare cuLaunchKernel (pre-packed)"] = bare
    ready, converting = cuda_core_launchers(launcher, x, y)
    runs["cuda.core launch (ready args)"] = ready
    runs["cuda.core launch (converting)"] = converting
    triton_run = triton_launcher(x, y)
    if triton_run is not None:
        runs["triton launch"] = triton_run
    runs.update(diagnostic_rows(stream, args))
    batch = {label: 1 for label in runs}
    c_loop = driver_loop(launcher, params)
    if c_loop is not None:
        runs["  (C loop of cuLaunchKernel, no Python)"] = c_loop
        batch["  (C loop of cuLaunchKernel, no Python)"] = C_BATCH
    methods = {
        "drained": lambda fn, n: wall_us_per_call(fn, CALLS // n, REPEATS, sync)[0] / n,
        "queued": lambda fn, n: queued_us_per_call(fn, max(QUEUED_CALLS // n, 1),
                                                   QUEUED_REPEATS) / n,
    }
    samples = {(m, label): [] for m in methods for label in runs}
    for _ in range(ROUNDS):  # interleaved: no launch method profits from its place in the order
        for method, timer in methods.items():
            for label, fn in runs.items():
                samples[method, label].append(timer(fn, batch[label]))
    rows = []
    for method in methods:
        # The floor drifts between runs (2-5 µs seen): compare within each round, report the median.
        floor = samples[method, "bare cuLaunchKernel (pre-packed)"]
        for label in runs:
            values = samples[method, label]
            ratios = [v / f for v, f in zip(values, floor)]
            rows.append({"method": method, "launch": label, "us_median": statistics.median(values),
                         "us_min": min(values), "us_max": max(values),
                         "x_floor": statistics.median(ratios), "x_floor_min": min(ratios),
                         "x_floor_max": max(ratios)})
    print(table(rows, ["method", "launch", "us_median", "us_min", "us_max", "x_floor",
                       "x_floor_min", "x_floor_max"]))
    print(table([{"what": k, "ms": v} for k, v in compile_times.items()], ["what", "ms"]))
    save("launch_overhead", {"device": torch.cuda.get_device_name(), "calls": CALLS,
                             "repeats": REPEATS, "rows": rows, "first_call_ms": compile_times})
    bar_plot("launch_overhead", [f"{r['launch'].strip()} [{r['method']}]" for r in rows],
             [r["us_median"] for r in rows],
             "µs per launch (median)", "Launch overhead of a cached tiny kernel")


if __name__ == "__main__":
    main()
