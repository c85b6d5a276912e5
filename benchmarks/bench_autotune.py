"""Benchmark: the cost of an autotuning search, cold and warm, each in a fresh process.

One element-wise kernel (out = alpha * x + y over 2^24 floats) with 6 configs (BLOCK 256-8192,
4 or 8 warps), searched by `tilelang.autotune` and by `triton.autotune`:

- cold: nothing compiled, empty caches (tilelang: parallel compile workers, and with
  TILELANG_COMPILE_WORKERS=1 all in the calling process, for comparison);
- warm: a new process with the caches the cold run left (tilelang: the choice from
  autotune.json and the chosen binary from the kernel cache).

Columns: import time, the first launch (search included) to a synchronized result, the part of
it spent compiling (tilelang), and a second launch. `--dry-run` runs the tilelang rows on the CPU
interpreter (NumPy arrays) to check the script itself. Targets (issue 10): cold <= 1 s, warm <=
10 ms.
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


def child_tilelang(dry_run: bool) -> dict:
    start = time.perf_counter()
    import tilelang as ct
    from tilelang.tune import compile_pool

    imported = time.perf_counter() - start
    compiling = [0.0]
    build_all = compile_pool.build_all

    def timed_build_all(*args, **kwargs):
        t = time.perf_counter()
        try:
            return build_all(*args, **kwargs)
        finally:
            compiling[0] += time.perf_counter() - t

    compile_pool.build_all = timed_build_all

    @ct.autotune(configs=[ct.Config({"BLOCK": b}, num_warps=w) for b, w in BLOCKS], key=["n"])
    @ct.kernel
    def axpy(x, y, out, alpha, n, BLOCK: ct.Constant[int]):
        i = ct.bid(0)
        a = ct.load(x, (i,), (BLOCK,))
        b = ct.load(y, (i,), (BLOCK,))
        ct.store(out, (i,), alpha * a + b)

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

    def call():
        start = time.perf_counter()
        ct.launch(None, grid, axpy, (x, y, out, 2.0, n))
        sync()
        return time.perf_counter() - start

    first = call()
    second = call()
    workers = sum(w.jobs_done for w in compile_pool._pool)
    result = axpy.last_result
    return {"import_s": imported, "first_s": first, "compile_s": compiling[0],
            "second_ms": second * 1e3, "worker_jobs": workers,
            "searched": result is not None,
            "best": repr(next(iter(axpy.cache.values())))}


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
        start = time.perf_counter()
        axpy[lambda m: (triton.cdiv(N, m["BLOCK"]),)](x, y, out, 2.0, N)
        torch.cuda.synchronize()
        return time.perf_counter() - start

    first = call()
    second = call()
    return {"import_s": imported, "first_s": first, "second_ms": second * 1e3,
            "best": str(axpy.best_config), "cache_results": bool(options)}


def run_child(impl: str, env: dict, dry_run: bool) -> dict:
    command = [sys.executable, __file__, "--child", impl] + (["--dry-run"] if dry_run else [])
    done = subprocess.run(command, env={**os.environ, **env}, capture_output=True, text=True,
                          timeout=600)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr else "failed"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--child", choices=["tilelang", "triton"])
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--no-triton", action="store_true")
    args = parser.parse_args()
    if args.child == "tilelang":
        print(json.dumps(child_tilelang(args.dry_run)))
        return
    if args.child == "triton":
        print(json.dumps(child_triton()))
        return

    sys.path.insert(0, str(Path(__file__).parent))
    from common import save, table

    base = {"TILELANG_INTERPRET": "1"} if args.dry_run else {}
    parallel = tempfile.mkdtemp(prefix="tilelang-tune-")
    serial = tempfile.mkdtemp(prefix="tilelang-tune-serial-")
    triton_cache = tempfile.mkdtemp(prefix="triton-tune-")
    scenarios = [
        ("tilelang", "cold, compile workers", {"TILELANG_CACHE_DIR": parallel}),
        ("tilelang", "cold, one process", {"TILELANG_CACHE_DIR": serial,
                                            "TILELANG_COMPILE_WORKERS": "1"}),
        ("tilelang", "warm (new process)", {"TILELANG_CACHE_DIR": parallel}),
    ]
    if not (args.dry_run or args.no_triton):
        scenarios += [("triton", "cold", {"TRITON_CACHE_DIR": triton_cache}),
                      ("triton", "warm (new process)", {"TRITON_CACHE_DIR": triton_cache})]
    rows = []
    for impl, scenario, env in scenarios:
        row = {"impl": impl, "scenario": scenario, **run_child(impl, {**base, **env},
                                                                args.dry_run)}
        rows.append(row)
        print(f"{impl} {scenario}: {row}", flush=True)
    print(table(rows, ["impl", "scenario", "import_s", "first_s", "compile_s", "second_ms",
                       "worker_jobs", "best", "error"]))
    if not args.dry_run:
        print("saved", save("autotune", {"n": N, "configs": BLOCKS, "rows": rows}))


if __name__ == "__main__":
    main()
