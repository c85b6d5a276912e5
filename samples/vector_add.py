"""Sample: vector add, c = a + b, one tile of BLOCK elements per block."""

from __future__ import annotations

import argparse

import numpy as np
from _common import Backend, check

import tilelang as ct


@ct.kernel
def vector_add(a, b, c, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    x = ct.load(a, index=(i,), shape=(BLOCK,))
    y = ct.load(b, index=(i,), shape=(BLOCK,))
    ct.store(c, index=(i,), tile=x + y)


def run(n: int, block: int = 1024, backend: Backend | None = None) -> None:
    backend = backend or Backend()
    a_host = backend.rng.standard_normal(n).astype(np.float32)
    b_host = backend.rng.standard_normal(n).astype(np.float32)
    a, b, c = backend.array(a_host), backend.array(b_host), backend.empty_like(a_host)
    ct.launch(backend.stream(), (ct.cdiv(n, block),), vector_add, (a, b, c, block))
    backend.synchronize()
    check("vector_add", backend.numpy(c), a_host + b_host)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-n", type=int, default=None, help="number of elements")
    parser.add_argument("--interpret", action="store_true", help="run on the CPU interpreter")
    args = parser.parse_args()
    backend = Backend(force_interpreter=args.interpret)
    n = args.n or (1 << 24 if backend.gpu else 100_003)
    print(f"vector_add of {n} float32 elements on {backend.describe()}")
    run(n, backend=backend)


if __name__ == "__main__":
    main()
