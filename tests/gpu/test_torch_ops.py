"""tilelang.torch on the GPU: custom ops on CUDA tensors, on the current stream, under
torch.compile(fullgraph=True) with inductor, in CUDA graphs (torch.cuda.graph and
mode="reduce-overhead") replayed on new input values, in torch.export, and with autograd
(gradcheck in float64, and against torch's own backward)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import tilelang as ct

torch = pytest.importorskip("torch")

import tilelang.torch as tlt  # noqa: E402  (needs torch)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "samples"))
import torch_rms_norm  # noqa: E402

BLOCK = 256


@ct.kernel
def axpy_kernel(x, y, out, alpha: float, B: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(out, (i,), (ct.load(x, (i,), (B,)) * alpha + ct.load(y, (i,), (B,))).astype(out.dtype))


@ct.kernel
def scale_into_kernel(x, alpha: float, B: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(x, (i,), (ct.load(x, (i,), (B,)) * alpha).astype(x.dtype))


def grid(t: torch.Tensor) -> tuple[int]:
    return (ct.cdiv(t.shape[0], BLOCK),)


@tlt.custom_op("tilelang_gpu_tests::axpy", mutates_args=())
def axpy(x: torch.Tensor, y: torch.Tensor, alpha: float) -> torch.Tensor:
    out = torch.empty_like(x)
    tlt.launch(grid(x), axpy_kernel, (x, y, out, alpha, BLOCK))
    return out


@tlt.custom_op("tilelang_gpu_tests::axpy_bwd", mutates_args=())
def axpy_bwd(g: torch.Tensor, alpha: float) -> torch.Tensor:
    dx = torch.empty_like(g)
    tlt.launch(grid(g), axpy_kernel, (g, torch.zeros_like(g), dx, alpha, BLOCK))
    return dx


def setup_context(ctx, inputs, output) -> None:
    ctx.alpha = inputs[2]


def backward(ctx, g):
    return axpy_bwd(g, ctx.alpha), g, None


axpy.register_autograd(backward, setup_context=setup_context)


@tlt.custom_op("tilelang_gpu_tests::scale_", mutates_args=("x",))
def scale_(x: torch.Tensor, alpha: float) -> None:
    tlt.launch(grid(x), scale_into_kernel, (x, alpha, BLOCK))


def randn(n: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.randn(n, device="cuda", dtype=dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float64])
@pytest.mark.parametrize("n", [1, 255, 257, 100_003])
def test_op_on_cuda_tensors(n: int, dtype: torch.dtype) -> None:
    x, y = randn(n, dtype), randn(n, dtype)
    out = axpy(x, y, 2.0)
    assert out.device == x.device and out.dtype == dtype
    tol = 1e-2 if dtype == torch.bfloat16 else 1e-6
    torch.testing.assert_close(out, x * 2.0 + y, rtol=tol, atol=tol)


def test_op_runs_on_the_current_stream() -> None:
    n = 1 << 20
    x, y = randn(n), randn(n)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        torch.cuda._sleep(50_000_000)  # keeps `side` busy: a launch elsewhere would run first
        x.fill_(3.0)
        out = axpy(x, y, 2.0)
    side.synchronize()
    torch.testing.assert_close(out, 6.0 + y)


def test_cpu_and_cuda_tensors_in_one_process() -> None:
    x, y = randn(1000), randn(1000)
    torch.testing.assert_close(axpy(x.cpu(), y.cpu(), 0.5), (x * 0.5 + y).cpu())  # interpreter
    torch.testing.assert_close(axpy(x, y, 0.5), x * 0.5 + y)


def test_compile_fullgraph_with_inductor() -> None:
    graphs = []

    def recording(gm, example_inputs):
        graphs.append(gm)
        from torch._inductor.compile_fx import compile_fx

        return compile_fx(gm, example_inputs)

    def f(x, y):
        return torch.relu(axpy(x.sin(), y, 3.0)) + 1

    compiled = torch.compile(f, fullgraph=True, backend=recording)
    for n in (1000, 4097):
        x, y = randn(n), randn(n)
        torch.testing.assert_close(compiled(x, y), f(x, y))
    assert graphs and all("tilelang_gpu_tests.axpy.default" in str(g.graph) for g in graphs)


def test_compile_with_a_mutated_argument() -> None:
    def f(x):
        x = x * 1.0
        scale_(x, 4.0)
        return x + 1

    x = randn(3000)
    torch.testing.assert_close(torch.compile(f, fullgraph=True)(x), x * 4 + 1)


def test_cuda_graph_replays_with_new_input_values() -> None:
    n = 5001
    x, y = randn(n), randn(n)
    buf = randn(n)
    axpy(x, y, 2.0)  # compiled before the capture, as torch wants warm-up outside it
    scale_(buf, 1.0)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = axpy(x, y, 2.0)
        buf.copy_(out)
        scale_(buf, 0.5)
    for _ in range(3):
        x.copy_(randn(n))
        y.copy_(randn(n))
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(out, x * 2.0 + y)
        torch.testing.assert_close(buf, (x * 2.0 + y) * 0.5)


def test_cuda_graph_captures_a_first_launch() -> None:
    @ct.kernel
    def fresh(x, out, B: ct.Constant[int]):
        i = ct.bid(0)
        ct.store(out, (i,), ct.load(x, (i,), (B,)) + 1)

    @tlt.custom_op("tilelang_gpu_tests::fresh", mutates_args=())
    def fresh_op(x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        tlt.launch(grid(x), fresh, (x, out, BLOCK))
        return out

    x = randn(700)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):  # the kernel compiles and loads inside the capture
        out = fresh_op(x)
    x.copy_(randn(700))
    graph.replay()
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x + 1)


def test_reduce_overhead_records_a_cuda_graph_and_replays_it() -> None:
    from torch._dynamo.utils import counters

    def f(x, y):
        return axpy(x * 2, y, 0.5) - 1

    counters.clear()
    compiled = torch.compile(f, mode="reduce-overhead", fullgraph=True)
    for _ in range(5):
        x, y = randn(2048), randn(2048)
        got = compiled(x, y).clone()
        torch.testing.assert_close(got, x + y - 1)
    assert counters["inductor"]["cudagraph_skips"] == 0, dict(counters["inductor"])


class Model(torch.nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.linspace(-1, 1, n, device="cuda"))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return axpy(x, self.bias, 2.0).cos()


def test_export_on_cuda_tensors() -> None:
    model = Model(1000)
    exported = torch.export.export(model, (randn(1000),))
    assert "tilelang_gpu_tests.axpy.default" in str(exported.graph)
    x = randn(1000)
    torch.testing.assert_close(exported.module()(x), model(x))


def test_gradcheck_in_float64() -> None:
    x = randn(300, torch.float64).requires_grad_()
    y = randn(300, torch.float64).requires_grad_()
    assert torch.autograd.gradcheck(lambda x, y: axpy(x, y, 1.5), (x, y))


def test_compiled_backward_matches_torch() -> None:
    x, y = randn(3000).requires_grad_(), randn(3000).requires_grad_()
    compiled = torch.compile(lambda x, y: (axpy(x, y, -2.0) ** 2).sum(), fullgraph=True)
    compiled(x, y).backward()
    xr, yr = x.detach().requires_grad_(), y.detach().requires_grad_()
    ((xr * -2.0 + yr) ** 2).sum().backward()
    torch.testing.assert_close(x.grad, xr.grad)
    torch.testing.assert_close(y.grad, yr.grad)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_rms_norm_backward_matches_torch(dtype: torch.dtype) -> None:
    """The sample's fused RMS norm, compiled, against torch's own RMS norm and its autograd."""
    x = torch.randn(4, 33, 1000, device="cuda", dtype=dtype)
    w = torch.randn(1000, device="cuda", dtype=dtype)
    dy = torch.randn_like(x)
    xa, wa = x.clone().requires_grad_(), w.clone().requires_grad_()
    compiled = torch.compile(torch_rms_norm.rms_norm, fullgraph=True)
    compiled(xa, wa, 1e-6).backward(dy)
    xb, wb = x.float().requires_grad_(), w.float().requires_grad_()
    torch.nn.functional.rms_norm(xb, (1000,), wb, 1e-6).backward(dy.float())
    tol = 3e-2 if dtype == torch.bfloat16 else 1e-4
    torch.testing.assert_close(xa.grad.float(), xb.grad, rtol=tol, atol=tol)
    scale = float(wb.grad.abs().max())
    torch.testing.assert_close(wa.grad.float(), wb.grad, rtol=tol, atol=tol * scale)
