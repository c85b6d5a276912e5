"""Sample: strided, transposed copy, out = x.T, where x may be any strided view.

`load(..., order=(1, 0))` reads the tile at (j, i) of the transposed tile space, so the tile is
already transposed in registers and is stored with a plain `store`.
"""

from __future__ import annotations

import argparse

import numpy as np
from _common import Backend, check

import tilelang as ct


@ct.kernel
def transpose_copy(x, out, BM: ct.Constant[int], BN: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    t = ct.load(x, index=(j, i), shape=(BN, BM), order=(1, 0))  # t[y, x] = x[i*BM + x, j*BN + y]
    ct.store(out, index=(j, i), tile=t)


def run(m: int, n: int, backend: Backend | None = None) -> None:
    backend = backend or Backend()
    base_host = backend.rng.standard_normal((2 * m, 3 * n)).astype(np.float32)
    base = backend.array(base_host)
    x, x_host = base[::2, 1::3], base_host[::2, 1::3]  # a strided view: no unit stride at all
    out = backend.empty_like(np.empty((n, m), np.float32))
    bm, bn = 32, 32
    grid = (ct.cdiv(m, bm), ct.cdiv(n, bn))
    ct.launch(backend.stream(), grid, transpose_copy, (x, out, bm, bn))
    backend.synchronize()
    check("transpose_copy", backend.numpy(out), x_host.T)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-m", type=int, default=None)
    parser.add_argument("-n", type=int, default=None)
    parser.add_argument("--interpret", action="store_true", help="run on the CPU interpreter")
    args = parser.parse_args()
    backend = Backend(force_interpreter=args.interpret)
    m, n = args.m or (4096 if backend.gpu else 90), args.n or (4096 if backend.gpu else 70)
    print(f"transpose_copy of a strided ({m}, {n}) float32 view on {backend.describe()}")
    run(m, n, backend)


if __name__ == "__main__":
    main()
