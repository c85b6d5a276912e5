"""Sample: a fused SiLU-and-mul PyTorch op (out = silu(x[..., :d]) * x[..., d:]) in a CUDA graph.

The kernel is samples/silu_and_mul.py's. `tilelang.torch.custom_op` makes it two ops: one that
returns a new tensor, and one that writes a given `out` (declared in `mutates_args`). Both are
captured in a CUDA graph with `torch.cuda.graph` and replayed on new input values, and run under
`torch.compile(mode="reduce-overhead")`, which captures and replays CUDA graphs by itself. On
CPU tensors the ops run on the tilelang interpreter (there are no CUDA graphs to show).
"""

from __future__ import annotations

import argparse

import torch
from _common import gpu_available
from silu_and_mul import silu_and_mul as silu_and_mul_kernel

import tilelang as ct
import tilelang.torch as tlt

BM, BN = 16, 128


def launch(x: torch.Tensor, out: torch.Tensor) -> None:
    """The kernel over 2-d views: rows of x are [gate | up], rows of out are d wide."""
    d = x.shape[-1] // 2
    if x.shape[-1] != 2 * d or out.shape != (*x.shape[:-1], d):
        raise ValueError(f"silu_and_mul: x {tuple(x.shape)} needs an even last dimension and "
                         f"out of shape (..., {d}), got out {tuple(out.shape)}")
    if out.numel() == 0:
        return
    rows = x.reshape(-1, 2 * d)
    tlt.launch((ct.cdiv(rows.shape[0], BM), ct.cdiv(d, BN)), silu_and_mul_kernel,
               (rows[:, :d], rows[:, d:], out.view(-1, d), BM, BN))


@tlt.custom_op("tilelang_samples::silu_and_mul", mutates_args=())
def silu_and_mul(x: torch.Tensor) -> torch.Tensor:
    out = x.new_empty((*x.shape[:-1], x.shape[-1] // 2))
    launch(x, out)
    return out


@tlt.custom_op("tilelang_samples::silu_and_mul_out", mutates_args=("out",))
def silu_and_mul_out(x: torch.Tensor, out: torch.Tensor) -> None:
    launch(x, out)


def reference(x: torch.Tensor) -> torch.Tensor:
    gate, up = x.float().chunk(2, dim=-1)
    return (torch.nn.functional.silu(gate) * up).to(x.dtype)


def tolerance(dtype: torch.dtype) -> float:
    return 2e-2 if dtype in (torch.bfloat16, torch.float16) else 1e-5


def check(what: str, got: torch.Tensor, x: torch.Tensor) -> None:
    tol = tolerance(x.dtype)
    torch.testing.assert_close(got, reference(x), rtol=tol, atol=tol, msg=lambda m: f"{what}: {m}")
    print(f"{what}: OK ({got.numel()} elements)")


def run_eager(shape: tuple[int, ...], dtype: torch.dtype, device: str) -> None:
    """Both ops eagerly, and the functional one under torch.compile(fullgraph=True)."""
    x = torch.randn(shape, dtype=dtype, device=device)
    check("silu_and_mul", silu_and_mul(x), x)
    out = torch.full((*shape[:-1], shape[-1] // 2), float("nan"), dtype=dtype, device=device)
    silu_and_mul_out(x, out)
    check("silu_and_mul_out", out, x)
    compiled = torch.compile(silu_and_mul, fullgraph=True)
    check("silu_and_mul compiled", compiled(x), x)


def run_cuda_graph(shape: tuple[int, ...], dtype: torch.dtype, replays: int = 3) -> None:
    """Capture both ops in one CUDA graph on static buffers; replay it on new values of x."""
    x = torch.randn(shape, dtype=dtype, device="cuda")
    out = torch.empty((*shape[:-1], shape[-1] // 2), dtype=dtype, device="cuda")
    side = torch.cuda.Stream()  # warm up (compile the kernel) outside the capture, as torch asks
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        silu_and_mul(x)
        silu_and_mul_out(x, out)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = silu_and_mul(x)  # allocated from the graph's memory pool: a static output too
        silu_and_mul_out(x, out)
    for i in range(replays):
        x.copy_(torch.randn(shape, dtype=dtype, device="cuda"))
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        check(f"CUDA graph replay {i} (silu_and_mul)", y, x)
        check(f"CUDA graph replay {i} (silu_and_mul_out)", out, x)


def run_reduce_overhead(shape: tuple[int, ...], dtype: torch.dtype, calls: int = 4) -> None:
    """torch.compile's CUDA graphs: a small MLP activation block, replayed on new inputs."""
    def block(x: torch.Tensor) -> torch.Tensor:
        return silu_and_mul(x * 2.0) + 1.0

    compiled = torch.compile(block, mode="reduce-overhead", fullgraph=True)
    for _ in range(calls):  # the first calls warm up and record; later ones replay the graph
        x = torch.randn(shape, dtype=dtype, device="cuda")
        got = compiled(x).clone()  # a replay may overwrite the output of the last one
        tol = tolerance(dtype)
        torch.testing.assert_close(got, reference(x * 2.0) + 1.0, rtol=tol, atol=tol)
    print(f"torch.compile(mode='reduce-overhead'): {calls} calls OK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float16", "float32"])
    parser.add_argument("--cpu", action="store_true", help="CPU tensors (the interpreter)")
    args = parser.parse_args()
    gpu = gpu_available() and not args.cpu
    dtype = getattr(torch, args.dtype)
    shape = (4, 1024, 2 * 4096) if gpu else (3, 19, 2 * 130)
    where = "the GPU" if gpu else "CPU tensors (the tilelang interpreter)"
    print(f"silu_and_mul on {shape} {args.dtype} on {where}")
    run_eager(shape, dtype, "cuda" if gpu else "cpu")
    if gpu:
        run_cuda_graph(shape, dtype)
        run_reduce_overhead(shape, dtype)
    else:
        print("CUDA graphs need a GPU: skipped")


if __name__ == "__main__":
    main()
