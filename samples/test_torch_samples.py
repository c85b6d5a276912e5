"""The PyTorch samples: on CPU tensors (the interpreter) always, on CUDA tensors with `-m gpu`;
CUDA graphs on the GPU only; their kernels assemble for sm_80 and sm_90."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct

torch = pytest.importorskip("torch")

import torch_rms_norm  # noqa: E402  (samples that need torch)
import torch_silu_and_mul  # noqa: E402
from _common import gpu_available  # noqa: E402

F32, BF16, F64 = torch.float32, torch.bfloat16, torch.float64

CASES = [  # (name, case(device, compile backend on the CPU))
    ("rms_norm", lambda d, b: torch_rms_norm.run((3, 7, 300), F32, d, b)),
    ("rms_norm", lambda d, b: torch_rms_norm.run((37, 1500), BF16, d, "aot_eager")),
    ("rms_norm", lambda d, b: torch_rms_norm.run((1, 1, 5), F32, d, "aot_eager")),
    ("silu_and_mul", lambda d, b: torch_silu_and_mul.run_eager((3, 19, 260), BF16, d)),
    ("silu_and_mul", lambda d, b: torch_silu_and_mul.run_eager((5, 514), F32, d)),
]
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(CASES)]


@pytest.fixture
def on_cpu_tensors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TILELANG_INTERPRET", raising=False)  # CPU tensors need no flag


@pytest.fixture
def on_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TILELANG_INTERPRET", raising=False)
    assert gpu_available(), "the GPU tier needs a GPU"


@pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated")  # inductor's
@pytest.mark.parametrize(("name", "case"), CASES, ids=IDS)
def test_torch_sample_on_cpu_tensors(name: str, case, on_cpu_tensors) -> None:
    case("cpu", "inductor")


@pytest.mark.gpu
@pytest.mark.parametrize(("name", "case"), CASES, ids=IDS)
def test_torch_sample_on_gpu(name: str, case, on_gpu) -> None:
    case("cuda", "inductor")


def rms_norm_gradcheck(device: str) -> None:
    x = torch.randn(5, 13, dtype=F64, device=device, requires_grad=True)
    w = torch.randn(13, dtype=F64, device=device, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x, w: torch_rms_norm.rms_norm(x, w, 1e-6), (x, w))


def test_rms_norm_gradcheck_on_cpu_tensors(on_cpu_tensors) -> None:
    rms_norm_gradcheck("cpu")


@pytest.mark.gpu
def test_rms_norm_gradcheck_on_gpu(on_gpu) -> None:
    rms_norm_gradcheck("cuda")


@pytest.mark.gpu
def test_silu_and_mul_in_a_cuda_graph(on_gpu) -> None:
    torch_silu_and_mul.run_cuda_graph((3, 37, 2 * 300), BF16, replays=3)
    torch_silu_and_mul.run_cuda_graph((1000, 2 * 1024), F32, replays=2)


@pytest.mark.gpu
def test_silu_and_mul_under_reduce_overhead(on_gpu) -> None:
    from torch._dynamo.utils import counters

    counters.clear()
    torch_silu_and_mul.run_reduce_overhead((7, 2 * 520), BF16)
    assert counters["inductor"]["cudagraph_skips"] == 0, dict(counters["inductor"])


SLOW = pytest.mark.slow  # a second each: the quick run assembles two sizes, the full run all


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize(("dtype", "n"), [
    pytest.param(np.float32, 300, marks=SLOW), (np.float32, 8192),
    (ml_dtypes.bfloat16, 1000), pytest.param(ml_dtypes.bfloat16, 5000, marks=SLOW),
    pytest.param(np.float64, 13, marks=SLOW), pytest.param(np.float64, 4000, marks=SLOW)])
def test_rms_norm_kernels_assemble_without_spills(arch: str, dtype, n: int) -> None:
    """The kernels as the host functions configure them, for rows of n elements."""
    math = ct.float64 if dtype == np.float64 else ct.float32
    x, w = np.zeros((64, n), dtype), np.zeros(n, dtype)
    stats, part = np.zeros(64, np.dtype(math.name)), np.zeros((16, n), np.dtype(math.name))
    rows, block, fwd_warps = torch_rms_norm.forward_config(n)
    forward = (x, w, x.copy(), stats, 1e-6, rows, block, math)
    rows, block, bwd_warps = torch_rms_norm.backward_config(n)
    backward = (x, x, w, stats, x.copy(), part, rows, block, math)
    for kernel, args, warps in ((torch_rms_norm.rms_norm_fwd_kernel, forward, fwd_warps),
                                (torch_rms_norm.rms_norm_bwd_kernel, backward, bwd_warps),
                                (torch_rms_norm.column_sums_kernel, (part, w.copy(), 32, 128), 4)):
        resources = ct.compile(kernel, args, arch=arch, num_warps=warps).resources()  # ptxas
        assert resources.spill_stores == 0 and resources.spill_loads == 0, kernel.name
