"""Benchmark: memory-bound element-wise kernels at 2^28 elements, against torch and Triton.

Vector add (c = a + b) and the fused SiLU-and-mul activation (out = silu(x[:, :d]) * x[:, d:]),
fp32 and bf16. Reported as GB/s (bytes each kernel must move / median device time) and as a
fraction of the device-to-device copy bandwidth measured in the same run. Each implementation
is checked against torch on fresh random data (outputs poisoned first) before it is timed; the
tile configurations of tilelang and Triton are both swept and the best of each is reported.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
from common import bar_plot, copy_bandwidth, device_ms, save, table

import tilelang as ct

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "samples"))
from silu_and_mul import silu_and_mul
from vector_add import vector_add

N = 1 << 28
# Tile configurations swept for both tilelang and Triton (the best of each is reported).
SILU_CONFIGS = ((1, 1024, 4), (1, 2048, 4), (1, 2048, 8), (2, 1024, 4), (4, 512, 4),
                (4, 1024, 8), (8, 1024, 8), (16, 256, 4), (2, 2048, 8))
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}



def poisoned(like: torch.Tensor) -> torch.Tensor:
    return torch.full_like(like, float("nan"))


def check(out: torch.Tensor, want: torch.Tensor, name: str) -> None:
    if out.isnan().any():
        raise AssertionError(f"{name}: some outputs were never written")
    tol = 1e-2 if out.dtype == torch.bfloat16 else 1e-5
    torch.testing.assert_close(out, want, rtol=tol, atol=tol, msg=name)


# ----- vector add ------------------------------------------------------------------------------


def triton_vector_add():
    import triton
    import triton.language as tl

    @triton.jit
    def kernel(a, b, c, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(c + offs, tl.load(a + offs, mask=mask) + tl.load(b + offs, mask=mask), mask=mask)

    def configs(a, b, c):
        for block, warps in ((1024, 4), (2048, 4), (4096, 8), (8192, 8)):
            yield f"BLOCK={block},warps={warps}", lambda bl=block, w=warps: kernel[
                (triton.cdiv(N, bl),)](a, b, c, N, BLOCK=bl, num_warps=w)

    return configs


def tilelang_vector_add(a, b, c):
    stream = torch.cuda.current_stream()
    for block, warps in ((1024, 4), (2048, 4), (4096, 4), (4096, 8), (8192, 8)):
        k = vector_add.replace_hints(num_warps=warps)
        yield f"BLOCK={block},warps={warps}", lambda k=k, bl=block: ct.launch(
            stream, (ct.cdiv(N, bl),), k, (a, b, c, bl))


def bench_vector_add(dtype: torch.dtype, triton_configs) -> list[dict]:
    a, b = torch.randn(N, device="cuda", dtype=dtype), torch.randn(N, device="cuda", dtype=dtype)
    want = a + b
    bytes_moved = 3 * N * a.element_size()
    impls = {"torch": [("a + b", lambda: torch.add(a, b, out=c))]}
    c = poisoned(a)
    impls["tilelang"] = list(tilelang_vector_add(a, b, c))
    if triton_configs:
        impls["triton"] = list(triton_configs(a, b, c))
    return _run(impls, c, want, bytes_moved)


# ----- SiLU and mul ----------------------------------------------------------------------------


def triton_silu_and_mul():
    import triton
    import triton.language as tl

    @triton.jit
    def kernel(x, out, rows, d, BM: tl.constexpr, BN: tl.constexpr):
        r = tl.program_id(0) * BM + tl.arange(0, BM)[:, None]
        c = tl.program_id(1) * BN + tl.arange(0, BN)[None, :]
        mask = (r < rows) & (c < d)
        g = tl.load(x + r * 2 * d + c, mask=mask).to(tl.float32)
        u = tl.load(x + r * 2 * d + d + c, mask=mask).to(tl.float32)
        y = g / (1.0 + tl.exp(-g)) * u
        tl.store(out + r * d + c, y.to(out.dtype.element_ty), mask=mask)

    def configs(x, out, rows, d):
        for bm, bn, w in SILU_CONFIGS:
            yield f"BM={bm},BN={bn},warps={w}", lambda bm=bm, bn=bn, w=w: kernel[
                (triton.cdiv(rows, bm), triton.cdiv(d, bn))](x, out, rows, d, BM=bm, BN=bn,
                                                               num_warps=w)

    return configs


def tilelang_silu_and_mul(x, out, rows, d):
    stream = torch.cuda.current_stream()
    for bm, bn, w in SILU_CONFIGS:
        k = silu_and_mul.replace_hints(num_warps=w)
        grid = (ct.cdiv(rows, bm), ct.cdiv(d, bn))
        yield f"BM={bm},BN={bn},warps={w}", lambda k=k, g=grid, bm=bm, bn=bn: ct.launch(
            stream, g, k, (x[:, :d], x[:, d:], out, bm, bn))


def bench_silu_and_mul(dtype: torch.dtype, triton_configs) -> list[dict]:
    rows, d = 1 << 14, 1 << 13  # input (rows, 2d) = 2^28 elements, output 2^27
    x = torch.randn(rows, 2 * d, device="cuda", dtype=dtype)
    g, u = x[:, :d].float(), x[:, d:].float()
    want = (torch.nn.functional.silu(g) * u).to(dtype)
    out = poisoned(want)
    bytes_moved = (rows * 2 * d + rows * d) * x.element_size()
    impls = {"torch": [("silu(g) * u", lambda: torch.mul(
        torch.nn.functional.silu(x[:, :d]), x[:, d:], out=out))]}
    impls["tilelang"] = list(tilelang_silu_and_mul(x, out, rows, d))
    if triton_configs:
        impls["triton"] = list(triton_configs(x, out, rows, d))
    return _run(impls, out, want, bytes_moved)


def _run(impls: dict, out: torch.Tensor, want: torch.Tensor, bytes_moved: int) -> list[dict]:
    rows = []
    for name, configs in impls.items():
        best = None
        for label, fn in configs:
            out.fill_(float("nan"))
            fn()
            torch.cuda.synchronize()
            check(out, want, f"{name} {label}")
            ms, spread = device_ms(fn)
            if best is None or ms < best["ms"]:
                best = {"impl": name, "config": label, "ms": ms, "spread_ms": spread}
        best["GB/s"] = bytes_moved / best["ms"] / 1e6
        rows.append(best)
    return rows


def main() -> None:
    try:
        triton_configs = (triton_vector_add(), triton_silu_and_mul())
    except ImportError:
        triton_configs = (None, None)
    peak = copy_bandwidth(N)
    print(f"device-to-device copy: {peak:.0f} GB/s (read + write)")
    results = []
    for bench, name, configs in ((bench_vector_add, "vector_add", triton_configs[0]),
                                 (bench_silu_and_mul, "silu_and_mul", triton_configs[1])):
        for dname, dtype in DTYPES.items():
            rows = bench(dtype, configs)
            ours = next(r["ms"] for r in rows if r["impl"] == "tilelang")
            for r in rows:
                r.update(kernel=name, dtype=dname, of_copy=r["GB/s"] / peak, ours_x=r["ms"] / ours)
            results += rows
    cols = ["kernel", "dtype", "impl", "config", "ms", "spread_ms", "GB/s", "of_copy", "ours_x"]
    print(table(results, cols))
    save("elementwise", {"device": torch.cuda.get_device_name(), "n": N, "copy_GBps": peak,
                         "rows": results})
    bar_plot("elementwise", [f"{r['kernel']}/{r['dtype']}/{r['impl']}" for r in results],
             [r["of_copy"] for r in results], "fraction of copy bandwidth",
             "Element-wise kernels at 2^28 elements")


if __name__ == "__main__":
    main()
