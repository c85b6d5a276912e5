"""Sample: a fused RMS norm as PyTorch ops with autograd, in an nn.Module under torch.compile.

Two custom ops (tilelang.torch.custom_op), each a host function that allocates its outputs and
launches tilelang kernels: the forward pass returns y and each row's 1/rms, the backward pass
dx and dw. `register_autograd` pairs them, so `loss.backward()` runs the backward kernels, in
eager mode and under `torch.compile(fullgraph=True)` alike. On CUDA tensors the kernels run on
the GPU, on CPU tensors on the tilelang interpreter. The math runs in float32 (float64 for
float64 inputs, which `torch.autograd.gradcheck` uses).
"""

from __future__ import annotations

import argparse
import functools

import torch
from _common import gpu_available

import tilelang as ct
import tilelang.torch as tlt

ZERO = ct.PaddingMode.ZERO


@ct.kernel
def rms_norm_fwd_kernel(x, w, y, rstd, eps, ROWS: ct.Constant[int], BLOCK: ct.Constant[int],
                        MATH: ct.Constant):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(ROWS, BLOCK), padding_mode=ZERO).astype(MATH)
    r = ct.rsqrt(ct.sum(t * t, axis=1, keepdims=True) / x.shape[1] + eps)
    wt = ct.load(w, index=(0,), shape=(BLOCK,), padding_mode=ZERO).astype(MATH)
    ct.store(y, index=(i, 0), tile=(t * r * wt[None, :]).astype(y.dtype))
    ct.store(rstd, index=(i,), tile=ct.reshape(r, (ROWS,)))


@ct.kernel
def rms_norm_bwd_kernel(dy, x, w, rstd, dx, dw_part, ROWS: ct.Constant[int],
                        BLOCK: ct.Constant[int], MATH: ct.Constant):
    """dx = r * (g*w - xhat * mean(g*w*xhat)) with xhat = x*r; each block sums g*xhat over the
    rows it visits into its own row of dw_part."""
    p = ct.bid(0)
    wt = ct.load(w, index=(0,), shape=(BLOCK,), padding_mode=ZERO).astype(MATH)[None, :]
    dw = ct.zeros((1, BLOCK), MATH)
    for i in range(p, ct.num_tiles(x, axis=0, shape=(ROWS, BLOCK)), ct.num_blocks(0)):
        t = ct.load(x, index=(i, 0), shape=(ROWS, BLOCK), padding_mode=ZERO).astype(MATH)
        g = ct.load(dy, index=(i, 0), shape=(ROWS, BLOCK), padding_mode=ZERO).astype(MATH)
        r = ct.load(rstd, index=(i,), shape=(ROWS,), padding_mode=ZERO)[:, None]
        xhat = t * r
        gw = g * wt
        c = ct.sum(xhat * gw, axis=1, keepdims=True) / x.shape[1]
        ct.store(dx, index=(i, 0), tile=((gw - xhat * c) * r).astype(dx.dtype))
        dw += ct.sum(g * xhat, axis=0, keepdims=True)
    ct.store(dw_part, index=(p, 0), tile=dw)


@ct.kernel
def column_sums_kernel(part, out, ROWS: ct.Constant[int], BLOCK: ct.Constant[int]):
    j = ct.bid(0)
    acc = ct.zeros((BLOCK,), part.dtype)
    for i in range(ct.num_tiles(part, axis=0, shape=(ROWS, BLOCK))):
        acc += ct.sum(ct.load(part, index=(i, j), shape=(ROWS, BLOCK), padding_mode=ZERO), axis=0)
    ct.store(out, index=(j,), tile=acc.astype(out.dtype))


@functools.cache
def with_warps(kernel: ct.Kernel, warps: int) -> ct.Kernel:
    return kernel.replace_hints(num_warps=warps)  # remembered here: no options built per call


def math_dtype(dtype: torch.dtype) -> torch.dtype:
    return torch.float64 if dtype == torch.float64 else torch.float32


def forward_config(n: int) -> tuple[int, int, int]:
    """(ROWS, BLOCK, num_warps): whole rows, about 4096 elements per block, 8 warps (16
    elements per thread; with 4 warps some sizes spill registers)."""
    block = 1 << (n - 1).bit_length()
    return max(1, 4096 // block), block, 8


def backward_config(n: int) -> tuple[int, int, int]:
    """(ROWS, BLOCK, num_warps) of the backward pass: about 2048 elements per tile (it holds
    four tiles of x's size), 8 or 16 warps."""
    block = 1 << (n - 1).bit_length()
    return max(1, 2048 // block), block, 8 if block <= 4096 else 16


MAX_N = 8192  # longer rows would spill registers: samples/rms_norm.py loops over those
BACKWARD_BLOCKS = 512  # at most; each writes one row of dw partial sums


def check_shape(x: torch.Tensor, w: torch.Tensor) -> None:
    if x.dim() != 2 or w.shape != (x.shape[1],) or x.shape[1] > MAX_N:
        raise ValueError(f"rms_norm: x must be (rows, n) with n <= {MAX_N} and w (n,), got x "
                         f"{tuple(x.shape)} and w {tuple(w.shape)}")


@tlt.custom_op("tilelang_samples::rms_norm_fwd", mutates_args=())
def rms_norm_fwd(x: torch.Tensor, w: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    """y = x / rms(x) * w over the rows of a 2-d x, and each row's 1/rms."""
    check_shape(x, w)
    rows, n = x.shape
    y = torch.empty_like(x)
    rstd = x.new_empty(rows, dtype=math_dtype(x.dtype))
    r, block, warps = forward_config(n)
    tlt.launch((ct.cdiv(rows, r),), with_warps(rms_norm_fwd_kernel, warps),
               (x, w, y, rstd, eps, r, block, math_dtype(x.dtype)))
    return y, rstd


@tlt.custom_op("tilelang_samples::rms_norm_bwd", mutates_args=())
def rms_norm_bwd(dy: torch.Tensor, x: torch.Tensor, w: torch.Tensor,
                 rstd: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """dx and dw of rms_norm_fwd, given dy."""
    rows, n = x.shape
    r, block, warps = backward_config(n)
    blocks = min(ct.cdiv(rows, r), BACKWARD_BLOCKS)
    dx = torch.empty_like(x)
    dw_part = x.new_empty((blocks, n), dtype=rstd.dtype)
    dw = torch.empty_like(w)
    tlt.launch((blocks,), with_warps(rms_norm_bwd_kernel, warps),
               (dy, x, w, rstd, dx, dw_part, r, block, rstd.dtype))
    tlt.launch((ct.cdiv(n, 128),), column_sums_kernel, (dw_part, dw, 32, 128))
    return dx, dw


def setup_context(ctx, inputs, output) -> None:
    x, w, _ = inputs
    _, rstd = output
    ctx.save_for_backward(x, w, rstd)


def backward(ctx, dy, _drstd):
    x, w, rstd = ctx.saved_tensors
    dx, dw = rms_norm_bwd(dy, x, w, rstd)
    return dx, dw, None


rms_norm_fwd.register_autograd(backward, setup_context=setup_context)


def rms_norm(x: torch.Tensor, w: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """RMS norm over the last dimension of x (any leading dimensions)."""
    y, _ = rms_norm_fwd(x.reshape(-1, x.shape[-1]), w, eps)
    return y.view(x.shape)


class RMSNorm(torch.nn.Module):
    def __init__(self, n: int, eps: float = 1e-6, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.ones(n, device=device, dtype=dtype))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return rms_norm(x, self.weight, self.eps)


class Block(torch.nn.Module):
    """A small model: the norm, then a projection (no bias: its sum is a kernel of its own)."""

    def __init__(self, n: int, device=None, dtype=None):
        super().__init__()
        self.norm = RMSNorm(n, device=device, dtype=dtype)
        self.proj = torch.nn.Linear(n, n, bias=False, device=device, dtype=dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(self.norm(x))


def reference(x: torch.Tensor, w: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    x64 = x.double()
    return x64 * torch.rsqrt(x64.square().mean(-1, keepdim=True) + eps) * w.double()


def run(shape: tuple[int, ...], dtype: torch.dtype = torch.float32, device: str = "cpu",
        compile_backend: str = "inductor") -> None:
    """Forward and backward of Block, eager and compiled (fullgraph), against torch in float64."""
    torch.manual_seed(0)
    n = shape[-1]
    model = Block(n, device=device, dtype=dtype)
    with torch.no_grad():
        model.norm.weight.normal_(1.0, 0.2)
    compiled = torch.compile(model, fullgraph=True, backend=compile_backend)
    x = torch.randn(shape, device=device, dtype=dtype)
    dy = torch.randn(shape, device=device, dtype=dtype)
    want_y, want_dx, want_dw = _reference_grads(model, x, dy)
    tol = 3e-2 if dtype in (torch.bfloat16, torch.float16) else 1e-4
    for name, fn in (("eager", model), ("compiled", compiled)):
        xg = x.detach().requires_grad_()
        model.zero_grad()
        y = fn(xg)
        y.backward(dy)
        for what, got, want in (("y", y, want_y), ("dx", xg.grad, want_dx),
                                ("dw", model.norm.weight.grad, want_dw)):
            scale = max(1.0, float(want.abs().max()))
            torch.testing.assert_close(got.double(), want, rtol=tol, atol=tol * scale,
                                       msg=lambda m, w=what, f=name: f"{f} {w}: {m}")
        print(f"rms_norm block {name} [{str(dtype)[6:]}, {tuple(shape)}]: y, dx, dw OK")


def _reference_grads(model: Block, x: torch.Tensor, dy: torch.Tensor):
    """y, dx and the norm's dw of `model` with torch's own RMS norm, in float64."""
    x64 = x.double().requires_grad_()
    w64 = model.norm.weight.detach().double().requires_grad_()
    y = reference(x64, w64, model.norm.eps) @ model.proj.weight.detach().double().T
    y.backward(dy.double())
    return y.detach(), x64.grad, w64.grad


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float16", "float32"])
    parser.add_argument("--cpu", action="store_true", help="CPU tensors (the interpreter)")
    args = parser.parse_args()
    device = "cuda" if gpu_available() and not args.cpu else "cpu"
    shape = (8, 512, 4096) if device == "cuda" else (3, 7, 300)
    dtype = getattr(torch, args.dtype) if device == "cuda" else torch.float32
    where = "the GPU" if device == "cuda" else "CPU tensors (the tilelang interpreter)"
    print(f"RMS norm block {shape} {dtype} on {where}")
    run(shape, dtype, device)


if __name__ == "__main__":
    main()
