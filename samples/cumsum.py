"""Sample: running sums along rows of any length, out[i, j] = x[i, 0] + ... + x[i, j].

Each block walks one row tile by tile: the tile's own inclusive scan (ct.cumsum) plus the total
of the tiles before it, carried through the loop.
"""

from __future__ import annotations

import argparse

import numpy as np
from _common import Backend, check

import tilelang as ct


@ct.kernel
def cumsum_rows(x, out, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    carry = ct.zeros((1, 1), x.dtype)
    for j in range(ct.num_tiles(x, axis=1, shape=(1, BLOCK))):
        t = ct.load(x, index=(i, j), shape=(1, BLOCK), padding_mode=ct.PaddingMode.ZERO)
        ct.store(out, index=(i, j), tile=ct.cumsum(t, axis=1) + carry)
        carry = carry + ct.sum(t, axis=1, keepdims=True)


def run(rows: int, n: int, dtype: str = "int32", backend: Backend | None = None,
        block: int = 1024) -> None:
    backend = backend or Backend()
    if dtype == "int32":
        x_host = backend.rng.integers(-100, 100, (rows, n), dtype=np.int32)
    else:
        x_host = backend.rng.standard_normal((rows, n)).astype(dtype)
    x = backend.array(x_host)
    out = backend.array(np.full_like(x_host, 0x5BAD if dtype == "int32" else np.nan))
    ct.launch(backend.stream(), (rows,), cumsum_rows, (x, out, block))
    backend.synchronize()
    want = np.cumsum(x_host.astype(np.float64), axis=1)
    tol = 0.0 if dtype == "int32" else 1e-5 * np.sqrt(n)
    check(f"cumsum[{dtype}]", backend.numpy(out), want.astype(x_host.dtype), rtol=tol, atol=tol)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=None)
    parser.add_argument("-n", type=int, default=None, help="row length")
    parser.add_argument("--dtype", default="int32", choices=["int32", "float32"])
    parser.add_argument("--interpret", action="store_true", help="run on the CPU interpreter")
    args = parser.parse_args()
    backend = Backend(force_interpreter=args.interpret)
    rows, n = args.rows or (1024 if backend.gpu else 7), args.n or (100003 if backend.gpu else 2500)
    print(f"cumsum over {rows} rows of {n} {args.dtype} on {backend.describe()}")
    run(rows, n, args.dtype, backend)


if __name__ == "__main__":
    main()
