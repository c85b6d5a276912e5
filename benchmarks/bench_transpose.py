"""Benchmark: 2-d transpose out = x.T (a layout conversion through shared memory per tile),
fp32 and bf16, square and skinny matrices of 2^26 elements.

Reported as GB/s (one read and one write of the matrix over the median device time) and as a
fraction of the device-to-device copy bandwidth measured in the same run, next to torch eager
(`x.t().contiguous()`), torch.compile (Inductor) and a tiled Triton kernel written here in the
style of its tutorials. Each result is checked against torch with the output poisoned first;
tile shapes and warp counts are swept for tilelang and Triton alike and the best is reported.
    python benchmarks/bench_transpose.py [--dtypes fp32,bf16]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch
from common import bar_plot, copy_bandwidth, device_ms, save, table

import tilelang as ct

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "samples"))
from transpose import transpose

SHAPES = ((8192, 8192), (16384, 4096), (4096, 16384), (8191, 8193))
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}
TILES = ((32, 32, 4), (64, 64, 4), (64, 64, 8), (32, 128, 4), (128, 32, 4), (128, 64, 8))



def triton_transpose():
    import triton
    import triton.language as tl

    @triton.jit
    def kernel(x, y, m, n, BM: tl.constexpr, BN: tl.constexpr):
        rows = tl.program_id(0) * BM + tl.arange(0, BM)[:, None]
        cols = tl.program_id(1) * BN + tl.arange(0, BN)[None, :]
        mask = (rows < m) & (cols < n)
        t = tl.load(x + rows.to(tl.int64) * n + cols, mask=mask)
        tl.store(y + cols.to(tl.int64) * m + rows, t, mask=mask)

    def configs(x, y):
        m, n = x.shape
        for bm, bn, warps in TILES:
            grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))
            yield f"{bm}x{bn},w={warps}", lambda g=grid, a=bm, b=bn, w=warps: kernel[g](
                x, y, m, n, BM=a, BN=b, num_warps=w)

    return configs


def implementations(x, y, tri):
    m, n = x.shape
    stream = torch.cuda.current_stream()
    ours = []
    for bm, bn, warps in TILES:
        k = transpose.replace_hints(num_warps=warps)
        ours.append((f"{bm}x{bn},w={warps}", lambda k=k, a=bm, b=bn: ct.launch(
            stream, (ct.cdiv(m, a), ct.cdiv(n, b)), k, (x, y, a, b)), k))
    compiled = torch.compile(lambda t: t.t().contiguous())
    impls = {"tilelang": ours, "torch": [("t().contiguous()", lambda: x.t().contiguous())],
             "inductor": [("compile", lambda: compiled(x))]}
    checks = {"torch": lambda: x.t().contiguous(), "inductor": lambda: compiled(x)}
    if tri:
        impls["triton"] = list(tri(x, y))
    return impls, checks


def measure(x, impls, checks, out) -> list[dict]:
    want = x.t().contiguous()
    rows = []
    for name, configs in impls.items():
        best = None
        for label, fn, *_ in configs:
            out.fill_(float("nan"))
            fn()
            torch.cuda.synchronize()
            got = checks[name]() if name in checks else out
            torch.testing.assert_close(got, want, rtol=0, atol=0,
                                       msg=lambda msg, n=name, lb=label: f"{n} {lb}: {msg}")
            ms, spread = device_ms(fn, warmup=5, repeats=20)
            if best is None or ms < best["ms"]:
                best = {"impl": name, "config": label, "ms": ms, "spread_ms": spread}
        if best is not None:
            best["GB/s"] = 2 * x.numel() * x.element_size() / best["ms"] / 1e6
            rows.append(best)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtypes", default="fp32,bf16")
    args = parser.parse_args()
    try:
        tri = triton_transpose()
    except ImportError:
        tri = None
    peak = copy_bandwidth()
    print(f"device-to-device copy: {peak:.0f} GB/s (read + write)")
    results = []
    for dname in args.dtypes.split(","):
        for m, n in SHAPES:
            torch.manual_seed(m + n)
            x = torch.randn(m, n, device="cuda", dtype=DTYPES[dname])
            out = torch.empty(n, m, device="cuda", dtype=x.dtype)
            rows = measure(x, *implementations(x, out, tri), out)
            ours = next(r["ms"] for r in rows if r["impl"] == "tilelang")
            for r in rows:
                r.update(dtype=dname, shape=f"{m}x{n}", of_copy=r["GB/s"] / peak,
                         vs_ours=r["ms"] / ours)
            results += rows
    cols = ["dtype", "shape", "impl", "config", "ms", "GB/s", "of_copy", "vs_ours"]
    print(table(results, cols))
    save("transpose", {"device": torch.cuda.get_device_name(), "copy_GBps": peak,
                       "rows": results})
    bar_plot("transpose", [f"{r['dtype']}/{r['shape']}/{r['impl']}" for r in results],
             [r["of_copy"] for r in results], "fraction of copy bandwidth", "2-d transpose")


if __name__ == "__main__":
    main()
