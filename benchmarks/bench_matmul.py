"""Benchmark: GEMM C = A @ B, bf16 and fp16 inputs, float32 accumulation, C in the input dtype.

tilelang's kernel is the plain one a user writes (samples/gemm.py without the epilogue): each
block owns a (BM, BN) tile of C and walks K with `ct.mma` over (BM, BK) x (BK, BN) tiles, edges
padded with zeros. It is swept over a few (BM, BN, BK, warps) configurations and the best is
reported, next to its registers, local memory (spills) and shared memory as the driver reports
them. Peers: cuBLAS (`torch.matmul`) and an autotuned Triton kernel written here in the style of
Triton's tutorials (grouped program order; block shapes with their pipeline depth and warps).

For the skinny LLM-decode products (M <= 256) it also sweeps split-K configurations
(samples/splitk_gemm.py): S blocks per output tile each multiply one range of K into a float32
workspace (plain stores: deterministic), and a second kernel sums the S partial tiles and casts;
both kernels are timed, and checked like the others.

Shapes: square M = N = K from 1024 to 8192, and LLM-shaped ones (M = 16, 64, 256 tokens against
4096 x 4096 and 14336 x 4096 weights, and 64 x 4096 x 14336: with 16 x 14336 x 4096, the up
and down projections of a 4096-wide model with 14336 hidden units). Reported in TFLOP/s (2MNK
over the median device time), as ratios of tilelang to cuBLAS and Triton, and against the
roofline: the lesser of the H100 SXM dense fp16/bf16 rate and what the copy bandwidth measured
in the same run can feed (each of A, B and C moved once). Every implementation is checked
against a float32 product on fresh random inputs, with C poisoned (NaN) first; a wrong one is
reported as "wrong" and not timed. Timings replay a CUDA graph of back-to-back calls (launch
gaps stay out of small shapes) over several input sets when one set would sit in L2.
    python benchmarks/bench_matmul.py [--quick] [--shapes 4096,16x4096x4096] [--dtypes bf16]
        [--configs 128x128x32w8,64x64x64w4k2,...] [--arch native,sm_80]
        [--impls ours,cublas,triton]
    python benchmarks/bench_matmul.py --dry-run   # no GPU: compile every config, print resources
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import ml_dtypes
import numpy as np
import sweep
from common import bar_plot, copy_bandwidth, save, table, timed

import tilelang as ct
from tilelang.testing.kernels import make_persistent_matmul

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "samples"))
import splitk_gemm

SQUARE = tuple((n, n, n) for n in (1024, 2048, 4096, 8192))
LLM = (*((m, n, k) for m in (16, 64, 256) for n, k in ((4096, 4096), (14336, 4096))),
       (64, 4096, 14336))
QUICK = ((4096, 4096, 4096), (16, 4096, 4096), (16, 14336, 4096), (64, 4096, 14336))
# split-K only where the plain grid is short of ~4 blocks per H100 SM (132 SMs): beyond that
# every SM already has work
SPLIT_BELOW_BLOCKS = 512
DTYPES = ("bf16", "fp16")
NUMPY_DTYPES = {"bf16": ml_dtypes.bfloat16, "fp16": np.float16}
# |out - ref| <= atol + rtol |ref| elementwise, and ||out - ref|| / ||ref|| under `norm`, for C of
# unit scale: the output is rounded once to 8 (bf16) or 11 (fp16) bits
TOLERANCE = {"bf16": dict(rtol=1.6e-2, atol=1e-2, norm=1e-2),
             "fp16": dict(rtol=2e-3, atol=2e-3, norm=2e-3)}


@dataclass(frozen=True)
class Config:
    bm: int
    bn: int
    bk: int
    warps: int
    group: int = 0  # > 0: a 1-D grid walked in groups of this many block rows (L2 reuse)
    split: int = 1  # > 1: split-K into a float32 workspace of `split` partial products
    occupancy: int = 0  # > 0: the kernel's occupancy hint (a shallower ring, blocks per SM)
    persistent: bool = False  # one block per SM walking the tiles (in groups of `group` rows)

    @property
    def label(self) -> str:
        return f"{self.bm}x{self.bn}x{self.bk}w{self.warps}" + \
            (f"g{self.group}" if self.group else "") + \
            (f"k{self.split}" if self.split > 1 else "") + \
            (f"o{self.occupancy}" if self.occupancy else "") + ("p" if self.persistent else "")

    def fits(self, m: int, n: int, k: int) -> bool:
        """Skinny tiles (BM < 64) are only tried on skinny problems (M <= 256), split-K on
        those whose plain grid is short of blocks, with at least one K tile per range, a
        persistent grid where there are more tiles than SMs."""
        blocks = ct.cdiv(m, self.bm) * ct.cdiv(n, self.bn)
        if self.split > 1:
            return m <= 256 and blocks < SPLIT_BELOW_BLOCKS and self.split <= ct.cdiv(k, self.bk)
        if self.persistent:  # only where there are more tiles than SMs
            return blocks > multiprocessors()
        return self.bm >= 64 or m <= 256


CONFIGS = tuple(Config(*c) for c in (
    # wgmma on sm_90 (passes/matmul_loops.py); mma.sync elsewhere
    (128, 256, 64, 8), (128, 256, 64, 8, 8), (256, 128, 64, 8), (128, 128, 64, 8),
    # persistent: one block per SM walks the tiles; on sm_90 the producer warpgroup's ring
    # runs on from tile to tile, filling the next tile's stages during this one's epilogue
    (128, 256, 64, 8, 8, 1, 0, True), (128, 128, 64, 8, 8, 1, 0, True),
    (128, 128, 64, 8, 8), (64, 256, 64, 4), (64, 128, 64, 4), (64, 64, 64, 4), (64, 64, 128, 4),
    # split-K for skinny M: S ranges of K per output tile. The staged ring takes most of
    # shared memory (one block per SM), so S that fills the 132 SMs in whole waves wins:
    # 16x4096 in 64x64 tiles is 64 blocks, k2 128 (one wave), k4 256 (two)
    (64, 64, 64, 4, 0, 2), (64, 64, 64, 4, 0, 4), (64, 64, 64, 4, 0, 8), (64, 128, 64, 4, 0, 2),
    (64, 128, 64, 4, 0, 4), (64, 64, 128, 4, 0, 2), (64, 64, 128, 4, 0, 4),
    # two blocks per SM (the occupancy hint halves the ring): 16x14336 has 112 tiles of 64x128
    (64, 128, 64, 4, 0, 1, 2),
    # mma.sync everywhere
    (128, 64, 32, 4), (64, 64, 32, 4),
    # for M = 16..256: more blocks along N, fewer rows of zeros per tile
    (16, 64, 64, 4), (32, 64, 64, 4),
))


@ct.kernel
def matmul(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int],
           GROUP: ct.Constant[int]):
    if GROUP == 0:
        i, j = ct.bid(0), ct.bid(1)
    else:  # consecutive blocks share GROUP block rows of `a` and one block column of `b`
        tiles_m = ct.num_tiles(c, axis=0, shape=(BM, BN))
        per_group = GROUP * ct.num_tiles(c, axis=1, shape=(BM, BN))
        pid = ct.bid(0)
        first = (pid // per_group) * GROUP
        rows = min(tiles_m - first, GROUP)
        i = first + (pid % per_group) % rows
        j = (pid % per_group) // rows
    zero = ct.PaddingMode.ZERO
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
        x = ct.load(a, index=(i, k), shape=(BM, BK), padding_mode=zero)
        w = ct.load(b, index=(k, j), shape=(BK, BN), padding_mode=zero)
        acc = ct.mma(x, w, acc)
    ct.store(c, index=(i, j), tile=acc.astype(c.dtype))


def launch_args(a, b, c, config: Config) -> tuple:
    """The arguments of kernel_of(config); for split-K `c` is the float32 workspace."""
    last = config.split if config.split > 1 else config.group
    return (a, b, c, config.bm, config.bn, config.bk, last)


# `matmul`'s grouped order with a grid of one block per SM walking the tiles (num_warps is
# the configuration's: sweep.kernel_for replaces it)
persistent_matmul = make_persistent_matmul()


def kernel_of(config: Config):
    """The kernel of the configuration's K loop (split-K: the partial products)."""
    if config.persistent:
        return persistent_matmul
    return splitk_gemm.partial_products if config.split > 1 else matmul


def multiprocessors() -> int:
    """The device's SMs (132 on the H100 SXM) without a GPU (dry runs)."""
    try:
        import torch

        if torch.cuda.is_available():
            return torch.cuda.get_device_properties(0).multi_processor_count
    except ImportError:
        pass
    return 132


def reduce_args(ws, c, config: Config) -> tuple:
    """Split-K's second kernel (splitk_gemm.sum_partials): its grid and arguments."""
    (_, m, n), (rm, rn) = ws.shape, splitk_gemm.REDUCE_TILE
    return (ct.cdiv(m, rm), ct.cdiv(n, rn)), (ws, c, rm, rn, config.split)


def grid(m: int, n: int, config: Config) -> tuple[int, ...]:
    if config.persistent:
        return (min(ct.cdiv(m, config.bm) * ct.cdiv(n, config.bn), multiprocessors()),)
    if config.split > 1:
        return ct.cdiv(m, config.bm), ct.cdiv(n, config.bn), config.split
    if config.group:
        return (ct.cdiv(m, config.bm) * ct.cdiv(n, config.bn),)
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
    return sweep.mismatch(inputs.c.float(), want, tol)


def measure(name: str, run: Callable[[int], None], inputs: Inputs, tol: dict,
            flops: float, budget_ms: float) -> dict:
    """{"TFLOP/s": ...} or {"status": "wrong" | "error", "why": ...}."""
    return sweep.measure(name, lambda: check(run, inputs, tol),
                           lambda: timed(run, inputs.sets, budget_ms), flops)


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
    roof = min(sweep.PEAK_TFLOPS, flops / (moved / (bandwidth * 1e9)) / 1e12)
    shape = f"{m}x{n}x{k}"
    print(f"{dname} {shape} ({inputs.sets} input sets)", flush=True)
    row = {"dtype": dname, "shape": shape, "roof": roof}
    timings = {}  # (arch, config label) -> its timing, for the final rounds

    def timing(run):
        return lambda: timed(run, inputs.sets, args.budget_ms)

    def measure_config(arch: str, config: Config):
        kern = sweep.kernel_for(kernels, (arch, dname, config), kernel_of(config), config.warps,
                                config.occupancy or None)
        out = inputs.c
        if config.split > 1:  # the partial products go to a workspace, a second kernel sums
            out = torch.empty(config.split, m, n, device="cuda", dtype=torch.float32)
            reduce = sweep.kernel_for(kernels, (arch, dname, "sum", config.split),
                                      splitk_gemm.sum_partials, 1)
            reduce_grid, reduce_launch_args = reduce_args(out, inputs.c, config)

        def run(i):
            stream = torch.cuda.current_stream()
            ct.launch(stream, grid(m, n, config), kern,
                      launch_args(inputs.a[i], inputs.b[i], out, config))
            if config.split > 1:
                ct.launch(stream, reduce_grid, reduce, reduce_launch_args)

        timings[arch, config.label] = timing(run)
        return measure(f"ours[{arch}] {config.label}", run, inputs, tol, flops,
                       args.budget_ms), kern

    config_rows = []
    if "ours" in args.impls:
        configs = [c for c in args.configs if c.fits(m, n, k)]
        config_rows = sweep.measure_configs(args, configs, row, {"dtype": dname, "shape": shape},
                                    measure_config)
    final = {}  # the final rounds' entries: name -> (result, timing)
    if "cublas" in args.impls:
        def run_cublas(i):
            torch.matmul(inputs.a[i], inputs.b[i], out=inputs.c)

        row["cublas_result"] = measure("cuBLAS", run_cublas, inputs, tol, flops, args.budget_ms)
        final["cuBLAS"] = row["cublas_result"], timing(run_cublas)
    if tri is not None:
        def run_triton(i):
            tri(inputs.a[i], inputs.b[i], inputs.c)

        row["triton_result"] = measure("Triton", run_triton, inputs, tol, flops, args.budget_ms)
        row["triton_cfg"] = tri.chosen()
        final["Triton"] = row["triton_result"], timing(run_triton)
    ours = sweep.final_rounds(args, row, final, timings, flops)
    row["ours/cuBLAS"] = sweep.ratio(ours, row.get("cublas_result"))
    row["ours/Triton"] = sweep.ratio(ours, row.get("triton_result"))
    row["ours/roof"] = sweep.ratio(ours, {"TFLOP/s": roof})
    return row, config_rows


def bench(args) -> None:
    import torch

    tri = triton_matmul() if "triton" in args.impls else None
    if "triton" in args.impls and tri is None:
        print("triton is not installed: no Triton column")
    bandwidth = copy_bandwidth()
    print(f"{torch.cuda.get_device_name()}: copy {bandwidth:.0f} GB/s (read + write), "
          f"peak {sweep.PEAK_TFLOPS:.0f} TFLOP/s (datasheet)", flush=True)
    kernels = {}  # (arch, dtype, config) -> its own Kernel object (own cache and fast path)
    rows, config_rows = [], []
    started = time.perf_counter()
    for dname in args.dtypes:
        for m, n, k in args.shapes:
            row, per_config = bench_case(args, dname, m, n, k, kernels, tri, bandwidth)
            rows.append(row)
            config_rows += per_config
            print(f"  ours {sweep.brief(row.get(sweep.ours_column(args.arch[0])))}, cuBLAS "
                  f"{sweep.brief(row.get('cuBLAS'))}, Triton "
                  f"{sweep.brief(row.get('Triton'))} TFLOP/s "
                  f"({time.perf_counter() - started:.0f} s so far)", flush=True)
            torch.cuda.empty_cache()

    sweep.print_compile_time(kernels, started)
    print("\nEvery tilelang configuration (TFLOP/s):")
    print(table(config_rows, ["dtype", "shape", "arch"] + [c.label for c in args.configs]))
    cols = ["dtype", "shape", *sweep.ours_columns(args)]
    cols += ["cuBLAS", "Triton", "triton_cfg", "ours/cuBLAS", "ours/Triton", "roof", "ours/roof"]
    print(f"\nGEMM, TFLOP/s (roof: min({sweep.PEAK_TFLOPS:.0f}, what {bandwidth:.0f} GB/s feeds); "
          "regs / local_B / smem_B / blocks/SM of the best configuration):")
    print(table(rows, cols))
    save("matmul", {"device": torch.cuda.get_device_name(), "copy_GBps": bandwidth,
                    "peak_TFLOPs": sweep.PEAK_TFLOPS, "arch": args.arch, "rows": rows,
                    "configs": config_rows})
    plotted = [r for r in rows if r.get("ours/cuBLAS") is not None]
    bar_plot("matmul", [f"{r['dtype']}/{r['shape']}" for r in plotted],
             [r["ours/cuBLAS"] for r in plotted], "tilelang / cuBLAS (TFLOP/s)",
             "GEMM, best tilelang configuration against cuBLAS")


# ----- dry run: no GPU --------------------------------------------------------------------------


def interpreter_check(config: Config, dname: str, m: int = 70, n: int = 100,
                      k: int = 90) -> str:
    """The benchmark's kernel on the CPU interpreter at an awkward size, against float64."""
    dtype = NUMPY_DTYPES[dname]
    rng = np.random.default_rng(m + n + k)
    a = (rng.standard_normal((m, k)) / math.sqrt(k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    c = np.full((m, n), np.nan, dtype)
    out = np.full((config.split, m, n), np.nan, np.float32) if config.split > 1 else c
    kern = kernel_of(config).replace_hints(num_warps=config.warps, interpret=True)
    ct.launch(None, grid(m, n, config), kern, launch_args(a, b, out, config))
    if config.split > 1:
        reduce_grid, reduce_launch_args = reduce_args(out, c, config)
        ct.launch(None, reduce_grid, splitk_gemm.sum_partials.replace_hints(interpret=True),
                  reduce_launch_args)
    return sweep.interpreted(c, a.astype(np.float64) @ b.astype(np.float64), TOLERANCE[dname])


def dry_run(args) -> None:
    """Compile every configuration for every dtype and arch with NumPy stand-ins (what the GPU
    run will compile: the signature holds dtypes and alignment, not shapes), print ptxas's
    resource report, and run each configuration once on the interpreter."""
    print(f"shapes: {', '.join(f'{m}x{n}x{k}' for m, n, k in args.shapes)}; dtypes "
          f"{','.join(args.dtypes)}; arch {','.join(args.arch)}; impls {','.join(args.impls)}")
    rows = []
    for arch in args.arch:
        target_arch = sweep.DRY_RUN_NATIVE if arch == sweep.NATIVE else arch
        for dname in args.dtypes:
            for config in args.configs:
                rows.append(dry_run_config(target_arch, dname, config,
                                           interpret=arch == args.arch[0]))
            splits = sorted({c.split for c in args.configs if c.split > 1})
            rows += [dry_run_reduce(target_arch, dname, split) for split in splits]
    print(table(rows, ["arch", "dtype", "config", *sweep.DRY_RUN_COLUMNS]))
    tri = "triton" in args.impls and triton_matmul()
    print("Triton kernel:", "defined" if tri else "not checked (triton is not installed)")


def dry_run_config(arch: str, dname: str, config: Config, interpret: bool) -> dict:
    a = np.zeros((256, 256), NUMPY_DTYPES[dname])
    out = np.zeros((config.split, 256, 256), np.float32) if config.split > 1 else a.copy()
    return sweep.dry_run_row(
        f"{arch} {dname} {config.label}", {"arch": arch, "dtype": dname, "config": config.label},
        lambda: ct.compile(kernel_of(config).replace_hints(occupancy=config.occupancy or None),
                           launch_args(a, a.copy(), out, config), arch=arch,
                           num_warps=config.warps),
        (lambda: interpreter_check(config, dname)) if interpret else None)


def dry_run_reduce(arch: str, dname: str, split: int) -> dict:
    """Split-K's second kernel for `split` partial products (checked on the interpreter with
    the configurations that use it)."""
    ws = np.zeros((split, 256, 256), np.float32)
    c = np.zeros((256, 256), NUMPY_DTYPES[dname])
    label = f"sum_partials k{split}"
    return sweep.dry_run_row(
        f"{arch} {dname} {label}", {"arch": arch, "dtype": dname, "config": label},
        lambda: ct.compile(splitk_gemm.sum_partials,
                           (ws, c, *splitk_gemm.REDUCE_TILE, split), arch=arch), None)


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
    """'all' or BMxBNxBKwW[gG][kS][oO][p] (warps default 4; gG: grouped order; kS: split-K, S
    partial products in a float32 workspace, then summed; oO: occupancy hint O; p: persistent,
    one block per SM walking the tiles, in groups of G rows, default 8), comma-separated."""
    if text.strip() == "all":
        return CONFIGS
    configs = []
    for part in text.split(","):
        found = re.fullmatch(r"(.+?)(?:g(\d+))?(?:k(\d+))?(?:o(\d+))?(p)?", part.strip())
        tile = sweep.parse_tiles(found.group(1), 3, "BMxBNxBKwW[gG][kS][oO][p]",
                                 "64x64x64w4k4")[0]
        persistent = found.group(5) is not None
        group = int(found.group(2) or (8 if persistent else 0))
        configs.append(Config(*tile, group, int(found.group(3) or 1), int(found.group(4) or 0),
                              persistent))
    return tuple(configs)


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shapes", type=parse_shapes, default=SQUARE + LLM,
                        help="N, MxNxK, square, llm or all, comma-separated (default all)")
    parser.add_argument("--dtypes", type=sweep.parse_list(DTYPES), default=DTYPES)
    parser.add_argument("--configs", type=parse_configs, default=CONFIGS,
                        help="tilelang tiles BMxBNxBKwW[gG][kS], comma-separated (gG: a "
                             "grouped block order, G block rows per group; kS: split-K, S "
                             "ranges of K into a float32 workspace summed by a second kernel, "
                             "tried where M <= 256; default: "
                             + ",".join(c.label for c in CONFIGS) + ")")
    sweep.add_arguments(parser, ("ours", "cublas", "triton"),
                        quick=f"{' and '.join('x'.join(map(str, s)) for s in QUICK)}, bf16")
    args = parser.parse_args(argv)
    if args.quick:
        args.shapes, args.dtypes = QUICK, ("bf16",)
    return args


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    (dry_run if args.dry_run else bench)(args)


if __name__ == "__main__":
    main()
