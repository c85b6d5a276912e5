"""Sample: 2-D broadcasting, out = (x + bias[None, :]) * scale[:, None], on (BM, BN) tiles."""

from __future__ import annotations

import argparse

import numpy as np
from _common import Backend, check

import tilelang as ct


@ct.kernel
def row_bias_scale(x, bias, scale, out, BM: ct.Constant[int], BN: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    t = ct.load(x, index=(i, j), shape=(BM, BN))
    b = ct.load(bias, index=(j,), shape=(BN,))
    s = ct.load(scale, index=(i,), shape=(BM,))
    ct.store(out, index=(i, j), tile=(t + b[None, :]) * s[:, None])


def run(m: int, n: int, backend: Backend | None = None) -> None:
    backend = backend or Backend()
    x_host = backend.rng.standard_normal((m, n)).astype(np.float32)
    bias_host = backend.rng.standard_normal(n).astype(np.float32)
    scale_host = backend.rng.standard_normal(m).astype(np.float32)
    x, bias, scale = map(backend.array, (x_host, bias_host, scale_host))
    out = backend.empty_like(x_host)
    bm, bn = 32, 64
    grid = (ct.cdiv(m, bm), ct.cdiv(n, bn))
    ct.launch(backend.stream(), grid, row_bias_scale, (x, bias, scale, out, bm, bn))
    backend.synchronize()
    want = (x_host + bias_host[None, :]) * scale_host[:, None]
    check("row_bias_scale", backend.numpy(out), want, rtol=1e-6, atol=1e-6)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-m", type=int, default=None)
    parser.add_argument("-n", type=int, default=None)
    parser.add_argument("--interpret", action="store_true", help="run on the CPU interpreter")
    args = parser.parse_args()
    backend = Backend(force_interpreter=args.interpret)
    m, n = args.m or (8192 if backend.gpu else 100), args.n or (8192 if backend.gpu else 333)
    print(f"row_bias_scale on a ({m}, {n}) float32 array on {backend.describe()}")
    run(m, n, backend)


if __name__ == "__main__":
    main()
