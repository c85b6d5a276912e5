"""Sample: tiled 2-d transpose, out = x.T, through `ct.transpose` of each loaded tile.

Each block loads a (BM, BN) tile of x with coalesced reads, transposes it (the compiler moves
the tile between layouts through shared memory) and stores it at the mirrored tile position,
again with coalesced writes.
"""

from __future__ import annotations

import argparse

import numpy as np
from _common import Backend, check

import tilelang as ct


@ct.kernel
def transpose(x, out, BM: ct.Constant[int], BN: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    t = ct.load(x, index=(i, j), shape=(BM, BN))
    ct.store(out, index=(j, i), tile=ct.transpose(t))


def run(m: int, n: int, dtype: str = "float32", backend: Backend | None = None,
        block: tuple[int, int] = (64, 64)) -> None:
    backend = backend or Backend()
    x_host = backend.rng.standard_normal((m, n)).astype(dtype)
    x = backend.array(x_host)
    out = backend.empty_like(np.empty((n, m), dtype))
    bm, bn = block
    ct.launch(backend.stream(), (ct.cdiv(m, bm), ct.cdiv(n, bn)), transpose, (x, out, bm, bn))
    backend.synchronize()
    check("transpose", backend.numpy(out), x_host.T)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-m", type=int, default=None)
    parser.add_argument("-n", type=int, default=None)
    parser.add_argument("--dtype", default="float32", choices=["float32", "float16"])
    parser.add_argument("--interpret", action="store_true", help="run on the CPU interpreter")
    args = parser.parse_args()
    backend = Backend(force_interpreter=args.interpret)
    m, n = args.m or (4096 if backend.gpu else 90), args.n or (4096 if backend.gpu else 70)
    print(f"transpose of a ({m}, {n}) {args.dtype} matrix on {backend.describe()}")
    run(m, n, args.dtype, backend)


if __name__ == "__main__":
    main()
