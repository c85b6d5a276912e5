"""Benchmark (no GPU): the warm first launch of bench_autotune.py's 6-config autotuned kernel
in fresh processes, with the GPU faked below the runtime's own code (device queries, module
loads and the driver's launch are fakes; autotune.json, the disk cache, the slow path and the
fast path's generation run), so that the host's share of the H100's warm first launch can be
followed on the CPU machine.

    python3 benchmarks/bench_autotune_warm_cpu.py [--repeats 8]

One cold process fills a temporary cache folder (search, compile workers), then each repeat is
a new process with that folder; torch is imported first, as in bench_autotune.py. Columns (ms,
medians): the first launch; of it choose (of that record: the fingerprint and autotune.json),
the fast path's generation, the disk-cache key (build_job) and read (build); a second launch.
Run without .pyc files (PYTHONDONTWRITEBYTECODE=1) to see what lazy imports would cost.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from bench_autotune import _time_calls, autotuned_axpy  # the same kernel, configs and timer

PARTS = ["first_ms", "choose", "_recorded", "generate", "build_job", "build", "second_ms"]


def child() -> dict:
    import numpy as np

    import tilelang as ct
    from tilelang.runtime import binary, build, fast_path
    from tilelang.runtime import launcher as launcher_module
    from tilelang.tune import compile_pool  # noqa: F401  (as bench_autotune.py: tilelang.tune)

    with contextlib.suppress(ImportError):
        import torch  # noqa: F401  (bench_autotune.py's processes have it)
    binary.device_arch = lambda device: "sm_90"
    binary.load = lambda name, ptx, cubin, device, shared=0: binary.LoadedKernel(
        1, 0, 0, None, None, shared)
    binary.pointer_device = lambda ptr: 0
    binary.current_ordinal = lambda: 0
    launcher_module.Launcher._python_call = lambda self, *args: None
    sys.modules["tilelang.tune.autotune"].device_name = lambda args: "Fake GPU"
    sys.modules["tilelang.tune.search"]._benchmark = \
        lambda stream, grid, kernel, args: 10.0 + abs(args[-1] - 1024) / 64

    class DeviceArray:  # a float32 vector in "device memory" (__cuda_array_interface__)
        def __init__(self, n: int) -> None:
            self.shape, self.dtype = (n,), np.dtype(np.float32)
            self.__cuda_array_interface__ = {"shape": (n,), "typestr": "<f4", "version": 3,
                                             "data": (1 << 20, False), "strides": None}

        def copy(self) -> DeviceArray:
            return DeviceArray(self.shape[0])

        def __setitem__(self, index, value) -> None:
            pass

    axpy = autotuned_axpy(ct)

    spent = {name: _time_calls(owner, name)
             for owner, name in [(type(axpy), "choose"), (type(axpy), "_recorded"),
                                 (fast_path, "generate"), (build, "build_job"), (build, "build")]}
    n = 1 << 14
    x, y = DeviceArray(n), DeviceArray(n)

    def grid(a):
        return ((a["n"] + a["BLOCK"] - 1) // a["BLOCK"],)

    import gc

    gc.collect()
    times = []
    for _ in range(2):
        start = time.perf_counter()
        ct.launch(None, grid, axpy, (x, y, DeviceArray(n), 2.0, n))
        times.append((time.perf_counter() - start) * 1e3)
    return {"first_ms": times[0], "second_ms": times[1],
            **{name: seconds[0] * 1e3 for name, seconds in spent.items()},
            "searched": axpy.last_result is not None}


def main() -> None:
    if "--child" in sys.argv:
        print(json.dumps(child()))
        return
    repeats = int(sys.argv[sys.argv.index("--repeats") + 1]) if "--repeats" in sys.argv else 8
    env = {**os.environ, "TILELANG_CACHE_DIR": tempfile.mkdtemp(prefix="tilelang-warm-"),
           "TILELANG_NO_NATIVE_LAUNCH": "1"}
    env.pop("TILELANG_INTERPRET", None)

    def run() -> dict:
        done = subprocess.run([sys.executable, __file__, "--child"], env=env,
                              capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            raise SystemExit(done.stderr)
        return json.loads(done.stdout.strip().splitlines()[-1])

    cold = run()
    warm = [run() for _ in range(repeats)]
    assert cold["searched"] and not any(w["searched"] for w in warm)
    print(f"cold first launch (search, compile workers): {cold['first_ms']:.0f} ms")
    print(f"warm, median of {repeats} processes (ms): " + ", ".join(
        f"{p} {statistics.median(w.get(p, 0.0) for w in warm):.2f}" for p in PARTS))
    print(f"warm first launch range: {min(w['first_ms'] for w in warm):.2f}-"
          f"{max(w['first_ms'] for w in warm):.2f} ms")


if __name__ == "__main__":
    main()
