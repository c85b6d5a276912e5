"""Benchmarks: one launch of a kernel that misses its target, and of its peer, between
cudaProfilerStart/Stop, for Nsight Compute (`ncu --profile-from-start off`), after warm-up
launches (compilation, autotuning). Cases: attn_ours / attn_cudnn (flash attention bf16 d=128,
seq 4096, 4 x 16 heads, not causal; ours at 128x128 with 8 warps), gemm_ours / gemm_cublas (bf16
4096^3; ours at 128x256x64 with 8 warps). benchmarks/README.md ("Profiles") gives the ncu
command and the figures.

    python3 benchmarks/ncu_cases.py attn_ours     # under ncu, see the README
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "samples"))
import attention
import bench_matmul

import tilelang as ct

CASES = ("attn_ours", "attn_cudnn", "gemm_ours", "gemm_cublas")


def attention_case(ours: bool) -> Callable[[], None]:
    q, k, v = (torch.randn(4, 16, 4096, 128, device="cuda", dtype=torch.bfloat16)
               for _ in range(3))
    out = torch.empty_like(q)
    if ours:
        return lambda: attention.launch_attention(torch.cuda.current_stream(), q, k, v, out,
                                                  False, (128, 128), 8)
    from torch.nn.attention import SDPBackend, sdpa_kernel

    def cudnn() -> None:
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            torch.nn.functional.scaled_dot_product_attention(q, k, v)

    return cudnn


def gemm_case(ours: bool) -> Callable[[], None]:
    n = 4096
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
    if not ours:
        return lambda: torch.matmul(a, b, out=c)
    config = bench_matmul.Config(128, 256, 64, 8)
    kernel = bench_matmul.matmul.replace_hints(num_warps=8)
    return lambda: ct.launch(torch.cuda.current_stream(), bench_matmul.grid(n, n, config),
                             kernel, bench_matmul.launch_args(a, b, c, config))


def main() -> None:
    case = sys.argv[1] if len(sys.argv) > 1 else ""
    if case not in CASES:
        raise SystemExit(f"usage: ncu_cases.py {{{','.join(CASES)}}}")
    torch.manual_seed(0)
    run = (attention_case if case.startswith("attn") else gemm_case)(case.endswith("ours"))
    for _ in range(3):
        run()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    run()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()


if __name__ == "__main__":
    main()
