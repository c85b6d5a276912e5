"""Benchmark: flash-attention forward, bf16 q, k, v (batch, heads, seq, head_dim), causal and not.

tilelang's kernel is samples/attention.py as it stands (one block per BM query rows of one
(batch, head), an online softmax over BN-key blocks, float32 scores and accumulator), swept over
a few (BM, BN, warps) configurations per head dimension; the best is reported with its
registers, local memory (spills) and shared memory as the driver reports them. Peers: torch's
`scaled_dot_product_attention`, by default (whichever backend torch picks, named in the table)
and forced to its cuDNN and flash backends (`torch.nn.attention.sdpa_kernel`), and a Triton
kernel written here in the style of Triton's fused-attention tutorial (autotuned block shapes,
pipeline depth and warps; off-diagonal key blocks unmasked, the diagonal ones masked).

Shapes: sequence 1024 to 8192 at 16384 tokens per batch (batch = 16384 / seq) and a model
width of 2048 (heads = 2048 / head_dim), head dims 128 and 64. TFLOP/s count the two products,
4 * batch * heads * seq * seq * head_dim, halved for causal attention (the half above the
diagonal is skipped by every implementation). Every implementation is first checked on fresh
random inputs against a float32 attention (torch's memory-efficient or math backend), with its
output poisoned (NaN) where it takes one; a wrong one is reported as "wrong" and not timed.
    python benchmarks/bench_attention.py [--quick] [--seqs 4096,8192] [--head-dims 128]
        [--modes causal,full] [--configs 64x32w8,...] [--arch native,sm_80]
        [--impls ours,sdpa,cudnn,flash,triton]
    python benchmarks/bench_attention.py --dry-run   # no GPU: compile every config, resources
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import ml_dtypes
import numpy as np
import sweep
from common import bar_plot, save, table, timed

import tilelang as ct

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "samples"))
import attention  # the sample's kernel is the one measured

SEQS = (1024, 2048, 4096, 8192)
HEAD_DIMS = (128, 64)
MODES = ("full", "causal")
TOKENS = 16384  # batch * seq
WIDTH = 2048  # heads * head_dim
QUICK_SEQS, QUICK_HEAD_DIMS = (4096,), (128,)
IMPLS = ("ours", "sdpa", "cudnn", "flash", "triton")
# |out - ref| <= atol + rtol |ref| elementwise and ||out - ref|| / ||ref|| <= norm: outputs are
# rounded once to bf16 (2**-9 relative) and so are the probabilities in p @ v
TOLERANCE = dict(rtol=2e-2, atol=2e-2, norm=1e-2)


@dataclass(frozen=True)
class Config:
    bm: int
    bn: int
    warps: int
    occupancy: int = 0  # > 0: the kernel's occupancy hint (blocks per SM, a shallower ring)

    @property
    def label(self) -> str:
        hint = f"o{self.occupancy}" if self.occupancy else ""
        return f"{self.bm}x{self.bn}w{self.warps}{hint}"


# per head dim, the sample's choice first; ptxas's registers/spills for each are in the dry run
# (128-row blocks of two warpgroups run the key loop on wgmma: passes/staged_loops.py)
CONFIGS = {
    64: tuple(Config(*c) for c in ((128, 128, 8), (128, 64, 8), (128, 32, 8), (64, 64, 8))),
    128: tuple(Config(*c) for c in ((128, 128, 8), (128, 64, 8), (64, 32, 8), (128, 32, 8))),
}


def problem(seq: int, d: int) -> tuple[int, int]:
    """(batch, heads) for a sequence length and head dim."""
    return max(1, TOKENS // seq), max(1, WIDTH // d)


def flops(batch: int, heads: int, seq: int, d: int, causal: bool) -> float:
    full = 4.0 * batch * heads * seq * seq * d
    return full / 2 if causal else full


# ----- Triton: flash attention in the style of its fused-attention tutorial ---------------------


try:
    import triton
    import triton.language as tl
except ImportError:  # no Triton column
    triton = None

if triton is not None:  # Triton resolves the kernels' callees among the module's globals

    @triton.jit
    def triton_attend(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn, lo, hi, rows,
                      seq_k, qk_scale, BN: tl.constexpr, MASKED: tl.constexpr,
                      CAUSAL: tl.constexpr):
        """Key blocks [lo, hi) into the running (acc, l_i, m_i); MASKED ones check bounds and,
        with CAUSAL, the diagonal."""
        offs_n = tl.arange(0, BN)
        for start in range(lo, hi, BN):
            start = tl.multiple_of(start, BN)
            cols = start + offs_n
            if MASKED:
                kt = tl.load(k_ptrs + start * stride_kn, mask=cols[None, :] < seq_k, other=0.0)
            else:
                kt = tl.load(k_ptrs + start * stride_kn)
            s = tl.dot(q, kt) * qk_scale
            if MASKED:
                keep = cols[None, :] < seq_k
                if CAUSAL:
                    keep = keep & (cols[None, :] <= rows[:, None])
                s = tl.where(keep, s, float("-inf"))
            m_new = tl.maximum(m_i, tl.max(s, 1))
            p = tl.math.exp2(s - m_new[:, None])
            alpha = tl.math.exp2(m_i - m_new)
            l_i = l_i * alpha + tl.sum(p, 1)
            if MASKED:
                v = tl.load(v_ptrs + start * stride_vn, mask=cols[:, None] < seq_k, other=0.0)
            else:
                v = tl.load(v_ptrs + start * stride_vn)
            acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
            m_i = m_new
        return acc, l_i, m_i

    @triton.jit
    def triton_attn_fwd(q, k, v, out, qk_scale, heads, seq_q, seq_k,
                        sqb, sqh, sqm, sqd, skb, skh, skn, skd, svb, svh, svn, svd,
                        sob, soh, som, sod, D: tl.constexpr, BM: tl.constexpr,
                        BN: tl.constexpr, CAUSAL: tl.constexpr):
        """Query rows [start_m * BM, +BM) of one (batch, head): unmasked key blocks first,
        then the masked ones (the sequence's end and, with CAUSAL, the diagonal)."""
        start_m = tl.program_id(0)
        bh = tl.program_id(1)
        b, h = bh // heads, bh % heads
        rows = start_m * BM + tl.arange(0, BM)
        offs_d = tl.arange(0, D)
        offs_n = tl.arange(0, BN)
        q_ptrs = q + b * sqb + h * sqh + rows[:, None] * sqm + offs_d[None, :] * sqd
        k_ptrs = k + b * skb + h * skh + offs_d[:, None] * skd + offs_n[None, :] * skn  # k.T
        v_ptrs = v + b * svb + h * svh + offs_n[:, None] * svn + offs_d[None, :] * svd
        qt = tl.load(q_ptrs, mask=rows[:, None] < seq_q, other=0.0)
        m_i = tl.full([BM], float("-inf"), tl.float32)
        l_i = tl.zeros([BM], tl.float32)
        acc = tl.zeros([BM, D], tl.float32)
        if CAUSAL:
            seen = tl.minimum(seq_k, (start_m + 1) * BM)
            full = tl.minimum(seq_k, start_m * BM) // BN * BN
        else:
            seen = seq_k
            full = seq_k // BN * BN
        acc, l_i, m_i = triton_attend(acc, l_i, m_i, qt, k_ptrs, v_ptrs, skn, svn, 0, full,
                                      rows, seq_k, qk_scale, BN, False, CAUSAL)
        acc, l_i, m_i = triton_attend(acc, l_i, m_i, qt, k_ptrs, v_ptrs, skn, svn, full, seen,
                                      rows, seq_k, qk_scale, BN, True, CAUSAL)
        o = acc / l_i[:, None]
        o_ptrs = out + b * sob + h * soh + rows[:, None] * som + offs_d[None, :] * sod
        tl.store(o_ptrs, o.to(out.dtype.element_ty), mask=rows[:, None] < seq_q)


def triton_attention() -> Callable | None:
    """`run(q, k, v, out, causal)` launching the autotuned kernel, or None without Triton. The
    untuned kernel is `run.kernel` (for Triton's CPU interpreter, which cannot autotune)."""
    if triton is None:
        return None

    configs = [triton.Config({"BM": bm, "BN": bn}, num_stages=stages, num_warps=warps)
               for bm, bn, stages, warps in (
                   (128, 64, 3, 8), (128, 64, 4, 8), (128, 128, 3, 8), (128, 128, 2, 8),
                   (128, 64, 3, 4), (128, 32, 4, 4), (64, 64, 4, 4), (64, 32, 4, 4),
                   (64, 128, 3, 4))]
    tuned = triton.autotune(configs=configs, key=["seq_q", "seq_k", "D", "CAUSAL"])(
        triton_attn_fwd)

    def launch(kernel, q, k, v, out, causal: bool, **meta):
        batch, heads, seq_q, d = q.shape

        def grid(meta):
            return triton.cdiv(seq_q, meta["BM"]), batch * heads

        kernel[grid](q, k, v, out, d**-0.5 * attention.LOG2_E, heads, seq_q, k.shape[2],
                     *q.stride(), *k.stride(), *v.stride(), *out.stride(), D=d, CAUSAL=causal,
                     **meta)

    def run(q, k, v, out, causal: bool) -> None:
        launch(tuned, q, k, v, out, causal)

    def chosen() -> str:
        best = getattr(tuned, "best_config", None)
        if best is None:
            return ""
        return f"{best.kwargs['BM']}x{best.kwargs['BN']}w{best.num_warps}s{best.num_stages}"

    run.chosen = chosen
    run.kernel = lambda q, k, v, out, causal, bm=64, bn=32: launch(
        triton_attn_fwd, q, k, v, out, causal, BM=bm, BN=bn)
    return run


# ----- torch SDPA -------------------------------------------------------------------------------


def sdpa_runner(backend: str | None) -> Callable:
    """SDPA forced to `backend` ("cudnn", "flash") or torch's own choice (None)."""
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    forced = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}

    def run(q, k, v, causal: bool):
        if backend is None:
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        with sdpa_kernel([forced[backend]]):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

    return run


def sdpa_choice(q, k, v, causal: bool) -> str:
    """The backend torch's SDPA picks for these inputs (its dispatcher's own answer)."""
    import torch
    from torch.nn.attention import SDPBackend

    names = {int(b): name.lower().removesuffix("_attention")
             for name, b in SDPBackend.__members__.items()}
    try:
        return names.get(int(torch._fused_sdp_choice(q, k, v, is_causal=causal)), "other")
    except Exception:  # a private function: absent in some versions
        return "unknown"


# ----- measuring --------------------------------------------------------------------------------


class Inputs:
    """q, k, v (bf16, unit normal) and a poisoned output buffer."""

    def __init__(self, batch: int, heads: int, seq: int, d: int):
        import torch

        shape = (batch, heads, seq, d)
        self.q, self.k, self.v = (torch.empty(shape, device="cuda", dtype=torch.bfloat16)
                                  for _ in range(3))
        self.out = torch.empty(shape, device="cuda", dtype=torch.bfloat16)
        self.redraw()

    def redraw(self) -> None:
        for t in (self.q, self.k, self.v):
            t.normal_()


def reference(inputs: Inputs, causal: bool):
    """float32 attention, without forming the score matrix where torch can avoid it."""
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    q, k, v = (t.float() for t in (inputs.q, inputs.k, inputs.v))
    with sdpa_kernel([SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)


def check(run: Callable[[], object], inputs: Inputs, causal: bool) -> str | None:
    """None if `run` (returning its output) matches float32 attention on fresh inputs."""
    import torch

    inputs.redraw()
    inputs.out.fill_(float("nan"))
    got = run().float()
    torch.cuda.synchronize()
    return sweep.mismatch(got, reference(inputs, causal), TOLERANCE)


def measure(name: str, run: Callable[[], object], inputs: Inputs, causal: bool, work: float,
            budget_ms: float) -> dict:
    """{"TFLOP/s": ...} or {"status": "wrong" | "error", "why": ...}."""
    return sweep.measure(name, lambda: check(run, inputs, causal),
                           lambda: timed(lambda i: run(), 1, budget_ms), work)


def timing(run: Callable[[], object], budget_ms: float) -> Callable[[], tuple[float, float]]:
    return lambda: timed(lambda i: run(), 1, budget_ms)


def bench_ours(args, inputs: Inputs, d: int, causal: bool, work: float, kernels: dict,
               row: dict, timings: dict) -> list[dict]:
    """The sweep over tile configurations; `timings` gets each one's timing, keyed by (arch,
    label), for the final rounds."""
    import torch

    def measure_config(arch: str, config: Config):
        kern = sweep.kernel_for(kernels, (arch, config), attention.flash_attention, config.warps,
                                config.occupancy or None)
        grid = attention.grid(inputs.q.shape, config.bm)
        params = (inputs.q, inputs.k, inputs.v, inputs.out, d**-0.5, causal, config.bm,
                  config.bn, d)

        def run():
            ct.launch(torch.cuda.current_stream(), grid, kern, params)
            return inputs.out

        timings[arch, config.label] = timing(run, args.budget_ms)
        return measure(f"ours[{arch}] {config.label}", run, inputs, causal, work,
                       args.budget_ms), kern

    return sweep.measure_configs(args, args.configs.get(d, ()), row,
                         {"d": d, "mode": row["mode"], "seq": row["seq"]}, measure_config)


def bench_case(args, seq: int, d: int, causal: bool, kernels: dict, tri) -> tuple[dict, list]:
    import torch

    batch, heads = problem(seq, d)
    torch.manual_seed(seq * 3 + d + causal)
    inputs = Inputs(batch, heads, seq, d)
    work = flops(batch, heads, seq, d, causal)
    mode = "causal" if causal else "full"
    print(f"d={d} {mode} seq {seq} ({batch} x {heads} heads)", flush=True)
    row = {"d": d, "mode": mode, "seq": seq, "batch x heads": f"{batch}x{heads}"}
    config_rows: list = []
    timings: dict = {}
    if "ours" in args.impls:
        config_rows = bench_ours(args, inputs, d, causal, work, kernels, row, timings)
    final = {}  # the final rounds' entries: column -> (result, timing)
    peers = {"sdpa": None, "cudnn": "cudnn", "flash": "flash"}
    for impl, backend in peers.items():
        if impl in args.impls:
            sdpa = sdpa_runner(backend)

            def run_sdpa(sdpa=sdpa):
                return sdpa(inputs.q, inputs.k, inputs.v, causal)

            result = measure(f"SDPA[{backend or 'default'}]", run_sdpa, inputs, causal, work,
                             args.budget_ms)
            row[f"{impl}_result"] = result
            final[impl] = result, timing(run_sdpa, args.budget_ms)
    if "sdpa" in args.impls:
        row["sdpa_backend"] = sdpa_choice(inputs.q, inputs.k, inputs.v, causal)
    if tri is not None:
        def run_triton():
            tri(inputs.q, inputs.k, inputs.v, inputs.out, causal)
            return inputs.out

        row["triton_result"] = measure("Triton", run_triton, inputs, causal, work,
                                       args.budget_ms)
        row["triton_cfg"] = tri.chosen()
        final["Triton"] = row["triton_result"], timing(run_triton, args.budget_ms)
    ours = sweep.final_rounds(args, row, final, timings, work)
    for peer, key in (("cuDNN", "cudnn"), ("flash", "flash"), ("sdpa", "sdpa"),
                      ("Triton", "triton")):
        row[f"ours/{peer}"] = sweep.ratio(ours, row.get(f"{key}_result"))
    row["ours/peak"] = sweep.ratio(ours, {"TFLOP/s": sweep.PEAK_TFLOPS})
    return row, config_rows


def bench(args) -> None:
    import torch

    tri = triton_attention() if "triton" in args.impls else None
    if "triton" in args.impls and tri is None:
        print("triton is not installed: no Triton column")
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}; peak "
          f"{sweep.PEAK_TFLOPS:.0f} TFLOP/s (datasheet)", flush=True)
    kernels: dict = {}  # (arch, config) -> its own Kernel object (own cache and fast path)
    rows, config_rows = [], []
    started = time.perf_counter()
    for d in args.head_dims:
        for mode in args.modes:
            for seq in args.seqs:
                row, per_config = bench_case(args, seq, d, mode == "causal", kernels, tri)
                rows.append(row)
                config_rows += per_config
                print(f"  ours {sweep.brief(row.get(sweep.ours_column(args.arch[0])))}, cuDNN "
                      f"{sweep.brief(row.get('cudnn'))}, flash {sweep.brief(row.get('flash'))}, "
                      f"SDPA {sweep.brief(row.get('sdpa'))} ({row.get('sdpa_backend', '')}), "
                      f"Triton {sweep.brief(row.get('Triton'))} TFLOP/s "
                      f"({time.perf_counter() - started:.0f} s so far)", flush=True)
                torch.cuda.empty_cache()
    sweep.print_compile_time(kernels, started)
    labels = list(dict.fromkeys(c.label for d in args.head_dims for c in args.configs.get(d, ())))
    print("\nEvery tilelang configuration (TFLOP/s):")
    print(table(config_rows, ["d", "mode", "seq", "arch", *labels]))
    cols = ["d", "mode", "seq", "batch x heads", *sweep.ours_columns(args)]
    cols += ["cudnn", "flash", "sdpa", "sdpa_backend", "Triton", "triton_cfg", "ours/cuDNN",
             "ours/flash", "ours/Triton", "ours/peak"]
    print("\nAttention forward, bf16, TFLOP/s (causal counts half the products; regs / local_B / "
          "smem_B / blocks/SM of the best configuration):")
    print(table(rows, cols))
    save("attention", {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                       "peak_TFLOPs": sweep.PEAK_TFLOPS, "arch": args.arch, "rows": rows,
                       "configs": config_rows})
    plotted = [r for r in rows if r.get("ours/cuDNN") is not None]
    bar_plot("attention", [f"d{r['d']}/{r['mode']}/{r['seq']}" for r in plotted],
             [r["ours/cuDNN"] for r in plotted], "tilelang / cuDNN SDPA (TFLOP/s)",
             "Attention forward, best tilelang configuration against cuDNN")


# ----- dry run: no GPU --------------------------------------------------------------------------


def interpreter_check(config: Config, d: int, causal: bool) -> str:
    """The sample's kernel on the CPU interpreter at an awkward length, against float64."""
    seq = config.bm + config.bn + 13  # a partial block of queries and of keys
    rng = np.random.default_rng(seq + d)
    q, k, v = (rng.standard_normal((1, 2, seq, d)).astype(ml_dtypes.bfloat16) for _ in range(3))
    out = np.full(q.shape, np.nan, ml_dtypes.bfloat16)
    kern = attention.flash_attention.replace_hints(num_warps=config.warps, interpret=True)
    ct.launch(None, attention.grid(q.shape, config.bm), kern,
              (q, k, v, out, d**-0.5, causal, config.bm, config.bn, d))
    return sweep.interpreted(out, attention.reference(q, k, v, d**-0.5, causal), TOLERANCE)


def dry_run(args) -> None:
    """Compile every configuration for every head dim, mode and arch with NumPy stand-ins (the
    specializations the GPU run launches: the signature holds dtypes and alignment, not
    shapes), print ptxas's resource report, and run each once on the interpreter."""
    print(f"seqs {','.join(map(str, args.seqs))}; head dims {','.join(map(str, args.head_dims))}"
          f"; modes {','.join(args.modes)}; arch {','.join(args.arch)}; impls "
          f"{','.join(args.impls)}")
    rows = []
    for arch in args.arch:
        target_arch = sweep.DRY_RUN_NATIVE if arch == sweep.NATIVE else arch
        for d in args.head_dims:
            for mode in args.modes:
                for config in args.configs.get(d, ()):
                    rows.append(dry_run_config(target_arch, d, mode, config,
                                               interpret=arch == args.arch[0]))
    print(table(rows, ["arch", "d", "mode", "config", *sweep.DRY_RUN_COLUMNS]))
    tri = "triton" in args.impls and triton_attention()
    print("Triton kernel:", dry_run_triton(tri) if tri else
          "not checked (triton is not installed)")


def dry_run_config(arch: str, d: int, mode: str, config: Config, interpret: bool) -> dict:
    q = np.zeros((2, 4, 1000, d), ml_dtypes.bfloat16)
    causal = mode == "causal"
    return sweep.dry_run_row(
        f"{arch} d={d} {mode} {config.label}",
        {"arch": arch, "d": d, "mode": mode, "config": config.label},
        lambda: ct.compile(
            attention.flash_attention.replace_hints(occupancy=config.occupancy or None),
            (q, q.copy(), q.copy(), q.copy(), d**-0.5, causal, config.bm, config.bn, d),
            arch=arch, num_warps=config.warps),
        (lambda: interpreter_check(config, d, causal)) if interpret else None)


def dry_run_triton(tri) -> str:
    """Under Triton's CPU interpreter (TRITON_INTERPRET=1 before the run), the untuned kernel
    on awkward lengths against float64; otherwise only that it was defined. float16 inputs:
    the interpreter computes through NumPy, which has no bfloat16 (bf16 comes out garbled)."""
    import os

    if os.environ.get("TRITON_INTERPRET") != "1":
        return "defined (set TRITON_INTERPRET=1 to run it on the CPU interpreter)"
    import torch

    results = []
    for d, causal, seq_q, seq_k in ((64, False, 77, 77), (64, True, 77, 77), (128, True, 50, 50),
                                    (128, False, 40, 90)):
        gen = torch.Generator().manual_seed(seq_q + d)
        q = torch.randn(1, 2, seq_q, d, generator=gen).half()
        k, v = (torch.randn(1, 2, seq_k, d, generator=gen).half() for _ in range(2))
        out = torch.full_like(q, float("nan"))
        tri.kernel(q, k, v, out, causal)
        want = attention.reference(*(t.float().numpy() for t in (q, k, v)), d**-0.5, causal)
        good = np.allclose(out.float().numpy(), want, rtol=TOLERANCE["rtol"],
                           atol=TOLERANCE["atol"])
        results.append(f"d={d}{' causal' if causal else ''} {seq_q}x{seq_k} "
                       f"{'ok' if good else 'WRONG'}")
    return "interpreted (float16): " + ", ".join(results)


# ----- command line -----------------------------------------------------------------------------


def parse_ints(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(s) for s in text.split(",") if s.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: comma-separated integers") from None
    if not values or min(values) <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: positive integers")
    return values


def parse_configs(text: str) -> dict[int, tuple[Config, ...]]:
    """'all' or BMxBNwW[oO] (warps default 4; oO: the occupancy hint), comma-separated, the
    same for every head dim."""
    if text.strip() == "all":
        return CONFIGS
    configs = []
    for part in text.split(","):
        tile, occupancy = re.fullmatch(r"(.+?)(?:o(\d+))?", part.strip()).groups()
        (bm, bn, warps), = sweep.parse_tiles(tile, 2, "BMxBNwW[oO]", "64x32w8")
        configs.append(Config(bm, bn, warps, int(occupancy or 0)))
    return {d: tuple(configs) for d in HEAD_DIMS}


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seqs", type=parse_ints, default=SEQS,
                        help=f"sequence lengths (default {','.join(map(str, SEQS))})")
    parser.add_argument("--head-dims", type=parse_ints, default=HEAD_DIMS)
    parser.add_argument("--modes", type=sweep.parse_list(MODES), default=MODES)
    parser.add_argument("--configs", type=parse_configs, default=CONFIGS,
                        help="tilelang tiles BMxBNwW for every head dim (default: per head dim, "
                             + "; ".join(f"d={d}: " + ",".join(c.label for c in cs)
                                         for d, cs in CONFIGS.items()) + ")")
    sweep.add_arguments(parser, IMPLS, quick="seq 4096, d=128, causal and not")
    args = parser.parse_args(argv)
    bad = [d for d in args.head_dims if d not in CONFIGS]
    if bad:
        parser.error(f"head dims {bad}: choose from {sorted(CONFIGS)}")
    if args.quick:
        args.seqs, args.head_dims = QUICK_SEQS, QUICK_HEAD_DIMS
    return args


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    (dry_run if args.dry_run else bench)(args)


if __name__ == "__main__":
    main()
