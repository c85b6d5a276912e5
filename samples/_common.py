"""Samples: shared set-up: pick the GPU when there is one, else the interpreter, and say so."""

from __future__ import annotations

import argparse
import os
from typing import Any

import numpy as np


def gpu_available() -> bool:
    if os.environ.get("TILELANG_INTERPRET", "") == "1":
        return False
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


class Backend:
    """Where a sample runs: torch CUDA tensors on the GPU, or NumPy arrays on the interpreter."""

    def __init__(self, force_interpreter: bool = False):
        self.gpu = gpu_available() and not force_interpreter
        if not self.gpu:
            os.environ["TILELANG_INTERPRET"] = "1"
        self.rng = np.random.default_rng()

    def describe(self) -> str:
        if self.gpu:
            import torch

            return f"GPU ({torch.cuda.get_device_name()})"
        return "the tilelang CPU interpreter (no GPU found)"

    def stream(self) -> Any:
        if self.gpu:
            import torch

            return torch.cuda.current_stream()
        return None

    def array(self, data: np.ndarray) -> Any:
        """Device copy of `data` (a NumPy array; bfloat16 and the float8 types via ml_dtypes)."""
        if not self.gpu:
            return data.copy()
        import torch

        if data.dtype.name in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
            # torch cannot take ml_dtypes arrays: move the bits, then view them as the dtype
            bits = torch.from_numpy(data.view(f"int{8 * data.dtype.itemsize}").copy())
            return bits.view(getattr(torch, data.dtype.name)).cuda()
        return torch.from_numpy(data.copy()).cuda()

    def empty_like(self, data: np.ndarray, poison: float = float("nan")) -> Any:
        """An output buffer filled with a poison value, so unwritten elements show."""
        return self.array(np.full(data.shape, poison, dtype=data.dtype))

    def numpy(self, array: Any) -> np.ndarray:
        if not self.gpu:
            return np.asarray(array)
        import torch

        array = array.detach().cpu()
        if array.dtype == torch.bfloat16:
            import ml_dtypes

            return array.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
        return array.numpy()

    def synchronize(self) -> None:
        if self.gpu:
            import torch

            torch.cuda.synchronize()


def persistent_grid(rows: int, blocks_per_sm: int = 2) -> int:
    """Blocks for a kernel whose blocks stride over rows: a few per SM (rows in flight stay
    few, so a second sweep over a row finds it in L2), at most one per row. On the interpreter
    (blocks run one after another anyway) 3, so that samples exercise the striding."""
    if not gpu_available():
        return max(1, min(rows, 3))
    return max(1, min(rows, sm_count() * blocks_per_sm))


def sm_count() -> int:
    """The current GPU's number of SMs."""
    import torch

    return torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count


def check(name: str, got: np.ndarray, want: np.ndarray, rtol: float = 0.0, atol: float = 0.0):
    got64, want64 = got.astype(np.float64), want.astype(np.float64)
    if np.isnan(got64).any() and not np.isnan(want64).any():
        raise AssertionError(f"{name}: {np.isnan(got64).sum()} elements were never written")
    np.testing.assert_allclose(got64, want64, rtol=rtol, atol=atol, err_msg=name)
    print(f"{name}: OK ({got.size} elements match)")


def row_sample_args(doc: str, what: str, gpu: tuple[int, int] = (4096, 4096),
                    cpu: tuple[int, int] = (37, 300)) -> tuple[Backend, int, int, str]:
    """Command line of the row-wise samples: --rows, -n, --dtype, --interpret; the sizes default
    to `gpu` or `cpu` (rows, n) by where the sample runs. Prints what runs where."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--rows", type=int, default=None)
    parser.add_argument("-n", type=int, default=None, help="row length")
    parser.add_argument("--dtype", default="float32", choices=["bfloat16", "float16", "float32"])
    parser.add_argument("--interpret", action="store_true", help="run on the CPU interpreter")
    args = parser.parse_args()
    backend = Backend(force_interpreter=args.interpret)
    rows, n = gpu if backend.gpu else cpu
    rows, n = args.rows or rows, args.n or n
    print(f"{what} over {rows} rows of {n} {args.dtype} on {backend.describe()}")
    return backend, rows, n, args.dtype


def gemm_sample_args(doc: str, gpu: tuple[int, int, int] = (4000, 4000, 4000),
                     cpu: tuple[int, int, int] = (100, 70, 90)) -> tuple[Backend, int, int, int]:
    """Command line of the GEMM samples: -m, -n, -k, --interpret; the sizes default to `gpu` or
    `cpu` (m, n, k) by where the sample runs."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("-m", type=int, default=None)
    parser.add_argument("-n", type=int, default=None)
    parser.add_argument("-k", type=int, default=None)
    parser.add_argument("--interpret", action="store_true", help="run on the CPU interpreter")
    args = parser.parse_args()
    backend = Backend(force_interpreter=args.interpret)
    m, n, k = gpu if backend.gpu else cpu
    return backend, args.m or m, args.n or n, args.k or k
