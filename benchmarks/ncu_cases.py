"""Benchmarks: one launch of a kernel that misses its target, and of its peer, between
cudaProfilerStart/Stop, for Nsight Compute (`ncu --profile-from-start off`), after warm-up
launches (compilation, autotuning). Cases: attn_ours / attn_cudnn (flash attention bf16 d=128,
seq 4096, 4 x 16 heads, not causal; ours at 128x128 with 8 warps), gemm_ours / gemm_cublas (bf16
4096^3; ours at 128x256x64 with 8 warps), softmax_ours / softmax_triton (bf16 rows of 65536,
2^28 elements; ours looped B=8192 w=16, Triton's tutorial kernel with 16 warps), lnbwd_ours
(layer-norm backward, bf16 rows of 4096, 2^28 elements, R=1 B=4096 w=16 over 132 blocks),
lnbwdsplit_ours (the same, rows of 16384 split across blocks: chunks of 4096, 8 warps),
lnfwd_ours / rms_ours (the looped layer norm and RMS norm forward, bf16 rows of 65536: their
best configurations, B=8192 w=32 one block per SM and B=16384 w=32 a block per row),
decode_ours / decode_triton (bf16 16 x 14336 x 4096, the memory-bound decode shape: ours at
64x128x64 with 4 warps and two blocks per SM, Triton's autotuned kernel from bench_matmul).
benchmarks/README.md ("Profiles") gives the ncu command and the figures.

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

CASES = ("attn_ours", "attn_cudnn", "gemm_ours", "gemm_cublas", "softmax_ours",
         "softmax_triton", "lnbwd_ours", "lnbwdsplit_ours", "lnfwd_ours", "rms_ours", "decode_ours",
         "decode_triton")
ELEMENTS = 1 << 28  # bench_reductions.py's inputs


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


def decode_case(ours: bool) -> Callable[[], None]:
    m, n, k = 16, 14336, 4096
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    if not ours:
        gemm = bench_matmul.triton_matmul()
        return lambda: gemm(a, b, c)
    config = bench_matmul.Config(64, 128, 64, 4, occupancy=2)
    kernel = bench_matmul.matmul.replace_hints(num_warps=4, occupancy=2)
    return lambda: ct.launch(torch.cuda.current_stream(), bench_matmul.grid(m, n, config),
                             kernel, bench_matmul.launch_args(a, b, c, config))


def softmax_case(ours: bool) -> Callable[[], None]:
    import bench_reductions
    from softmax import softmax_looped

    n = 65536
    x = torch.randn(ELEMENTS // n, n, device="cuda", dtype=torch.bfloat16)
    y = torch.empty_like(x)
    rows = x.shape[0]
    if ours:
        kernel = softmax_looped.replace_hints(num_warps=16)
        return lambda: ct.launch(torch.cuda.current_stream(), (rows,), kernel, (x, y, 8192))
    triton = bench_reductions.triton_kernels()["softmax"]
    return lambda: triton[(rows,)](x, y, n, BLOCK=n, num_warps=16)


def layer_norm_backward_case(ours: bool, split: bool = False) -> Callable[[], None]:
    from layer_norm import Backward, backward, split_backward

    n = 16384 if split else 4096
    x = torch.randn(ELEMENTS // n, n, device="cuda", dtype=torch.bfloat16)
    rows = x.shape[0]
    w = torch.randn(n, device="cuda", dtype=x.dtype)
    dy, dx = torch.randn_like(x), torch.empty_like(x)
    dw, db = torch.empty_like(w), torch.empty_like(w)
    mean = x.float().mean(1)
    rstd = torch.rsqrt(x.float().var(1, unbiased=False) + 1e-5)
    plan = split_backward(rows, n, (4096, 8, 1)) if split else Backward("rows", 1, 4096, 16, 132)
    scratch = {k: torch.empty(s, device="cuda") for k, s in plan.scratch(rows, n).items()}
    if split:
        from _split_rows import Workspace

        scratch["exchange"] = Workspace.for_rows(rows, n, plan.a, 2)
    return lambda: backward(torch.cuda.current_stream(), dy, x, w, mean, rstd, dx, dw, db, plan,
                            scratch)


def norm_forward_case(layer_norm: bool) -> Callable[[], None]:
    from layer_norm import layer_norm_fwd_looped
    from rms_norm import rms_norm_looped

    n = 65536
    x = torch.randn(ELEMENTS // n, n, device="cuda", dtype=torch.bfloat16)
    rows = x.shape[0]
    w, b = (torch.randn(n, device="cuda", dtype=x.dtype) for _ in range(2))
    y = torch.empty_like(x)
    stream = torch.cuda.current_stream()
    if layer_norm:
        mean, rstd = (torch.empty(rows, device="cuda") for _ in range(2))
        kernel = layer_norm_fwd_looped.replace_hints(num_warps=32)
        sms = torch.cuda.get_device_properties(0).multi_processor_count
        return lambda: ct.launch(stream, (sms,), kernel, (x, w, b, y, mean, rstd, 1e-5, 8192))
    kernel = rms_norm_looped.replace_hints(num_warps=32)
    return lambda: ct.launch(stream, (rows,), kernel, (x, w, y, 1e-5, 16384))


def main() -> None:
    case = sys.argv[1] if len(sys.argv) > 1 else ""
    if case not in CASES:
        raise SystemExit(f"usage: ncu_cases.py {{{','.join(CASES)}}}")
    torch.manual_seed(0)
    make = {"attn": attention_case, "gemm": gemm_case, "softmax": softmax_case,
            "lnbwd": layer_norm_backward_case, "lnfwd": norm_forward_case,
            "lnbwdsplit": lambda ours: layer_norm_backward_case(ours, split=True),
            "rms": norm_forward_case, "decode": decode_case}[case.split("_")[0]]
    run = make(case.startswith("lnfwd") if make is norm_forward_case else case.endswith("ours"))
    for _ in range(3):
        run()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    run()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()


if __name__ == "__main__":
    main()
