"""Sample: batched GEMM, out[i] = a[i] @ b[i], and the same with one weight shared by the batch.

Tiles are 3-d: a block loads (BB, BM, BK) and (BB, BK, BN) tiles, BB matrices of the batch at
once, and `ct.mma` multiplies them matrix by matrix into a (BB, BM, BN) float32 accumulator.
With a shared weight `b` is 2-d: its (BK, BN) tile is broadcast over the batch by `ct.mma`
itself. Edges in every dimension (batch included) read zeros and are not stored, so no size
needs to be a multiple of the tile.
"""

from __future__ import annotations

import argparse

import numpy as np
from _common import Backend, check

import tilelang as ct


@ct.kernel(num_warps=8)  # 4 warps would spill the float32 accumulator
def batched_gemm(a, b, out, BB: ct.Constant[int], BM: ct.Constant[int], BN: ct.Constant[int],
                 BK: ct.Constant[int]):
    i, j, batch = ct.bid(0), ct.bid(1), ct.bid(2)
    zero = ct.PaddingMode.ZERO
    acc = ct.zeros((BB, BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, axis=2, shape=(BB, BM, BK))):
        x = ct.load(a, index=(batch, i, k), shape=(BB, BM, BK), padding_mode=zero)
        if b.ndim == 3:  # a weight per matrix of the batch
            w = ct.load(b, index=(batch, k, j), shape=(BB, BK, BN), padding_mode=zero)
        else:  # one weight for the whole batch: broadcast by mma
            w = ct.load(b, index=(k, j), shape=(BK, BN), padding_mode=zero)
        acc = ct.mma(x, w, acc)
    ct.store(out, index=(batch, i, j), tile=acc.astype(out.dtype))


def run(batch: int, m: int, n: int, k: int, shared_weight: bool = False,
        backend: Backend | None = None, block: tuple[int, int, int, int] = (2, 64, 64, 32),
        ) -> None:
    backend = backend or Backend()
    rng = backend.rng
    a_host = rng.standard_normal((batch, m, k)).astype(np.float16)
    b_host = rng.standard_normal((k, n) if shared_weight else (batch, k, n)).astype(np.float16)
    a, b = backend.array(a_host), backend.array(b_host)
    out = backend.empty_like(np.empty((batch, m, n), np.float16))
    bb, bm, bn, bk = block
    grid = (ct.cdiv(m, bm), ct.cdiv(n, bn), ct.cdiv(batch, bb))
    ct.launch(backend.stream(), grid, batched_gemm, (a, b, out, bb, bm, bn, bk))
    backend.synchronize()
    want = np.matmul(a_host.astype(np.float64), b_host.astype(np.float64))
    name = "batched_gemm" + ("[shared weight]" if shared_weight else "")
    # float16 results: one rounding (2**-11 relative) over a float32 accumulation
    check(name, backend.numpy(out), want, rtol=2e-3, atol=2e-3 * np.sqrt(k))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--batch", type=int, default=None)
    parser.add_argument("-m", type=int, default=None)
    parser.add_argument("-n", type=int, default=None)
    parser.add_argument("-k", type=int, default=None)
    parser.add_argument("--shared-weight", action="store_true", help="one 2-d b for the batch")
    parser.add_argument("--interpret", action="store_true", help="run on the CPU interpreter")
    args = parser.parse_args()
    backend = Backend(force_interpreter=args.interpret)
    sizes = (16, 1000, 1000, 1000) if backend.gpu else (5, 40, 30, 50)
    batch, m, n, k = (given or default for given, default in
                      zip((args.batch, args.m, args.n, args.k), sizes, strict=True))
    print(f"{batch} float16 products ({m}, {k}) @ ({k}, {n}) on {backend.describe()}")
    block = (2, 64, 64, 32) if backend.gpu else (2, 16, 16, 16)
    run(batch, m, n, k, args.shared_weight, backend, block)


if __name__ == "__main__":
    main()
