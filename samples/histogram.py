"""Sample: histogram of integer data with atomic_add, BLOCK elements per block."""

from __future__ import annotations

import argparse

import numpy as np
from _common import Backend, check

import tilelang as ct


@ct.kernel
def histogram(data, counts, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    # Padding elements of the last tile read -2**31: out of bounds, so they count nowhere.
    values = ct.load(data, index=(i,), shape=(BLOCK,), padding_mode=ct.PaddingMode.NEG_INF)
    ct.atomic_add(counts, values, 1, memory_order=ct.MemoryOrder.RELAXED)


def run(n: int, bins: int = 256, block: int = 1024, backend: Backend | None = None) -> None:
    backend = backend or Backend()
    data_host = backend.rng.integers(-bins // 8, bins + bins // 8, n).astype(np.int32)
    data = backend.array(data_host)
    counts = backend.array(np.zeros(bins, np.int32))
    ct.launch(backend.stream(), (ct.cdiv(n, block),), histogram, (data, counts, block))
    backend.synchronize()
    inside = data_host[(data_host >= 0) & (data_host < bins)]  # values outside are dropped
    check("histogram", backend.numpy(counts), np.bincount(inside, minlength=bins))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-n", type=int, default=None, help="number of values")
    parser.add_argument("--bins", type=int, default=256, help="number of bins")
    parser.add_argument("--interpret", action="store_true", help="run on the CPU interpreter")
    args = parser.parse_args()
    backend = Backend(force_interpreter=args.interpret)
    n = args.n or (1 << 24 if backend.gpu else 100_003)
    print(f"histogram of {n} int32 values into {args.bins} bins on {backend.describe()}")
    run(n, args.bins, backend=backend)


if __name__ == "__main__":
    main()
