"""Benchmark: fp8 GEMM with per-tensor scales, out = (a @ b.T) * scale_a * scale_b in bfloat16.

tilelang's kernel is samples/fp8_gemm.py as a user writes it: a (M, K) and b (N, K) in
float8_e4m3fn (b stored K-contiguous, as torch._scaled_mm wants it), float32 accumulation over
the K loop, the scales applied in the epilogue. On sm_90 the loop runs on wgmma's fp8 shapes
(m64nNk32) with both operands staged K-major. `--layouts nk,kn` also times the same product
with b stored (K, N) (`fp8_gemm_kn` below, plain loads: cuTile's matmul layout), whose tiles
wgmma can only read after a transpose in shared memory. Each K tile's products are promoted to
float32 (docs/language.md, "fp8 accumulation"); run with TILELANG_FP8_ACCUMULATION=fast for
wgmma's own accumulation (the mode is recorded with the results). Peer: `torch._scaled_mm`
(cuBLASLt, precise accumulation, b in its (N, K) layout). Every implementation is checked
against a float32 product of the quantized values on fresh random inputs, with the output
poisoned (NaN) first; timings are CUDA-event medians of graph replays.

    python benchmarks/bench_fp8_matmul.py [--shapes 4096,8192] [--configs 128x128x128w8,...]
        [--layouts nk,kn]
    python benchmarks/bench_fp8_matmul.py --dry-run   # no GPU: compile every config
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import sweep
from common import bar_plot, save, table, timed

import tilelang as ct

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "samples"))
from fp8_gemm import fp8_gemm

CONFIGS = ((128, 128, 128, 8), (128, 256, 128, 8), (256, 128, 128, 8), (64, 256, 128, 4))
LAYOUTS = ("nk", "kn")  # how b is stored: (N, K) as torch wants it, or (K, N)


@ct.kernel(num_warps=8)
def fp8_gemm_kn(a, b, scale_a, scale_b, out, BM: ct.Constant[int], BN: ct.Constant[int],
                BK: ct.Constant[int]):
    """samples/fp8_gemm.py's product with b stored (K, N): its tiles loaded as they are."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
        x = ct.load(a, index=(i, k), shape=(BM, BK), padding_mode=ct.PaddingMode.ZERO)
        w = ct.load(b, index=(k, j), shape=(BK, BN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(x, w, acc)
    scale = ct.gather(scale_a, 0) * ct.gather(scale_b, 0)
    ct.store(out, index=(i, j), tile=(acc * scale).astype(out.dtype))


KERNELS = {"nk": fp8_gemm, "kn": fp8_gemm_kn}


def accumulation() -> str:
    return "fast" if ct.settings.fp8_fast_accumulation() else "precise"
SHAPES = ((4096, 4096, 4096), (8192, 8192, 8192))
TOLERANCE = dict(rtol=2e-2, atol=2e-2, norm=1e-2)
PEAK_FP8 = 1979.0  # H100 SXM dense fp8 TFLOP/s (datasheet)


def inputs(m: int, n: int, k: int):
    import torch

    a = (torch.randn(m, k, device="cuda") / k**0.5).to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn)
    scale_a = torch.full((1,), 0.5, device="cuda")
    scale_b = torch.full((1,), 0.25, device="cuda")
    out = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    return a, b, scale_a, scale_b, out


def bench_shape(m: int, n: int, k: int, configs, layouts=("nk",)) -> tuple[dict, list[dict]]:
    import torch

    a, b, sa, sb, out = inputs(m, n, k)
    operands = {"nk": b, "kn": b.T.contiguous() if "kn" in layouts else None}
    want = (a.float() @ b.float().T) * 0.125
    flops = 2.0 * m * n * k

    def measure(name, run):
        def check():
            out.fill_(float("nan"))
            run()
            torch.cuda.synchronize()
            return sweep.mismatch(out.float(), want, TOLERANCE)

        return sweep.measure(name, check, lambda: timed(lambda i: run(), 1, 200), flops)

    rows = []
    for layout in layouts:
        for bm, bn, bk, warps in configs:
            kernel = KERNELS[layout].replace_hints(num_warps=warps)
            grid = (ct.cdiv(m, bm), ct.cdiv(n, bn))
            label = f"{bm}x{bn}x{bk}w{warps}" + ("" if layout == "nk" else " b(K,N)")
            result = measure(f"ours {label}", lambda kernel=kernel, grid=grid, t=(
                bm, bn, bk), w=operands[layout]: ct.launch(torch.cuda.current_stream(), grid,
                                                         kernel, (a, w, sa, sb, out, *t)))
            rows.append({"config": label, "layout": layout, **result})
    ours = max((r for r in rows if "TFLOP/s" in r and r["layout"] == layouts[0]),
               key=lambda r: r["TFLOP/s"], default=None)

    def scaled_mm():
        torch._scaled_mm(a, b.T, sa, sb, out_dtype=torch.bfloat16, out=out)

    peer = measure("torch._scaled_mm", scaled_mm)
    row = {"shape": f"{m}x{n}x{k}", "accumulation": accumulation(), "ours": sweep.shown(ours),
           "ours_cfg": ours["config"] if ours else None, "scaled_mm": sweep.shown(peer),
           "ours/scaled_mm": sweep.ratio(ours, peer), "ours/peak": (
               ours["TFLOP/s"] / PEAK_FP8 if ours else None)}
    print(f"{row['shape']}: ours {sweep.brief(row['ours'])} ({row['ours_cfg']}), "
          f"_scaled_mm {sweep.brief(row['scaled_mm'])} TFLOP/s", flush=True)
    return row, rows


def dry_run(configs, layouts=("nk",)) -> None:
    a = np.zeros((512, 512), ml_dtypes.float8_e4m3fn)
    s = np.ones(1, np.float32)
    out = np.zeros((512, 512), ml_dtypes.bfloat16)
    for layout in layouts:
        for bm, bn, bk, warps in configs:
            ck = ct.compile(KERNELS[layout], (a, a, s, s, out, bm, bn, bk), arch="sm_90",
                            num_warps=warps)
            print(f"{layout} {bm}x{bn}x{bk}w{warps} ({accumulation()}): {ck.resources()}; "
                  f"{sweep.ptx_summary(ck.ptx)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shapes", default=None, help="comma-separated M (square) or MxNxK")
    parser.add_argument("--configs", default=None, help="BMxBNxBKwW, comma-separated")
    parser.add_argument("--layouts", default="nk",
                        help="how b is stored, comma-separated: nk (torch's) and/or kn; "
                             "the first is the one compared with _scaled_mm")
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args()
    configs = tuple(sweep.parse_tiles(args.configs, 3, "BMxBNxBKwW", "128x128x128w8")) \
        if args.configs else CONFIGS
    layouts = tuple(args.layouts.split(","))
    if not set(layouts) <= set(LAYOUTS):
        parser.error(f"--layouts: from {','.join(LAYOUTS)}, got {args.layouts!r}")
    if args.dry_run:
        dry_run(configs, layouts)
        return
    shapes = SHAPES if not args.shapes else tuple(
        tuple(int(x) for x in s.split("x")) if "x" in s else (int(s),) * 3
        for s in args.shapes.split(","))
    rows, every = [], []
    for m, n, k in shapes:
        row, config_rows = bench_shape(m, n, k, configs, layouts)
        rows.append(row)
        every += [{"shape": row["shape"], **r} for r in config_rows]
    print(table(every, ["shape", "config", "TFLOP/s", "status"]))
    print(f"\nfp8 e4m3 GEMM, bf16 out, {accumulation()} accumulation, TFLOP/s:")
    print(table(rows, ["shape", "ours", "ours_cfg", "scaled_mm", "ours/scaled_mm", "ours/peak"]))
    save("fp8_matmul", {"rows": rows, "configs": every})
    bar_plot("fp8_matmul", [f"{r['shape']} {w}" for r in rows for w in ("ours", "scaled_mm")],
             [r[w] if isinstance(r[w], float) else 0.0 for r in rows
              for w in ("ours", "scaled_mm")], "TFLOP/s", "fp8 GEMM (H100)")


if __name__ == "__main__":
    main()
