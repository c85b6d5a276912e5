"""Benchmark: where a kernel's first call spends its time, stage by stage.

Each sample kernel is compiled in a fresh process (cold: nothing imported, no MLIR context, an
empty disk cache in a temporary folder), following what the runtime does on a first launch
(runtime/build.py `build` and `install`): the disk-cache key (the kernel's fingerprint and
the compiler's own digest), the cache lookup, the compiler's stages (their times come from
`CompiledKernel.metadata["timings"]`: tile = reading the source and the front end, tile-opt,
layout, simt, llvm, ptx), PTX -> cubin (`backend/assemble.to_cubin`, nvJitLink; ptxas where that is
unavailable, as the compile workers do), the cache store, and on a GPU the module load (the CUDA
context's creation reported apart). `import tilelang` is timed on its own and excluded from
"cold". Then, in the same process, a warm repeat (disk cache off) and a disk-cache hit; and in a
second fresh process, a disk-cache hit: the key (the compiler digest included) and the lookup,
the modules a hit imports (not the compiler) loaded first, apart. Where the cubin came from
nvJitLink and a ptxas is found, the same PTX through a ptxas subprocess is timed too, apart.
The children run with the driver's JIT cache off (CUDA_CACHE_DISABLE=1), so that every cold
run, and the warm repeat, really assemble.
The peer is the first call of the same kernel written in Triton (GPU and triton needed).

    python3 benchmarks/bench_compile.py [--repeats 3] [--samples vector_add,gemm]

Prints a table (ms) and writes compile.json (and compile.png when matplotlib is installed) to
$OUT or benchmarks/results/.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
SAMPLES_DIR = HERE.parent / "samples"
STAGES = ("key", "lookup", "tile", "tile-opt", "layout", "simt", "llvm", "ptx", "cubin", "store",
          "load")
TARGET_MS = {"element-wise": 150.0, "reduction": 150.0, "layout": 150.0, "mma": 500.0}
HIT_TARGET_MS = 3.0


def cases() -> dict:
    """name -> (kind, sample module, kernel attribute, num_warps or None, args builder)."""
    import ml_dtypes
    import numpy as np

    f32, bf16 = np.float32, ml_dtypes.bfloat16

    def z(shape, dtype=f32):
        return np.zeros(shape, dtype)

    x = z((4096, 4096), bf16)
    return {
        "vector_add": ("element-wise", "vector_add", "vector_add", None,
                       lambda: (z(1 << 20), z(1 << 20), z(1 << 20), 1024)),
        "silu_and_mul": ("element-wise", "silu_and_mul", "silu_and_mul", None,
                         lambda: (x[:, :2048], x[:, 2048:], z((4096, 2048), bf16), 16, 128)),
        "transpose": ("layout", "transpose", "transpose", None,
                      lambda: (z((4096, 2048)), z((2048, 4096)), 64, 64)),
        "softmax": ("reduction", "softmax", "softmax_rows", 4,
                    lambda: (z((4096, 1024)), z((4096, 1024)), 4, 1024)),
        "layer_norm": ("reduction", "layer_norm", "layer_norm_fwd", 4,
                       lambda: (z((4096, 1024)), z(1024), z(1024), z((4096, 1024)), z(4096),
                                z(4096), 1e-5, 4, 1024)),
        "cross_entropy": ("reduction", "cross_entropy", "cross_entropy", 8,
                          lambda: (z((512, 32000)), np.zeros(512, np.int32), z(512), 2048)),
        "cumsum": ("reduction", "cumsum", "cumsum_rows", None,
                   lambda: (np.zeros((512, 1000), np.int32), np.zeros((512, 1000), np.int32),
                            1024)),
        "gemm": ("mma", "gemm", "gemm_bias_gelu", None,
                 lambda: (z((4096, 4096), bf16), z((4096, 4096), bf16), z(4096, bf16),
                          z((4096, 4096), bf16), 128, 128, 32)),
        "attention": ("mma", "attention", "flash_attention", 4,
                      lambda: (*(z((4, 16, 4096, 128), bf16) for _ in range(4)), 0.088, True,
                               64, 64, 128)),
    }


# ----- the child: one sample in a fresh process ------------------------------------------------


def child(name: str, mode: str) -> dict:
    """Runs in a fresh process; returns seconds per stage (JSON on stdout's last line)."""
    import warnings

    warnings.filterwarnings("ignore", message=".*nvjitlink.*")  # the driver-linker fallback note
    start = time.perf_counter()
    import tilelang

    out: dict = {"import": time.perf_counter() - start}
    sys.path.insert(0, str(SAMPLES_DIR))
    from tilelang.interface.kernel import as_kernel

    _, module, attr, warps, make_args = cases()[name]
    start = time.perf_counter()
    kernel = getattr(importlib.import_module(module), attr)
    out["sample_import"] = time.perf_counter() - start
    if warps is not None:
        kernel = kernel.replace_hints(num_warps=warps)
    k = as_kernel(kernel)
    signature = k.specialize(make_args())
    gpu = _gpu()
    arch = _arch(gpu)
    out.update(gpu=gpu, arch=arch)
    if mode == "hit":  # a fresh process whose kernel is on disk: the compiler is not imported
        import tilelang.frontend.source  # what the hit imports, timed apart
        import tilelang.runtime.gpu_launch  # noqa: F401  (and runtime/build.py)

        options = SimpleNamespace(num_warps=k.options.num_warps, arch=arch,
                                  occupancy=k.options.occupancy)
        out["hit_fresh"] = _hit(k, signature, options, gpu, cold_process=True)
        return out
    from tilelang.compiler import CompileOptions

    options = CompileOptions(k.options.num_warps, arch, occupancy=k.options.occupancy)
    if gpu:  # the CUDA context, created once per process: not the kernel's cost
        from tilelang.runtime import binary

        start = time.perf_counter()
        binary._init()
        binary.primary_context(0)
        out["cuda_init"] = time.perf_counter() - start
    out["cold"], out["assembler"], ptx = _first_call(k, signature, options, gpu)
    out["ptxas"] = _ptxas_time(ptx, options.arch, out["assembler"])
    os.environ["TILELANG_DISABLE_DISK_CACHE"] = "1"
    out["warm"], _, _ = _first_call(k, signature, options, gpu)
    del os.environ["TILELANG_DISABLE_DISK_CACHE"]
    out["hit_warm"] = _hit(k, signature, options, gpu, cold_process=False)
    return out


def _gpu() -> bool:
    try:
        from tilelang.runtime import binary

        return binary.gpu_count() > 0
    except Exception:
        return False


def _arch(gpu: bool) -> str:
    from tilelang import settings

    if gpu:
        from tilelang.runtime import binary

        return settings.arch_override() or binary.device_arch(0)
    return settings.arch_override() or "sm_90"


def _key(k, signature, options) -> str:
    """The disk-cache key, as runtime/build.py's build_job makes it."""
    from tilelang.compile_job import describe
    from tilelang.runtime import disk_cache

    job = describe(k.fn, k.name, signature, options.arch, options.arch, options.num_warps,
                   options.occupancy)
    return disk_cache.cache_key(*job.identity())


def _first_call(k, signature, options, gpu: bool) -> tuple[dict, str, str]:
    """Seconds per stage of a first launch that misses the disk cache (runtime/build.py)."""
    from tilelang.backend.assemble import assemble, to_cubin
    from tilelang.compiler import compile_signature
    from tilelang.runtime import binary, disk_cache

    t: dict = {}
    start = time.perf_counter()
    key = _key(k, signature, options)
    t["key"] = time.perf_counter() - start
    start = time.perf_counter()
    assert disk_cache.load(key) is None, "the disk cache should be cold"
    t["lookup"] = time.perf_counter() - start
    start = time.perf_counter()
    compiled = compile_signature(k.fn, signature, options)
    t["compile"] = time.perf_counter() - start
    t.update(compiled.metadata["timings"])
    ptx, shared = compiled.ptx or "", compiled.metadata.get("shared_bytes", 0)
    start = time.perf_counter()
    cubin, assembler = to_cubin(ptx, options.arch), "nvJitLink"
    if cubin is None:  # no nvJitLink and no GPU here: ptxas, as the compile workers do
        cubin, assembler = assemble(ptx, options.arch)[0], "ptxas"
    t["cubin"] = time.perf_counter() - start
    start = time.perf_counter()
    disk_cache.store(key, {"name": k.name, "arch": options.arch, "shared_bytes": shared}, ptx,
                     cubin)
    t["store"] = time.perf_counter() - start
    if gpu:
        start = time.perf_counter()
        binary.load(k.name, ptx, cubin, 0, shared)
        t["load"] = time.perf_counter() - start
    t["total"] = sum(v for s, v in t.items() if s in STAGES)
    return t, assembler, ptx


def _ptxas_time(ptx: str, arch: str, assembler: str) -> float | None:
    """Seconds a ptxas subprocess takes on the same PTX (PATH, $CUDA_HOME/bin or
    /usr/local/cuda/bin), for comparison where the cubin came from nvJitLink; not in `cold`."""
    import shutil

    if assembler == "ptxas":
        return None
    cuda_home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    ptxas = shutil.which("ptxas") or shutil.which("ptxas", path=os.path.join(cuda_home, "bin"))
    if ptxas is None:
        return None
    from tilelang.backend.targets import assembly_arch

    with tempfile.TemporaryDirectory() as d:
        src, dst = Path(d) / "k.ptx", Path(d) / "k.cubin"
        src.write_text(ptx)
        start = time.perf_counter()
        done = subprocess.run([ptxas, f"-arch={assembly_arch(ptx, arch)}", str(src),
                               "-o", str(dst)], capture_output=True)
        elapsed = time.perf_counter() - start
    return elapsed if done.returncode == 0 else None


def _hit(k, signature, options, gpu: bool, cold_process: bool) -> dict:
    """Seconds of a launch that finds its kernel on disk: key, read, and (GPU) load."""
    from tilelang.runtime import binary, disk_cache

    t: dict = {}
    if gpu and cold_process:
        binary._init()
        binary.primary_context(0)
    start = time.perf_counter()
    key = _key(k, signature, options)
    t["key"] = time.perf_counter() - start
    start = time.perf_counter()
    found = disk_cache.load(key)
    t["lookup"] = time.perf_counter() - start
    assert found is not None, "the disk cache should hold the kernel"
    meta, ptx, cubin = found
    if gpu:
        start = time.perf_counter()
        binary.load(k.name, ptx, cubin, 0, int(meta.get("shared_bytes", 0)))
        t["load"] = time.perf_counter() - start
    t["total"] = sum(t.values())
    return t


# ----- the Triton peer -------------------------------------------------------------------------


def triton_child(name: str) -> dict:
    """First call (compile + launch + synchronize) of the Triton version, imports excluded."""
    import tempfile as tf

    os.environ["TRITON_CACHE_DIR"] = tf.mkdtemp(prefix="triton-cache-")
    start = time.perf_counter()
    import torch
    import triton
    import triton.language as tl

    imported = time.perf_counter() - start
    torch.cuda.init()
    torch.zeros(1, device="cuda")  # the context, outside the timed call

    if name == "vector_add":
        @triton.jit
        def add(a, b, c, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            mask = offs < n
            tl.store(c + offs, tl.load(a + offs, mask=mask) + tl.load(b + offs, mask=mask),
                     mask=mask)

        a = torch.randn(1 << 20, device="cuda")
        c = torch.empty_like(a)
        call = lambda: add[(1024,)](a, a, c, a.numel(), BLOCK=1024, num_warps=4)  # noqa: E731
    elif name == "softmax":
        @triton.jit
        def softmax(x, y, n, BLOCK: tl.constexpr):
            row = tl.program_id(0)
            offs = tl.arange(0, BLOCK)
            v = tl.load(x + row * n + offs, mask=offs < n, other=-float("inf"))
            e = tl.exp(v - tl.max(v, 0))
            tl.store(y + row * n + offs, e / tl.sum(e, 0), mask=offs < n)

        x = torch.randn(4096, 1024, device="cuda")
        y = torch.empty_like(x)
        call = lambda: softmax[(4096,)](x, y, 1024, BLOCK=1024, num_warps=4)  # noqa: E731
    elif name == "gemm":
        @triton.jit
        def gemm(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
            i, j = tl.program_id(0), tl.program_id(1)
            rm, rn, rk = i * BM + tl.arange(0, BM), j * BN + tl.arange(0, BN), tl.arange(0, BK)
            acc = tl.zeros((BM, BN), tl.float32)
            for k in range(0, K, BK):
                x = tl.load(a + rm[:, None] * K + (k + rk)[None, :])
                w = tl.load(b + (k + rk)[:, None] * N + rn[None, :])
                acc = tl.dot(x, w, acc)
            tl.store(c + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16))

        a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
        c = torch.empty_like(a)
        call = lambda: gemm[(32, 32)](a, a, c, 4096, 4096, 4096, BM=128, BN=128,  # noqa: E731
                                      BK=32, num_warps=8)
    else:
        return {}
    start = time.perf_counter()
    call()
    torch.cuda.synchronize()
    return {"import": imported, "first_call": time.perf_counter() - start}


# ----- the parent ------------------------------------------------------------------------------


def spawn(args: list[str], cache: str) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("TILELANG_DISABLE_DISK_CACHE", "TILELANG_DUMP_DIR",
                        "TILELANG_PRINT_IR_AFTER", "TILELANG_INTERPRET")}
    env["TILELANG_CACHE_DIR"] = cache
    env["CUDA_CACHE_DISABLE"] = "1"  # the driver's JIT cache: a cold run must assemble
    run = subprocess.run([sys.executable, str(Path(__file__).resolve()), *args], env=env,
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed:\n{run.stderr[-3000:]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def triton_usable() -> bool:
    if importlib.util.find_spec("triton") is None or importlib.util.find_spec("torch") is None:
        return False
    import torch

    return torch.cuda.is_available()


def measure(name: str, repeats: int, with_triton: bool) -> dict:
    """The repeat with the median cold total (each repeat: a cold and a hit process)."""
    runs = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory(prefix="tilelang-bench-cache-") as cache:
            run = spawn(["--child", name], cache)
            run["hit_fresh"] = spawn(["--child", name, "--mode", "hit"], cache)["hit_fresh"]
        runs.append(run)
    runs.sort(key=lambda r: r["cold"]["total"])
    chosen = runs[len(runs) // 2]
    chosen["cold_totals"] = [r["cold"]["total"] for r in runs]
    chosen["hit_fresh_totals"] = [r["hit_fresh"]["total"] for r in runs]
    chosen["imports"] = [r["import"] for r in runs]
    if with_triton:
        with tempfile.TemporaryDirectory() as cache:
            chosen["triton"] = spawn(["--triton", name], cache) or None
    return chosen


def row(name: str, kind: str, r: dict) -> dict:
    ms = {s: 1e3 * v for s, v in r["cold"].items()}
    cold = ms["total"]
    target = TARGET_MS[kind]
    hit = 1e3 * statistics.median(r["hit_fresh_totals"])  # of every repeat: one is noisy
    triton = r.get("triton")
    out = {"sample": name, "kind": kind, "import": 1e3 * statistics.median(r["imports"])}
    out.update({s: ms.get(s) for s in STAGES if s in ms})
    out.update({
        "cold": cold, "target": f"<={target:.0f}", "met": "yes" if cold <= target else "no",
        "warm": 1e3 * r["warm"]["total"], "hit": 1e3 * r["hit_warm"]["total"],
        "hit fresh": hit, "hit met": "yes" if hit <= HIT_TARGET_MS else "no",
        "triton": 1e3 * triton["first_call"] if triton else "n/a",
        "ptxas": 1e3 * r["ptxas"] if r.get("ptxas") else "n/a",
    })
    return out


def plot(rows: list[dict], stages: list[str]) -> None:
    from common import RESULTS, pyplot

    plt = pyplot()
    if plt is None:
        return

    fig, ax = plt.subplots(figsize=(max(6, len(rows) * 0.9), 4.5))
    labels = [r["sample"] for r in rows]
    bottom = [0.0] * len(rows)
    for stage in stages:
        values = [r.get(stage) or 0.0 for r in rows]
        ax.bar(labels, values, bottom=bottom, label=stage)
        bottom = [b + v for b, v in zip(bottom, values)]
    for i, r in enumerate(rows):
        ax.plot([i - 0.4, i + 0.4], [TARGET_MS[r["kind"]]] * 2, color="black", lw=1)
    ax.set_ylabel("ms (cold, fresh process, imports excluded)")
    ax.set_title("tilelang first call by stage (black: target)")
    ax.legend(fontsize=7, ncol=2)
    plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
    fig.tight_layout()
    RESULTS.mkdir(parents=True, exist_ok=True)
    fig.savefig(RESULTS / "compile.png", dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", default=None, help="comma-separated (default: all)")
    parser.add_argument("--repeats", type=int, default=3, help="fresh processes per sample")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--mode", default="cold", help=argparse.SUPPRESS)
    parser.add_argument("--triton", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.mode)))
        return
    if args.triton:
        print(json.dumps(triton_child(args.triton)))
        return

    sys.path.insert(0, str(HERE))
    from common import save, table

    known = cases()
    names = args.samples.split(",") if args.samples else list(known)
    with_triton = triton_usable()
    results, rows = {}, []
    for name in names:
        results[name] = r = measure(name, args.repeats, with_triton)
        rows.append(row(name, known[name][0], r))
        print(f"{name}: cold {rows[-1]['cold']:.1f} ms", flush=True)
    first = next(iter(results.values()))
    stages = [s for s in STAGES if s in first["cold"]]
    where = (f"{platform.node()}, {platform.processor() or platform.machine()}, "
             f"{os.cpu_count()} CPUs, {'GPU' if first['gpu'] else 'no GPU'}, "
             f"{first['arch']}, cubin by {first['assembler']}")
    print(f"\nfirst call, ms ({time.strftime('%Y-%m-%d')}; {where}; median of {args.repeats} "
          "fresh processes by cold total):")
    print(table(rows, ["sample", "kind", "import", *stages, "cold", "target", "met", "warm",
                       "hit", "hit fresh", "hit met", "triton", "ptxas"]))
    if first["gpu"]:
        print(f"CUDA context creation (once per process, not in 'cold'): "
              f"{1e3 * first['cuda_init']:.1f} ms")
    print(f"import: `import tilelang` alone; cold: key + lookup + stages + cubin + store"
          f"{' + load' if first['gpu'] else ''}; warm: the same again in-process, disk cache off; "
          f"hit: disk-cache hit in the same process; hit fresh: in a new process, median of the "
          f"repeats (target "
          f"<= {HIT_TARGET_MS:.0f} ms); triton: first call of the Triton version "
          f"{'(GPU)' if with_triton else '(n/a: triton or a GPU missing)'}; ptxas: the same "
          f"PTX through a ptxas subprocess where the cubin came from nvJitLink (not in cold)")
    path = save("compile", {"date": time.strftime("%Y-%m-%d"), "machine": where,
                            "repeats": args.repeats, "rows": rows, "raw": results})
    plot(rows, stages)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
