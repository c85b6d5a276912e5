"""Sample: fused activation, out = silu(gate) * up, where gate and up are halves of one input.

The two halves are strided column views of the same (rows, 2*d) array: no copies. The math runs
in float32 whatever the storage dtype, and is rounded once on the way out. exp and the division
use the hardware approximations (RoundingMode.APPROX, about 2 ulp of float32): IEEE division
and a full-precision exp would make the kernel compute-bound in bf16, for no visible gain after
rounding to bf16.
"""

from __future__ import annotations

import argparse

import ml_dtypes
import numpy as np
from _common import Backend, check

import tilelang as ct


@ct.kernel
def silu_and_mul(gate, up, out, BM: ct.Constant[int], BN: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    g = ct.load(gate, index=(i, j), shape=(BM, BN)).astype(ct.float32)
    u = ct.load(up, index=(i, j), shape=(BM, BN)).astype(ct.float32)
    approx = ct.RoundingMode.APPROX
    silu = ct.truediv(g, 1.0 + ct.exp(-g, rounding_mode=approx), rounding_mode=approx)
    ct.store(out, index=(i, j), tile=(silu * u).astype(out.dtype))


def reference(x: np.ndarray) -> np.ndarray:
    d = x.shape[1] // 2
    g, u = x[:, :d].astype(np.float32), x[:, d:].astype(np.float32)
    return (g / (1.0 + np.exp(-g)) * u).astype(x.dtype)


def run(rows: int, d: int, dtype: str = "bfloat16", backend: Backend | None = None) -> None:
    backend = backend or Backend()
    np_dtype = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
    x_host = backend.rng.standard_normal((rows, 2 * d)).astype(np_dtype)
    x = backend.array(x_host)
    out = backend.empty_like(np.empty((rows, d), dtype=np_dtype))
    bm, bn = 16, 128
    grid = (ct.cdiv(rows, bm), ct.cdiv(d, bn))
    ct.launch(backend.stream(), grid, silu_and_mul, (x[:, :d], x[:, d:], out, bm, bn))
    backend.synchronize()
    # approximate exp and division: a float16 result may round to the next value (1 ulp)
    tol = {"bfloat16": 1e-2, "float16": 1e-3}.get(dtype, 1e-5)
    check(f"silu_and_mul[{dtype}]", backend.numpy(out), reference(x_host), rtol=tol, atol=tol)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=None)
    parser.add_argument("-d", type=int, default=None, help="half of the input's width")
    parser.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float16", "float32"])
    parser.add_argument("--interpret", action="store_true", help="run on the CPU interpreter")
    args = parser.parse_args()
    backend = Backend(force_interpreter=args.interpret)
    rows = args.rows or (4096 if backend.gpu else 67)
    d = args.d or (4096 if backend.gpu else 300)
    print(f"silu_and_mul on a ({rows}, {2 * d}) {args.dtype} input on {backend.describe()}")
    run(rows, d, args.dtype, backend)


if __name__ == "__main__":
    main()
