"""Benchmarks: one launch each of the kernels behind issue 24's misses and of their peers,
between cudaProfilerStart/Stop, for Nsight Compute (`ncu --profile-from-start off`), after
three warm-up launches each. cuTile's kernels come unchanged from a checkout (`--cutile`, as
bench_cutile_kernels.py), through the conformance shim (`--shim`). Groups:

- rms: cuTile's static persistent RMS norm (65536x4096 bf16, 2x4096 tiles, one block an SM) on
  4 and 8 warps, its regular kernel (tile 1024), Inductor's kernel of the same math;
- layer_norm: cuTile's layer_norm_fwd (2048x8192 bf16, TILE_N = 1024) and Inductor's;
- group_gemm: cuTile's grouped_matmul_kernel (8 ragged fp16 products, m 256..2048, n = k = 4096,
  128x256x64) and cuBLAS's products, one per group;
- gelu: bench_spellings' GEMM + bias + GELU (`inline`, 128x256x64 on 8 warps, 4096^3 bf16) and
  cuBLASLt's fused epilogue (`torch._addmm_activation(..., use_gelu=True)`);
- fp8: cuTile's matmul_kernel on float8_e4m3fn (8192^3, float32 out) with B given as `w.t()`
  (the layout torch._scaled_mm takes) at 128x128x128 and 128x256x128, and with B given (K, N)
  at 128x128x128; torch._scaled_mm;
- decode: cuTile's fmha_kernel decoding one query row (b8 h32/8 k1024 d128 bf16, GQA) at
  64x64 and 64x128 tiles, occupancy 2, and SDPA's cuDNN kernel.

    ncu --profile-from-start off --csv --page raw --metrics <list> \\
        python3 benchmarks/ncu_cutile.py --groups rms,layer_norm,group_gemm,gelu

benchmarks/README.md (the twenty-fourth session's run) gives the metrics and the figures.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import torch
import torch.nn.functional as F

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_spellings  # noqa: E402
from cutile_common import load_cutile  # noqa: E402

import tilelang  # noqa: E402

Runs = list[Callable[[], object]]


def rms(ns, stream, sms: int) -> Runs:
    m, n = 65536, 4096
    x = torch.rand(m, n, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    y, rstd = torch.empty_like(x), torch.empty(m, device="cuda")
    mod = ns.rms_norm
    runs: Runs = []
    for warps in (4, 8):
        kernel = mod.rms_norm_kernel_static_persistent.replace_hints(num_warps=warps)
        runs.append(lambda k=kernel: tilelang.launch(stream, (sms,), k,
                                                     (x, y, w, 2, 4096, n, 1e-5)))
    runs.append(lambda: tilelang.launch(stream, (m,), mod.rms_norm_kernel,
                                        (x, w, y, rstd, n, 1e-5, 1024)))

    def written_out(x, w):
        r = torch.rsqrt(x.float().square().mean(-1, keepdim=True) + 1e-5)
        return (x.float() * r).to(x.dtype) * w

    compiled = torch.compile(written_out)
    return [*runs, lambda: compiled(x, w)]


def layer_norm(ns, stream, sms: int) -> Runs:
    m, n = 2048, 8192
    x = torch.randn(m, n, device="cuda", dtype=torch.bfloat16) * 0.5 - 2.3
    w, b = (torch.randn(n, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    y = torch.empty_like(x)
    mean, rstd = (torch.empty(m, device="cuda") for _ in range(2))
    compiled = torch.compile(lambda x, w, b: F.layer_norm(x, (n,), w, b, 1e-5))
    return [lambda: tilelang.launch(stream, (m,), ns.layer_norm.layer_norm_fwd,
                                    (x, w, b, y, mean, rstd, 1e-5, 1024)),
            lambda: compiled(x, w, b)]


def group_gemm(ns, stream, sms: int) -> Runs:
    groups = [(m, 4096, 4096) for m in range(256, 2049, 256)]
    a = [torch.randn(m, k, device="cuda", dtype=torch.float16) for m, _, k in groups]
    b = [torch.randn(k, n, device="cuda", dtype=torch.float16) for _, n, k in groups]
    c = [torch.empty(m, n, device="cuda", dtype=torch.float16) for m, n, _ in groups]
    kernel = ns.group_gemm.grouped_matmul_kernel

    def cublas() -> None:
        for x, y, z in zip(a, b, c, strict=True):
            torch.matmul(x, y, out=z)

    return [lambda: tilelang.launch(stream, (sms,), kernel, (a, b, c, sms, 128, 256, 64)),
            cublas]


def gelu(ns, stream, sms: int) -> Runs:
    m = n = k = 4096
    a = torch.randn(m, k, device="cuda").bfloat16()
    b = (torch.randn(k, n, device="cuda") / k**0.5).bfloat16()
    bias = torch.randn(n, device="cuda").bfloat16()
    c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    kernel = bench_spellings.gemm_inline.replace_hints(num_warps=8)
    return [lambda: tilelang.launch(stream, (m // 128, n // 256), kernel,
                                    (a, b, bias, c, 128, 256, 64)),
            lambda: torch._addmm_activation(bias, a, b, use_gelu=True)]


def fp8(ns, stream, sms: int) -> Runs:
    m = n = k = 8192
    a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
    w = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn)
    b_rows = w.t().contiguous()
    c = torch.empty(m, n, device="cuda", dtype=torch.float32)
    one = torch.ones((), device="cuda")
    kernel = ns.matmul.matmul_kernel

    def ours(b, tm: int, tn: int) -> Callable[[], object]:
        grid = (tilelang.cdiv(m, tm) * tilelang.cdiv(n, tn), 1, 1)
        return lambda: tilelang.launch(stream, grid, kernel, (a, b, c, tm, tn, 128))

    return [ours(w.t(), 128, 128), ours(w.t(), 128, 256), ours(b_rows, 128, 128),
            lambda: torch._scaled_mm(a, w.t(), scale_a=one, scale_b=one,
                                     out_dtype=torch.float32)]


def decode(ns, stream, sms: int) -> Runs:
    b, qh, kh, kl, d = 8, 32, 8, 1024, 128
    q = torch.randn(b, qh, 1, d, device="cuda", dtype=torch.bfloat16)
    k, v = (torch.randn(b, kh, kl, d, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    o = torch.empty_like(q)
    kernel = ns.attention.fmha_kernel

    def ours(tm: int, tn: int, occupancy: int) -> Callable[[], object]:
        args = (q, k, v, o, d ** -0.5, kl - 1, d, qh, tm, tn, qh // kh, False, kl % tn == 0)
        hinted = kernel.replace_hints(occupancy=occupancy)
        return lambda: tilelang.launch(stream, (1, b * qh, 1), hinted, args)

    def sdpa() -> object:
        from torch.nn.attention import SDPBackend, sdpa_kernel

        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
            return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)

    return [ours(64, 64, 2), ours(64, 128, 2), sdpa]


GROUPS = {"rms": rms, "layer_norm": layer_norm, "group_gemm": group_gemm, "gelu": gelu,
          "fp8": fp8, "decode": decode}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cutile", type=Path, default=HERE.parent / ".device" / "cutile-src")
    parser.add_argument("--shim", type=Path,
                        default=HERE.parent / ".device" / "conformance" / "shim")
    parser.add_argument("--groups", default=",".join(GROUPS))
    args = parser.parse_args()
    torch.manual_seed(0)
    ns = load_cutile(args.cutile, args.shim)
    stream = torch.cuda.current_stream()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    runs = [r for g in args.groups.split(",") for r in GROUPS[g](ns, stream, sms)]
    for run in runs:
        for _ in range(3):
            run()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    for run in runs:
        run()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()


if __name__ == "__main__":
    main()
