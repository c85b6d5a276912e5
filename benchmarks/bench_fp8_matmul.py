"""Benchmark: fp8 GEMM with per-tensor scales, out = (a @ b.T) * scale_a * scale_b in bfloat16.

tilelang's kernel is samples/fp8_gemm.py as a user writes it: a (M, K) and b (N, K) in
float8_e4m3fn (b stored K-contiguous, as torch._scaled_mm wants it), float32 accumulation over
the K loop, the scales applied in the epilogue. On sm_90 the loop runs on wgmma's fp8 shapes
(m64nNk32) with both operands staged K-major. Peer: `torch._scaled_mm` (cuBLASLt). Every
implementation is checked against a float32 product of the quantized values on fresh random
inputs, with the output poisoned (NaN) first; timings are CUDA-event medians of graph replays.

    python benchmarks/bench_fp8_matmul.py [--shapes 4096,8192] [--configs 128x128x128w8,...]
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


def bench_shape(m: int, n: int, k: int, configs) -> tuple[dict, list[dict]]:
    import torch

    a, b, sa, sb, out = inputs(m, n, k)
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
    for bm, bn, bk, warps in configs:
        kernel = fp8_gemm.replace_hints(num_warps=warps)
        grid = (ct.cdiv(m, bm), ct.cdiv(n, bn))
        result = measure(f"ours {bm}x{bn}x{bk}w{warps}", lambda kernel=kernel, grid=grid, t=(
            bm, bn, bk): ct.launch(torch.cuda.current_stream(), grid, kernel,
                                   (a, b, sa, sb, out, *t)))
        rows.append({"config": f"{bm}x{bn}x{bk}w{warps}", **result})
    ours = max((r for r in rows if "TFLOP/s" in r), key=lambda r: r["TFLOP/s"], default=None)

    def scaled_mm():
        torch._scaled_mm(a, b.T, sa, sb, out_dtype=torch.bfloat16, out=out)

    peer = measure("torch._scaled_mm", scaled_mm)
    row = {"shape": f"{m}x{n}x{k}", "ours": sweep.shown(ours),
           "ours_cfg": ours["config"] if ours else None, "scaled_mm": sweep.shown(peer),
           "ours/scaled_mm": sweep.ratio(ours, peer), "ours/peak": (
               ours["TFLOP/s"] / PEAK_FP8 if ours else None)}
    print(f"{row['shape']}: ours {sweep.brief(row['ours'])} ({row['ours_cfg']}), "
          f"_scaled_mm {sweep.brief(row['scaled_mm'])} TFLOP/s", flush=True)
    return row, rows


def dry_run(configs) -> None:
    a = np.zeros((512, 512), ml_dtypes.float8_e4m3fn)
    s = np.ones(1, np.float32)
    out = np.zeros((512, 512), ml_dtypes.bfloat16)
    for bm, bn, bk, warps in configs:
        ck = ct.compile(fp8_gemm, (a, a, s, s, out, bm, bn, bk), arch="sm_90", num_warps=warps)
        print(f"{bm}x{bn}x{bk}w{warps}: {ck.resources()}; {sweep.ptx_summary(ck.ptx)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shapes", default=None, help="comma-separated M (square) or MxNxK")
    parser.add_argument("--configs", default=None, help="BMxBNxBKwW, comma-separated")
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args()
    configs = tuple(sweep.parse_tiles(args.configs, 3, "BMxBNxBKwW", "128x128x128w8")) \
        if args.configs else CONFIGS
    if args.dry_run:
        dry_run(configs)
        return
    shapes = SHAPES if not args.shapes else tuple(
        tuple(int(x) for x in s.split("x")) if "x" in s else (int(s),) * 3
        for s in args.shapes.split(","))
    rows, every = [], []
    for m, n, k in shapes:
        row, config_rows = bench_shape(m, n, k, configs)
        rows.append(row)
        every += [{"shape": row["shape"], **r} for r in config_rows]
    print(table(every, ["shape", "config", "TFLOP/s", "status"]))
    print("\nfp8 e4m3 GEMM, bf16 out, TFLOP/s:")
    print(table(rows, ["shape", "ours", "ours_cfg", "scaled_mm", "ours/scaled_mm", "ours/peak"]))
    save("fp8_matmul", {"rows": rows, "configs": every})
    bar_plot("fp8_matmul", [f"{r['shape']} {w}" for r in rows for w in ("ours", "scaled_mm")],
             [r[w] if isinstance(r[w], float) else 0.0 for r in rows
              for w in ("ours", "scaled_mm")], "TFLOP/s", "fp8 GEMM (H100)")


if __name__ == "__main__":
    main()
