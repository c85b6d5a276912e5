"""Benchmark: the cost of an autotuning search, cold and warm, each in a fresh process.

One element-wise kernel (out = alpha * x + y over 2^24 floats) with 6 configs (BLOCK 256-8192,
4 or 8 warps), searched by `tilelang.autotune` and by `triton.autotune`:

- cold: nothing compiled, empty caches (tilelang: parallel compile workers, and with
  TILELANG_COMPILE_WORKERS=1 all in the calling process, for comparison);
- warm: a new process with the caches the cold run left (tilelang: the choice from
  autotune.json and the chosen binary from the kernel cache).

Columns: import time; the first launch (search included) to a synchronized result; of it
(tilelang), the milliseconds spent choosing the config (the key, the record on disk, the search)
and loading the chosen specialization at the launch after it (the disk cache, the module load);
the part in the search; of that, the time the search waited for compilations (it times
each candidate as soon as it is built, while the others compile) and the compiler's import
before the workers fork (prepare); the compile workers forked and the jobs they compiled; the
milliseconds the garbage collector ran inside the first launch (each timed call starts after a
full collection, as timeit's do); a second launch. On a GPU the first launch is split further:
of choosing, the device's name and the record on disk; of loading, the disk-cache key, the disk
read and the module load; the native launcher's loading, the fast path's generation, the launch
call without the synchronize (launch_ms), and what it spent outside the parts timed (other_ms:
lazy imports, argument checks, the driver's launch). Targets (issue 10): cold <= 1 s, warm <= 10 ms.

`--dry-run` runs the tilelang rows on the CPU interpreter (NumPy arrays) to check the script
itself. `--compile-only` runs only the search's compile phase (the 6 configs' PTX and cubin for
sm_90, with workers and in one process), which needs no GPU.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

N = 1 << 24
BLOCKS = [(256, 4), (512, 4), (1024, 4), (2048, 8), (4096, 8), (8192, 8)]


def axpy_kernel(ct):
    """out = alpha * x + y in tiles of BLOCK (`ct`: tilelang, imported by the caller, whose
    import time some measurements include)."""

    @ct.kernel
    def axpy(x, y, out, alpha, n, BLOCK: ct.Constant[int]):
        i = ct.bid(0)
        a = ct.load(x, (i,), (BLOCK,))
        b = ct.load(y, (i,), (BLOCK,))
        ct.store(out, (i,), alpha * a + b)

    return axpy


def autotuned_axpy(ct):
    """axpy_kernel autotuned over BLOCKS, keyed by n."""
    configs = [ct.Config({"BLOCK": b}, num_warps=w) for b, w in BLOCKS]
    return ct.autotune(configs=configs, key=["n"])(axpy_kernel(ct))


def child_tilelang(dry_run: bool) -> dict:
    start = time.perf_counter()
    import tilelang as ct
    from tilelang.tune import compile_pool

    imported = time.perf_counter() - start
    waited = _time_compile_waits(compile_pool)

    axpy = autotuned_axpy(ct)

    if dry_run:
        import numpy as np

        n = 1 << 14
        x, y = np.ones(n, np.float32), np.ones(n, np.float32)
        out = np.empty_like(x)

        def sync():
            pass
    else:
        import torch

        n = N
        x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
        out = torch.empty_like(x)
        sync = torch.cuda.synchronize
        sync()

    def grid(a):
        return ((a["n"] + a["BLOCK"] - 1) // a["BLOCK"],)

    from tilelang.runtime import build

    search = _time_calls(type(axpy), "_search")
    choose = _time_calls(type(axpy), "choose")
    loads = _time_calls(build, "_build")  # a specialization loaded (or built) at a launch
    inner = {} if dry_run else _time_gpu_parts(type(axpy), build)
    launched = [0.0]

    def first_launch():
        start = time.perf_counter()
        ct.launch(None, grid, axpy, (x, y, out, 2.0, n))
        launched[0] = time.perf_counter() - start
        sync()

    first, gc_ms = _timed_call(first_launch)
    parts = {"choose_ms": choose[0] * 1e3, "load_ms": loads[0] * 1e3, "search_s": search[0],
             "launch_ms": launched[0] * 1e3, **{k: v[0] * 1e3 for k, v in inner.items()}}
    if inner:  # what the launch spent outside the parts timed: lazy imports, the launch itself
        parts["other_ms"] = parts["launch_ms"] - sum(
            parts[k] for k in ("choose_ms", "load_ms", "native_ms", "generate_ms"))
    second, _ = _timed_call(lambda: (ct.launch(None, grid, axpy, (x, y, out, 2.0, n)), sync()))
    stats = compile_pool.stats
    return {"import_s": imported, "first_s": first, **parts,
            "compile_s": waited[0], "prepare_s": stats.get("prepare_s", 0.0),
            "workers": stats.get("workers", 0), "by_workers": stats.get("by_workers", 0),
            "assembler": stats.get("assembler", ""), "gc_ms": gc_ms, "second_ms": second * 1e3,
            "searched": axpy.last_result is not None,
            "best": repr(next(iter(axpy.cache.values())))}


def child_compile_only() -> dict:
    """The search's compile phase alone, without a GPU: the 6 configs' PTX and cubin for
    sm_90, through the compile pool (workers, or this process with TILELANG_COMPILE_WORKERS=1)."""
    start = time.perf_counter()
    import numpy as np

    import tilelang as ct
    from tilelang.compile_job import describe
    from tilelang.runtime import disk_cache
    from tilelang.runtime.build import BuildJob, Built
    from tilelang.tune import compile_pool

    imported = time.perf_counter() - start

    axpy = axpy_kernel(ct)

    start = time.perf_counter()
    x = np.zeros(16, np.float32)
    jobs = []
    for block, warps in BLOCKS:
        kernel = axpy.replace_hints(num_warps=warps)
        signature = kernel.specialize((x, x, x, 2.0, N, block))
        job = describe(kernel.fn, kernel.name, signature, "sm_90", "sm_90", warps, None)
        jobs.append(BuildJob(job, disk_cache.cache_key(*job.identity())))
    results = compile_pool.build_all(jobs)
    elapsed = time.perf_counter() - start
    stats = compile_pool.stats
    return {"import_s": imported, "compile_s": elapsed, "prepare_s": stats["prepare_s"],
            "workers": stats["workers"], "by_workers": stats["by_workers"],
            "assembler": stats.get("assembler", ""),
            "compiled": sum(isinstance(r, Built) for r in results),
            "cubins": sum(isinstance(r, Built) and bool(r.cubin) for r in results)}


def _timed_call(fn) -> tuple[float, float]:
    """Seconds `fn()` took (after a full garbage collection, so that a collection the earlier
    imports made due does not land in it, as timeit does), and the ms the collector ran in it."""
    import gc

    collecting = [0.0, 0.0]

    def watch(phase, info):
        if phase == "start":
            collecting[1] = time.perf_counter()
        else:
            collecting[0] += time.perf_counter() - collecting[1]

    gc.collect()
    gc.callbacks.append(watch)
    try:
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start, collecting[0] * 1e3
    finally:
        gc.callbacks.remove(watch)


def _time_calls(owner, name: str) -> list[float]:
    """Wrap `owner.name` to add up the seconds spent in it (returned list's first item)."""
    spent = [0.0]
    inner = getattr(owner, name)

    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - start

    setattr(owner, name, timed)
    return spent


def _time_gpu_parts(tuner_type, build) -> dict[str, list[float]]:
    """Timers inside a GPU launch's choice and load (ms columns): the device's name and the
    record on disk (of choose_ms); the disk-cache key, the disk read and the module load (of
    load_ms); and the native launcher's loading and the fast path's generation."""
    from tilelang.runtime import binary, fast_path, native_launch

    autotune = sys.modules["tilelang.tune.autotune"]  # the package's `autotune` is the function
    return {"name_ms": _time_calls(autotune, "device_name"),
            "record_ms": _time_calls(tuner_type, "_recorded"),
            "key_ms": _time_calls(build, "build_job"),
            "disk_ms": _time_calls(build, "build"),
            "module_ms": _time_calls(binary, "load"),
            "native_ms": _time_calls(native_launch, "native_module"),
            "generate_ms": _time_calls(fast_path, "generate")}


def _time_compile_waits(compile_pool) -> list[float]:
    """Seconds the search waited for compile results (it times candidates in between)."""
    spent = [0.0]
    inner = compile_pool.build_each

    def timed(jobs):
        results = inner(jobs)
        while True:
            start = time.perf_counter()
            try:
                item = next(results)
            except StopIteration:
                return
            finally:
                spent[0] += time.perf_counter() - start
            yield item

    compile_pool.build_each = timed
    return spent


def child_triton() -> dict:
    start = time.perf_counter()
    import inspect

    import torch
    import triton
    import triton.language as tl

    imported = time.perf_counter() - start
    options = {}
    if "cache_results" in inspect.signature(triton.autotune).parameters:
        options["cache_results"] = True  # remember the choice on disk, as tilelang does

    @triton.autotune(configs=[triton.Config({"BLOCK": b}, num_warps=w) for b, w in BLOCKS],
                     key=["n"], **options)
    @triton.jit
    def axpy(x, y, out, alpha, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        a = tl.load(x + offs, mask=mask)
        b = tl.load(y + offs, mask=mask)
        tl.store(out + offs, alpha * a + b, mask=mask)

    x, y = torch.randn(N, device="cuda"), torch.randn(N, device="cuda")
    out = torch.empty_like(x)
    torch.cuda.synchronize()

    def call():
        axpy[lambda m: (triton.cdiv(N, m["BLOCK"]),)](x, y, out, 2.0, N)
        torch.cuda.synchronize()

    first, gc_ms = _timed_call(call)
    second, _ = _timed_call(call)
    return {"import_s": imported, "first_s": first, "gc_ms": gc_ms, "second_ms": second * 1e3,
            "best": str(axpy.best_config), "cache_results": bool(options)}


def run_child(impl: str, env: dict, flag: str | None) -> dict:
    command = [sys.executable, __file__, "--child", impl] + ([flag] if flag else [])
    done = subprocess.run(command, env={**os.environ, **env}, capture_output=True, text=True,
                          timeout=600)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr else "failed"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--child", choices=["tilelang", "triton", "compile"])
    parser.add_argument("--dry-run", action="store_true",
                        help="the tilelang rows on the CPU interpreter (checks the script)")
    parser.add_argument("--compile-only", action="store_true",
                        help="only the search's compile phase (sm_90 PTX and cubin), no GPU")
    parser.add_argument("--no-triton", action="store_true")
    parser.add_argument("--repeats", type=int, default=1,
                        help="run each scenario this many times (fresh caches each time)")
    args = parser.parse_args()
    if args.child == "tilelang":
        print(json.dumps(child_tilelang(args.dry_run)))
        return
    if args.child == "triton":
        print(json.dumps(child_triton()))
        return
    if args.child == "compile":
        print(json.dumps(child_compile_only()))
        return

    sys.path.insert(0, str(Path(__file__).parent))
    from common import save, table

    rows = []
    for repeat in range(args.repeats):
        for impl, scenario, env, flag in scenarios(args):
            row = {"impl": impl, "scenario": scenario, **run_child(impl, env, flag)}
            if args.repeats > 1:
                row["repeat"] = repeat
            rows.append(row)
            print(f"{impl} {scenario}: {row}", flush=True)
    columns = ["impl", "scenario", "import_s", "first_s", "choose_ms", "name_ms", "record_ms",
               "load_ms", "key_ms", "disk_ms", "module_ms", "native_ms", "generate_ms",
               "launch_ms", "other_ms", "search_s", "compile_s", "prepare_s",
               "workers", "by_workers", "assembler", "gc_ms", "second_ms", "best", "error"]
    if args.compile_only:
        columns = ["impl", "scenario", "import_s", "compile_s", "prepare_s", "workers",
                   "by_workers", "assembler", "compiled", "cubins", "error"]
    print(table(rows, [c for c in columns if any(c in r for r in rows)]))
    if not (args.dry_run or args.compile_only):
        print("saved", save("autotune", {"n": N, "configs": BLOCKS, "rows": rows}))


def scenarios(args) -> list[tuple[str, str, dict, str | None]]:
    """(impl, scenario, environment, child flag) in the order they run; each cold scenario has
    fresh caches, each warm one the caches its cold one left."""
    if args.compile_only:
        return [("compile", "cold, compile workers",
                 {"TILELANG_CACHE_DIR": tempfile.mkdtemp(prefix="tilelang-tune-")}, None),
                ("compile", "cold, one process",
                 {"TILELANG_CACHE_DIR": tempfile.mkdtemp(prefix="tilelang-tune-serial-"),
                  "TILELANG_COMPILE_WORKERS": "1"}, None)]
    base = {"TILELANG_INTERPRET": "1"} if args.dry_run else {}
    flag = "--dry-run" if args.dry_run else None
    parallel = tempfile.mkdtemp(prefix="tilelang-tune-")
    serial = tempfile.mkdtemp(prefix="tilelang-tune-serial-")
    found = [
        ("tilelang", "cold, compile workers", {**base, "TILELANG_CACHE_DIR": parallel}, flag),
        ("tilelang", "cold, one process", {**base, "TILELANG_CACHE_DIR": serial,
                                            "TILELANG_COMPILE_WORKERS": "1"}, flag),
        ("tilelang", "warm (new process)", {**base, "TILELANG_CACHE_DIR": parallel}, flag),
    ]
    if not (args.dry_run or args.no_triton):
        triton_cache = tempfile.mkdtemp(prefix="triton-tune-")
        found += [("triton", "cold", {"TRITON_CACHE_DIR": triton_cache}, None),
                  ("triton", "warm (new process)", {"TRITON_CACHE_DIR": triton_cache}, None)]
    return found


if __name__ == "__main__":
    main()
