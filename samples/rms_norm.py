"""Sample: RMS norm over rows, y = x * rsqrt(mean(x^2) + eps) * w, in float32 math.

A block normalizes ROWS whole rows as one (ROWS, BLOCK) tile, zero-padded past the row's end.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
from _common import Backend, check, row_sample_args

import tilelang as ct


@ct.kernel
def rms_norm(x, w, y, eps, ROWS: ct.Constant[int], BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(ROWS, BLOCK), padding_mode=ct.PaddingMode.ZERO)
    t = t.astype(ct.float32)
    r = ct.rsqrt(ct.sum(t * t, axis=1, keepdims=True) / x.shape[1] + eps)
    wt = ct.load(w, index=(0,), shape=(BLOCK,)).astype(ct.float32)
    ct.store(y, index=(i, 0), tile=(t * r * wt[None, :]).astype(y.dtype))


def launch_rms_norm(stream, x, w, y, rows: int, n: int, eps: float = 1e-6) -> None:
    block = 1 << (n - 1).bit_length()
    r = max(1, 4096 // block)
    kernel = rms_norm.replace_hints(num_warps=8 if block >= 4096 else 4)
    ct.launch(stream, (ct.cdiv(rows, r),), kernel, (x, w, y, eps, r, block))


def reference(x: np.ndarray, w: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    x64 = x.astype(np.float64)
    y = x64 / np.sqrt((x64 * x64).mean(1, keepdims=True) + eps) * w.astype(np.float64)
    return y.astype(x.dtype)


def run(rows: int, n: int, dtype: str = "float32", backend: Backend | None = None) -> None:
    backend = backend or Backend()
    np_dtype = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
    x_host = backend.rng.standard_normal((rows, n)).astype(np_dtype)
    w_host = backend.rng.standard_normal(n).astype(np_dtype)
    x, w = backend.array(x_host), backend.array(w_host)
    y = backend.empty_like(x_host)
    launch_rms_norm(backend.stream(), x, w, y, rows, n)
    backend.synchronize()
    tol = 2e-2 if dtype in ("bfloat16", "float16") else 1e-5
    check(f"rms_norm[{dtype}]", backend.numpy(y), reference(x_host, w_host), rtol=tol, atol=tol)


def main() -> None:
    backend, rows, n, dtype = row_sample_args(__doc__, "rms norm")
    run(rows, n, dtype, backend)


if __name__ == "__main__":
    main()
