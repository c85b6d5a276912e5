"""Benchmark: GEMM C = A @ B, bf16 and fp16 inputs, float32 accumulation, C in the input dtype.

tilelang's kernel is the plain one a user writes (samples/gemm.py without the epilogue): each
block owns a (BM, BN) tile of C and walks K with `ct.mma` over (BM, BK) x (BK, BN) tiles, edges
padded with zeros. It is swept over a few (BM, BN, BK, warps) configurations and the best is
reported, next to its registers, local memory (spills) and shared memory as the driver reports
them. Peers: cuBLAS (`torch.matmul`) and an autotuned Triton kernel written here in the style of
Triton's tutorials (grouped program order; block shapes with their pipeline depth and warps).

Shapes: square M = N = K from 1024 to 8192, and LLM-shaped ones (M = 16, 64, 256 tokens against
4096 x 4096 and 14336 x 4096 weights). Reported in TFLOP/s (2MNK over the median device time),
as ratios of tilelang to cuBLAS and Triton, and against the roofline: the lesser of the H100 SXM
dense fp16/bf16 rate and what the copy bandwidth measured in the same run can feed (each of A, B
and C moved once). Every implementation is checked against a float32 product on fresh random
inputs, with C poisoned (NaN) first; a wrong one is reported as "wrong" and not timed. Timings
replay a CUDA graph of back-to-back calls (launch gaps stay out of small shapes) over several
input sets when one set would sit in L2.
    python benchmarks/bench_matmul.py [--quick] [--shapes 4096,16x4096x4096] [--dtypes bf16]
        [--configs 128x128x32w8,...] [--arch native,sm_80] [--impls ours,cublas,triton]
    python benchmarks/bench_matmul.py --dry-run   # no GPU: compile every config, print resources
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import ml_dtypes
import numpy as np
from common import bar_plot, copy_bandwidth, device_ms, save, table

import tilelang as ct

PEAK_TFLOPS = 989.0  # H100 SXM, dense fp16/bf16 with float32 accumulation (datasheet)
SQUARE = tuple((n, n, n) for n in (1024, 2048, 4096, 8192))
LLM = tuple((m, n, k) for m in (16, 64, 256) for n, k in ((4096, 4096), (14336, 4096)))
QUICK = ((4096, 4096, 4096), (16, 4096, 4096))
DTYPES = ("bf16", "fp16")
NUMPY_DTYPES = {"bf16": ml_dtypes.bfloat16, "fp16": np.float16}
# |out - ref| <= atol + rtol |ref| elementwise, and ||out - ref|| / ||ref|| under `norm`, for C of
# unit scale: the output is rounded once to 8 (bf16) or 11 (fp16) bits
TOLERANCE = {"bf16": dict(rtol=1.6e-2, atol=1e-2, norm=1e-2),
             "fp16": dict(rtol=2e-3, atol=2e-3, norm=2e-3)}
NATIVE = "native"  # --arch value: the device's own architecture (no TILELANG_ARCH)
BUDGET_MS = 200.0  # device time per timing (fewer repeats for large shapes)


@dataclass(frozen=True)
class Config:
    bm: int
    bn: int
    bk: int
    warps: int

    @property
    def label(self) -> str:
        return f"{self.bm}x{self.bn}x{self.bk}w{self.warps}"

    def fits(self, m: int) -> bool:
        """Skinny tiles (BM < 64) are only tried on skinny problems, where they fill the SMs."""
        return self.bm >= 64 or m <= 256


CONFIGS = tuple(Config(*c) for c in (
    (64, 64, 32, 4), (128, 64, 32, 4), (128, 128, 32, 8), (64, 128, 32, 4), (128, 128, 64, 8),
    (64, 64, 64, 4),
    # for M = 16..256: more blocks along N, fewer rows of zeros per tile
    (16, 64, 64, 4), (32, 64, 64, 4),
))


@ct.kernel
def matmul(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    zero = ct.PaddingMode.ZERO
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
        x = ct.load(a, index=(i, k), shape=(BM, BK), padding_mode=zero)
        w = ct.load(b, index=(k, j), shape=(BK, BN), padding_mode=zero)
        acc = ct.mma(x, w, acc)
    ct.store(c, index=(i, j), tile=acc.astype(c.dtype))


def grid(m: int, n: int, config: Config) -> tuple[int, int]:
    return ct.cdiv(m, config.bm), ct.cdiv(n, config.bn)


# ----- Triton: an autotuned GEMM in the style of its tutorials ----------------------------------


def triton_matmul() -> Callable | None:
    """`run(a, b, c)` launching the autotuned kernel, or None without Triton."""
    try:
        import triton
        import triton.language as tl
    except ImportError:
        return None

    def config(bm, bn, bk, stages, warps, group=8):
        return triton.Config({"BM": bm, "BN": bn, "BK": bk, "GROUP": group},
                             num_stages=stages, num_warps=warps)

    configs = [
        config(128, 256, 64, 3, 8), config(256, 128, 64, 3, 8), config(128, 128, 64, 4, 8),
        config(128, 128, 64, 4, 4), config(128, 64, 64, 4, 4), config(64, 128, 64, 4, 4),
        config(64, 64, 64, 5, 4),
        # decode-like M: short tiles, deep K, no grouping (one row of tiles)
        config(16, 64, 128, 4, 4, 1), config(16, 128, 128, 4, 4, 1), config(32, 64, 128, 4, 4, 1),
        config(32, 128, 64, 4, 4, 1),
    ]

    def prune(configs, named_args, **kwargs):
        """Tiles of 16-32 rows for M <= 64, 64 rows always, 128-256 rows for M > 64."""
        m = named_args["M"]
        kept = [c for c in configs if c.kwargs["BM"] == 64 or (c.kwargs["BM"] < 64) == (m <= 64)]
        return kept or configs

    @triton.autotune(configs=configs, key=["M", "N", "K"],
                     prune_configs_by={"early_config_prune": prune})
    @triton.jit
    def gemm(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
             BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
        # Program order: blocks walk GROUP tile-rows of C column by column, so the A rows and
        # B columns a wave of blocks reads are shared through L2.
        pid = tl.program_id(0)
        tiles_m = tl.cdiv(M, BM)
        tiles_n = tl.cdiv(N, BN)
        per_group = GROUP * tiles_n
        first = (pid // per_group) * GROUP
        height = tl.minimum(tiles_m - first, GROUP)
        tm = first + (pid % per_group) % height
        tn = (pid % per_group) // height
        # rows and columns past the edge wrap onto real ones (never stored): only K is masked
        rows = (tm * BM + tl.arange(0, BM)) % M
        cols = (tn * BN + tl.arange(0, BN)) % N
        ks = tl.arange(0, BK)
        pa = a + rows[:, None] * sam + ks[None, :] * sak
        pb = b + ks[:, None] * sbk + cols[None, :] * sbn
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for step in range(0, tl.cdiv(K, BK)):
            left = K - step * BK
            x = tl.load(pa, mask=ks[None, :] < left, other=0.0)
            w = tl.load(pb, mask=ks[:, None] < left, other=0.0)
            acc = tl.dot(x, w, acc)
            pa += BK * sak
            pb += BK * sbk
        out_r = tm * BM + tl.arange(0, BM)
        out_c = tn * BN + tl.arange(0, BN)
        tl.store(c + out_r[:, None] * scm + out_c[None, :] * scn, acc.to(c.dtype.element_ty),
                 mask=(out_r[:, None] < M) & (out_c[None, :] < N))

    def run(a, b, c):
        m, k = a.shape
        n = b.shape[1]
        gemm[lambda meta: (triton.cdiv(m, meta["BM"]) * triton.cdiv(n, meta["BN"]),)](
            a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
            c.stride(0), c.stride(1))

    def chosen() -> str:
        best = getattr(gemm, "best_config", None)
        if best is None:
            return ""
        kw = best.kwargs
        return f"{kw['BM']}x{kw['BN']}x{kw['BK']}w{best.num_warps}s{best.num_stages}"

    run.chosen = chosen
    return run


# ----- measuring --------------------------------------------------------------------------------


@contextlib.contextmanager
def target(arch: str) -> Iterator[None]:
    """TILELANG_ARCH for launches (tilelang's only per-launch override): NATIVE leaves it as
    the caller had it. Each arch has its own kernel objects, so cached launches stay on theirs."""
    old = os.environ.get("TILELANG_ARCH")
    if arch != NATIVE:
        os.environ["TILELANG_ARCH"] = arch
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("TILELANG_ARCH", None)
        else:
            os.environ["TILELANG_ARCH"] = old


def driver_resources(kernel) -> dict:
    """Registers per thread, local memory per thread (stack and spills) and shared memory of the
    kernel's loaded specialization, as the driver reports them."""
    from cuda.bindings import driver

    launchers = [v for k, v in kernel.cache.items() if isinstance(k, tuple) and k[0] == "gpu"]
    if not launchers:
        return {}
    function = driver.CUfunction(launchers[-1].loaded.handle)
    attr = driver.CUfunction_attribute
    regs = driver.cuFuncGetAttribute(attr.CU_FUNC_ATTRIBUTE_NUM_REGS, function)[1]
    local = driver.cuFuncGetAttribute(attr.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, function)[1]
    static = driver.cuFuncGetAttribute(attr.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function)[1]
    return {"regs": regs, "local_B": local, "smem_B": static + launchers[-1].loaded.shared}


class Inputs:
    """A and B (several sets when one would sit in L2, so timed calls read device memory) and C.
    Values are random with C of unit scale."""

    def __init__(self, m: int, n: int, k: int, dtype, sets: int):
        import torch

        self.a = [torch.empty(m, k, device="cuda", dtype=dtype) for _ in range(sets)]
        self.b = [torch.empty(k, n, device="cuda", dtype=dtype) for _ in range(sets)]
        self.c = torch.empty(m, n, device="cuda", dtype=dtype)
        for i in range(sets):
            self.redraw(i)

    def redraw(self, i: int = 0) -> None:
        self.a[i].normal_(std=self.a[i].shape[1] ** -0.5)
        self.b[i].normal_()

    @property
    def sets(self) -> int:
        return len(self.a)


def input_sets(m: int, n: int, k: int, itemsize: int) -> int:
    import torch

    l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 50 << 20)
    per_set = (m * k + k * n) * itemsize
    return max(1, min(8, math.ceil(3 * l2 / per_set)))


def check(run: Callable[[int], None], inputs: Inputs, tol: dict) -> str | None:
    """None if `run` computes A @ B into C on fresh inputs (C poisoned first), else what's off."""
    import torch

    inputs.redraw(0)
    inputs.c.fill_(float("nan"))
    run(0)
    torch.cuda.synchronize()
    want = torch.matmul(inputs.a[0].float(), inputs.b[0].float())
    got = inputs.c.float()
    if not torch.isfinite(got).all():
        return f"{int((~torch.isfinite(got)).sum())} non-finite elements (unwritten?)"
    rel = float((got - want).norm() / want.norm())
    close = torch.isclose(got, want, rtol=tol["rtol"], atol=tol["atol"])
    if rel > tol["norm"] or not close.all():
        worst = int((got - want).abs().argmax())
        return (f"relative error {rel:.2e}, {int((~close).sum())} elements off, worst at "
                f"{divmod(worst, got.shape[1])}: {float(got.flatten()[worst]):.4g} vs "
                f"{float(want.flatten()[worst]):.4g}")
    return None


def timed(run: Callable[[int], None], sets: int, budget_ms: float) -> tuple[float, float]:
    """Median and spread of device ms per call. A CUDA graph of enough back-to-back calls to
    fill about a millisecond, rotating over the input sets, is replayed (falling back to plain
    launches between events if capture fails)."""
    import torch

    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for i in range(4):
        run(i % sets)
    end.record()
    end.synchronize()
    estimate = start.elapsed_time(end) / 4
    calls = max(sets, min(64, math.ceil(1.0 / max(estimate, 1e-3))))

    def region() -> None:
        for i in range(calls):
            run(i % sets)

    replay = region
    try:
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            region()
        replay = graph.replay
    except Exception as e:  # any capture failure: time plain launches
        torch.cuda.synchronize()
        print(f"  (graph capture failed, timing plain launches: {type(e).__name__}: {e})")
    repeats = max(5, min(50, int(budget_ms / (estimate * calls))))
    ms, spread = device_ms(replay, warmup=2, repeats=repeats)
    return ms / calls, spread / calls


def measure(name: str, run: Callable[[int], None], inputs: Inputs, tol: dict,
            flops: float, budget_ms: float) -> dict:
    """{"TFLOP/s": ...} or {"status": "wrong" | "error", "why": ...}."""
    try:
        wrong = check(run, inputs, tol)
        if wrong:
            print(f"  {name}: wrong: {wrong}", flush=True)
            return {"status": "wrong", "why": wrong}
        ms, spread = timed(run, inputs.sets, budget_ms)
    except Exception as e:  # a failing implementation is a row
        print(f"  {name}: error: {type(e).__name__}: {e}", flush=True)
        return {"status": "error", "why": f"{type(e).__name__}: {e}"}
    return {"ms": ms, "spread_ms": spread, "TFLOP/s": flops / ms / 1e9}


def shown(result: dict | None):
    if result is None:
        return None
    return result.get("TFLOP/s", result.get("status"))


def ratio(x: dict | None, y: dict | None) -> float | None:
    if x and y and "TFLOP/s" in x and "TFLOP/s" in y:
        return x["TFLOP/s"] / y["TFLOP/s"]
    return None


def ours_column(arch: str) -> str:
    return "ours" if arch == NATIVE else f"ours_{arch}"


def bench_case(args, dname: str, m: int, n: int, k: int, kernels: dict, tri,
               bandwidth: float) -> tuple[dict, list[dict]]:
    """One dtype and shape: the table row, and a row of every tilelang configuration per arch."""
    import torch

    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[dname]
    tol = TOLERANCE[dname]
    torch.manual_seed(m * 7 + n * 3 + k)
    item = torch.tensor([], dtype=dtype).element_size()
    inputs = Inputs(m, n, k, dtype, input_sets(m, n, k, item))
    flops = 2.0 * m * n * k
    moved = (m * k + k * n + m * n) * item
    roof = min(PEAK_TFLOPS, flops / (moved / (bandwidth * 1e9)) / 1e12)
    shape = f"{m}x{n}x{k}"
    print(f"{dname} {shape} ({inputs.sets} input sets)", flush=True)
    row = {"dtype": dname, "shape": shape, "roof": roof}
    config_rows = []
    for arch in args.arch if "ours" in args.impls else ():
        results, cfg_row = [], {"dtype": dname, "shape": shape, "arch": arch}
        for config in args.configs:
            if not config.fits(m):
                continue
            key = (arch, dname, config)
            if key not in kernels:
                kernels[key] = matmul.replace_hints(num_warps=config.warps)
            kern = kernels[key]

            def run(i, kern=kern, config=config):
                ct.launch(torch.cuda.current_stream(), grid(m, n, config), kern,
                          (inputs.a[i], inputs.b[i], inputs.c, config.bm, config.bn, config.bk))

            with target(arch):
                result = measure(f"ours[{arch}] {config.label}", run, inputs, tol, flops,
                                 args.budget_ms)
            result.update(config=config.label, **driver_resources(kern))
            cfg_row[config.label] = shown(result)
            results.append(result)
        config_rows.append(cfg_row)
        timed_ok = [r for r in results if "TFLOP/s" in r]
        best = (max(timed_ok, key=lambda r: r["TFLOP/s"]) if timed_ok
                else results[0] if results else None)
        col = ours_column(arch)
        row[col], row[f"{col}_result"] = shown(best), best
        if best is not None:
            row[f"{col}_cfg"] = best.get("config")
            if arch == args.arch[0]:
                row.update({f: best.get(f) for f in ("regs", "local_B", "smem_B")})
    if "cublas" in args.impls:
        def run_cublas(i):
            torch.matmul(inputs.a[i], inputs.b[i], out=inputs.c)

        row["cublas_result"] = measure("cuBLAS", run_cublas, inputs, tol, flops, args.budget_ms)
        row["cuBLAS"] = shown(row["cublas_result"])
    if tri is not None:
        def run_triton(i):
            tri(inputs.a[i], inputs.b[i], inputs.c)

        row["triton_result"] = measure("Triton", run_triton, inputs, tol, flops, args.budget_ms)
        row["Triton"] = shown(row["triton_result"])
        row["triton_cfg"] = tri.chosen()
    ours = row.get(f"{ours_column(args.arch[0])}_result")
    row["ours/cuBLAS"] = ratio(ours, row.get("cublas_result"))
    row["ours/Triton"] = ratio(ours, row.get("triton_result"))
    row["ours/roof"] = ratio(ours, {"TFLOP/s": roof})
    return row, config_rows


def bench(args) -> None:
    import torch

    tri = triton_matmul() if "triton" in args.impls else None
    if "triton" in args.impls and tri is None:
        print("triton is not installed: no Triton column")
    bandwidth = copy_bandwidth()
    print(f"{torch.cuda.get_device_name()}: copy {bandwidth:.0f} GB/s (read + write), "
          f"peak {PEAK_TFLOPS:.0f} TFLOP/s (datasheet)", flush=True)
    kernels = {}  # (arch, dtype, config) -> its own Kernel object (own cache and fast path)
    rows, config_rows = [], []
    started = time.perf_counter()
    for dname in args.dtypes:
        for m, n, k in args.shapes:
            row, per_config = bench_case(args, dname, m, n, k, kernels, tri, bandwidth)
            rows.append(row)
            config_rows += per_config
            print(f"  ours {_brief(row.get(ours_column(args.arch[0])))}, cuBLAS "
                  f"{_brief(row.get('cuBLAS'))}, Triton {_brief(row.get('Triton'))} TFLOP/s "
                  f"({time.perf_counter() - started:.0f} s so far)", flush=True)
            torch.cuda.empty_cache()

    compile_s = sum(t for kern in kernels.values() for _, t in kern.cache.get("timings", []))
    print(f"\ntilelang compile/load time: {compile_s:.1f} s over {len(kernels)} kernels; "
          f"total {time.perf_counter() - started:.0f} s")
    print("\nEvery tilelang configuration (TFLOP/s):")
    print(table(config_rows, ["dtype", "shape", "arch"] + [c.label for c in args.configs]))
    cols = ["dtype", "shape"]
    for arch in args.arch if "ours" in args.impls else ():
        cols += [ours_column(arch), f"{ours_column(arch)}_cfg"]
        if arch == args.arch[0]:
            cols += ["regs", "local_B", "smem_B"]
    cols += ["cuBLAS", "Triton", "triton_cfg", "ours/cuBLAS", "ours/Triton", "roof", "ours/roof"]
    print(f"\nGEMM, TFLOP/s (roof: min({PEAK_TFLOPS:.0f}, what {bandwidth:.0f} GB/s feeds); "
          "regs / local_B / smem_B of the best configuration):")
    print(table(rows, cols))
    save("matmul", {"device": torch.cuda.get_device_name(), "copy_GBps": bandwidth,
                    "peak_TFLOPs": PEAK_TFLOPS, "arch": args.arch, "rows": rows,
                    "configs": config_rows})
    plotted = [r for r in rows if r.get("ours/cuBLAS") is not None]
    bar_plot("matmul", [f"{r['dtype']}/{r['shape']}" for r in plotted],
             [r["ours/cuBLAS"] for r in plotted], "tilelang / cuBLAS (TFLOP/s)",
             "GEMM, best tilelang configuration against cuBLAS")


def _brief(v) -> str:
    return f"{v:.0f}" if isinstance(v, float) else str(v)


# ----- dry run: no GPU --------------------------------------------------------------------------


def ptx_summary(ptx: str) -> str:
    """What the matrix path is made of: tensor-core and copy instructions in the PTX."""
    counts = {name: len(re.findall(rf"^\s*{re.escape(op)}", ptx, re.M)) for name, op in (
        ("mma", "mma.sync"), ("wgmma", "wgmma.mma_async"), ("ldmatrix", "ldmatrix"),
        ("cp.async", "cp.async"), ("ld.shared", "ld.shared"), ("st.shared", "st.shared"),
        ("bar", "bar.sync"))}
    return " ".join(f"{k}={v}" for k, v in counts.items() if v)


def interpreter_check(config: Config, dname: str, m: int = 70, n: int = 100,
                      k: int = 90) -> str:
    """The benchmark's kernel on the CPU interpreter at an awkward size, against float64."""
    dtype = NUMPY_DTYPES[dname]
    rng = np.random.default_rng(m + n + k)
    a = (rng.standard_normal((m, k)) / math.sqrt(k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    c = np.full((m, n), np.nan, dtype)
    kern = matmul.replace_hints(num_warps=config.warps, interpret=True)
    ct.launch(None, grid(m, n, config), kern, (a, b, c, config.bm, config.bn, config.bk))
    want = a.astype(np.float64) @ b.astype(np.float64)
    tol = TOLERANCE[dname]
    got = c.astype(np.float64)
    ok = np.isfinite(got).all() and np.allclose(got, want, rtol=tol["rtol"], atol=tol["atol"])
    return "ok" if ok else f"WRONG (max error {np.nanmax(np.abs(got - want)):.3g})"


def dry_run(args) -> None:
    """Compile every configuration for every dtype and arch with NumPy stand-ins (what the GPU
    run will compile: the signature holds dtypes and alignment, not shapes), print ptxas's
    resource report, and run each configuration once on the interpreter."""
    print(f"shapes: {', '.join(f'{m}x{n}x{k}' for m, n, k in args.shapes)}; dtypes "
          f"{','.join(args.dtypes)}; arch {','.join(args.arch)}; impls {','.join(args.impls)}")
    rows = []
    for arch in args.arch:
        target_arch = "sm_90" if arch == NATIVE else arch  # the H100's own
        for dname in args.dtypes:
            for config in args.configs:
                a = np.zeros((256, 256), NUMPY_DTYPES[dname])
                row = {"arch": target_arch, "dtype": dname, "config": config.label}
                start = time.perf_counter()
                try:
                    compiled = ct.compile(matmul, (a, a.copy(), a.copy(), config.bm, config.bn,
                                                   config.bk), arch=target_arch,
                                          num_warps=config.warps)
                    r = compiled.resources()
                    row.update(regs=r.registers, spill_st_B=r.spill_stores,
                               spill_ld_B=r.spill_loads, stack_B=r.stack_bytes,
                               smem_B=r.shared_bytes, ptx=ptx_summary(compiled.ptx or ""))
                except Exception as e:  # report every config
                    row["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"
                row["compile_s"] = time.perf_counter() - start
                if arch == args.arch[0] and "error" not in row:
                    try:
                        row["interp"] = interpreter_check(config, dname)
                    except Exception as e:
                        row["interp"] = f"error: {type(e).__name__}: {e}"
                rows.append(row)
                print(f"  {target_arch} {dname} {config.label}: {row.get('regs')} regs, "
                      f"{row.get('spill_st_B')}/{row.get('spill_ld_B')} B spill st/ld, "
                      f"{row.get('compile_s'):.2f} s {row.get('error', '')}", flush=True)
    print(table(rows, ["arch", "dtype", "config", "regs", "spill_st_B", "spill_ld_B", "stack_B",
                       "smem_B", "compile_s", "interp", "ptx", "error"]))
    tri = "triton" in args.impls and triton_matmul()
    print("Triton kernel:", "defined" if tri else "not checked (triton is not installed)")


# ----- command line -----------------------------------------------------------------------------


def parse_shapes(text: str) -> tuple[tuple[int, int, int], ...]:
    """'square', 'llm', 'all', N (square) or MxNxK, comma-separated."""
    shapes: list[tuple[int, int, int]] = []
    for part in text.split(","):
        part = part.strip().lower()
        if part in ("all", "square", "llm"):
            shapes += {"all": SQUARE + LLM, "square": SQUARE, "llm": LLM}[part]
        elif re.fullmatch(r"\d+", part):
            shapes.append((int(part),) * 3)
        elif re.fullmatch(r"\d+x\d+x\d+", part):
            m, n, k = map(int, part.split("x"))
            shapes.append((m, n, k))
        else:
            raise argparse.ArgumentTypeError(f"bad shape {part!r}: N, MxNxK, square, llm or all")
    return tuple(dict.fromkeys(shapes))


def parse_configs(text: str) -> tuple[Config, ...]:
    """'all' or BMxBNxBKwW (warps default 4), comma-separated."""
    if text.strip() == "all":
        return CONFIGS
    configs = []
    for part in text.split(","):
        found = re.fullmatch(r"(\d+)x(\d+)x(\d+)(?:w(\d+))?", part.strip())
        if not found:
            raise argparse.ArgumentTypeError(f"bad config {part!r}: BMxBNxBKwW, e.g. 128x128x32w8")
        bm, bn, bk, w = found.groups()
        configs.append(Config(int(bm), int(bn), int(bk), int(w or 4)))
    return tuple(configs)


def parse_list(choices: tuple[str, ...]) -> Callable[[str], tuple[str, ...]]:
    def parse(text: str) -> tuple[str, ...]:
        items = tuple(s.strip() for s in text.split(",") if s.strip())
        bad = [s for s in items if s not in choices]
        if bad or not items:
            raise argparse.ArgumentTypeError(f"{text!r}: choose from {', '.join(choices)}")
        return items
    return parse


def parse_arch(text: str) -> tuple[str, ...]:
    items = tuple(s.strip() for s in text.split(",") if s.strip())
    for s in items:
        if s != NATIVE and not re.fullmatch(r"sm_\d+a?", s):
            raise argparse.ArgumentTypeError(f"bad arch {s!r}: '{NATIVE}' or like sm_80")
    return items or (NATIVE,)


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shapes", type=parse_shapes, default=SQUARE + LLM,
                        help="N, MxNxK, square, llm or all, comma-separated (default all)")
    parser.add_argument("--dtypes", type=parse_list(DTYPES), default=DTYPES)
    parser.add_argument("--configs", type=parse_configs, default=CONFIGS,
                        help="tilelang tiles BMxBNxBKwW, comma-separated (default: "
                             + ",".join(c.label for c in CONFIGS) + ")")
    parser.add_argument("--arch", type=parse_arch, default=(NATIVE,),
                        help="tilelang targets, comma-separated: 'native' (the device's) or e.g. "
                             "sm_80 (through TILELANG_ARCH); ratios use the first")
    parser.add_argument("--impls", type=parse_list(("ours", "cublas", "triton")),
                        default=("ours", "cublas", "triton"))
    parser.add_argument("--quick", action="store_true",
                        help=f"smoke run: {' and '.join('x'.join(map(str, s)) for s in QUICK)}, "
                             "bf16")
    parser.add_argument("--budget-ms", type=float, default=BUDGET_MS,
                        help="device time per timing (repeats: 5 to 50)")
    parser.add_argument("--dry-run", action="store_true",
                        help="no GPU: compile every config (ptxas resources) and run each on the "
                             "interpreter")
    args = parser.parse_args(argv)
    if args.quick:
        args.shapes, args.dtypes = QUICK, ("bf16",)
    return args


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    if args.dry_run:
        dry_run(args)
    else:
        bench(args)


if __name__ == "__main__":
    main()
