"""Accuracy study: how exactly fp8 products are accumulated, tilelang against cuBLASLt.

cuTile's BatchMatMul sample compares its float8 product with `torch._scaled_mm` at 1e-5 and
fails through tilelang. This measures why: each implementation's float32 result against the
exact (float64) product of the same quantized values, at growing K. tilelang's kernel is
samples/fp8_gemm.py with a float32 output (wgmma fp8, each K tile's products added to a float32
accumulator; wgmma's own accumulation with TILELANG_FP8_ACCUMULATION=fast); the peers
are `torch._scaled_mm` with cuBLASLt's precise accumulation (`use_fast_accum=False`, the
default) and its fast one. Printed: the largest error relative to the largest result, the
root-mean-square error relative to the results' RMS, and the share of elements two
implementations agree on within the sample's tolerance (|x - y| <= 1e-5 + 1e-5 |y|).

    python benchmarks/fp8_accuracy.py [--ks 256,4096,16384] [--mn 2048]
    TILELANG_FP8_ACCUMULATION=fast python benchmarks/fp8_accuracy.py
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from common import bar_plot, save, table

import tilelang as ct

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "samples"))
from fp8_gemm import E4M3_MAX, fp8_gemm

TOLERANCE = 1e-5  # the sample's atol and rtol


def errors(result, exact) -> dict[str, float]:
    diff = (result.double() - exact).abs()
    return {"max_rel": float(diff.max() / exact.abs().max()),
            "rms_rel": float(diff.square().mean().sqrt() / exact.square().mean().sqrt())}


def agreement(x, y) -> float:
    return float(((x - y).abs() <= TOLERANCE + TOLERANCE * y.abs()).double().mean())


def measure(mn: int, k: int, seed: int) -> list[dict]:
    import torch

    gen = torch.Generator(device="cuda").manual_seed(seed)

    def quantized(rows: int):
        x = torch.randn(rows, k, device="cuda", generator=gen) / math.sqrt(k)
        scale = (x.abs().max() / E4M3_MAX).reshape(1).float()
        return (x / scale).to(torch.float8_e4m3fn), scale

    (a, sa), (b, sb) = quantized(mn), quantized(mn)
    exact = (a.double() * sa.double()) @ (b.double() * sb.double()).T
    ours = torch.full((mn, mn), float("nan"), device="cuda")
    grid = (math.ceil(mn / 128), math.ceil(mn / 128), 1)
    ct.launch(torch.cuda.current_stream(), grid, fp8_gemm, (a, b, sa, sb, ours, 128, 128, 128))
    precise = torch._scaled_mm(a, b.T, sa, sb, out_dtype=torch.float32, use_fast_accum=False)
    fast = torch._scaled_mm(a, b.T, sa, sb, out_dtype=torch.float32, use_fast_accum=True)
    torch.cuda.synchronize()
    assert not ours.isnan().any(), "tilelang left elements unwritten"
    rows = []
    mode = "fast" if ct.settings.fp8_fast_accumulation() else "precise"
    for label, result in ((f"tilelang {mode}", ours), ("_scaled_mm precise", precise),
                          ("_scaled_mm fast", fast)):
        rows.append({"shape": f"{mn}x{mn}x{k}", "impl": label, **errors(result, exact),
                     "agrees with precise": agreement(result, precise)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ks", default="256,4096,16384")
    parser.add_argument("--mn", type=int, default=2048)
    args = parser.parse_args()
    rows = [r for k in map(int, args.ks.split(",")) for r in measure(args.mn, k, seed=k)]
    print(table(rows, ["shape", "impl", "max_rel", "rms_rel", "agrees with precise"]))
    print(f"results: {save('fp8_accuracy', {'rows': rows})}")
    bar_plot("fp8_accuracy", [f"{r['shape'].rsplit('x', 1)[1]} {r['impl']}" for r in rows],
             [r["rms_rel"] for r in rows], "RMS error / RMS result",
             "fp8 GEMM accumulation error against the exact product")


if __name__ == "__main__":
    main()
