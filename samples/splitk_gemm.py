"""Sample: split-K GEMM for skinny products (LLM decode: a few rows against a large weight).

c = a @ b with M small (16..256 tokens) and N, K large has few (BM, BN) output tiles: 16 x 4096
in 64 x 64 tiles is 64 blocks, half an H100's 132 SMs. Split-K cuts K into S ranges and runs
one block per (tile, range), so S times as many blocks stream the weight:

1. `partial_products`: block (i, j, s) multiplies its K range (the K loop's bounds, nothing
   else: the loop keeps the fast staged form of docs/language.md) and stores its float32 tile
   in the workspace `ws[s]` of shape (S, M, N). Plain stores, no atomics: every element of
   `ws` is written by one block, so the result does not depend on the order blocks run in,
   and nothing is rounded to bfloat16 before the end.
2. `sum_partials`: each block loads the S partial tiles of its (RM, RN) piece of c (all S
   loads in flight together), adds them up in float32 and casts to c's dtype. An epilogue
   (bias, activation) would go here.

`split_for` picks S so that the first kernel's blocks fill the GPU in one wave.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
from _common import Backend, check, gemm_sample_args

import tilelang as ct


@ct.kernel(num_warps=4)
def partial_products(a, b, ws, BM: ct.Constant[int], BN: ct.Constant[int],
                     BK: ct.Constant[int], SPLIT: ct.Constant[int]):
    """ws[s] = the product over the s-th of SPLIT ranges of K tiles (zeros for an empty one)."""
    i, j, s = ct.bid(0), ct.bid(1), ct.bid(2)
    tiles = ct.num_tiles(a, axis=1, shape=(BM, BK))
    zero = ct.PaddingMode.ZERO
    acc = ct.zeros((BM, BN), ct.float32)
    # ranges differ by at most one tile; one is empty only when SPLIT > tiles
    for k in range(s * tiles // SPLIT, (s + 1) * tiles // SPLIT):
        x = ct.load(a, index=(i, k), shape=(BM, BK), padding_mode=zero)
        w = ct.load(b, index=(k, j), shape=(BK, BN), padding_mode=zero)
        acc = ct.mma(x, w, acc)
    ct.store(ws, index=(s, i, j), tile=ct.reshape(acc, (1, BM, BN)))


# One warp: its tile's rows stay in registers from load to store (with more warps the
# (1, RM, RN) loads and the sum take different layouts: a shared-memory exchange per slab).
@ct.kernel(num_warps=1)
def sum_partials(ws, c, RM: ct.Constant[int], RN: ct.Constant[int], SPLIT: ct.Constant[int]):
    """c = the sum of ws's SPLIT slabs in c's dtype, an (RM, RN) tile per block."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((RM, RN), ct.float32)
    for s in ct.static_iter(range(SPLIT)):  # unrolled: every slab's loads in flight at once
        part = ct.load(ws, index=(s, i, j), shape=(1, RM, RN), padding_mode=ct.PaddingMode.ZERO)
        acc += ct.reshape(part, (RM, RN))
    ct.store(c, index=(i, j), tile=acc.astype(c.dtype))


REDUCE_TILE = (2, 128)  # (RM, RN) of sum_partials: 16 x 4096 is 256 blocks


def split_for(m: int, n: int, k: int, block: tuple[int, int, int], sms: int,
              blocks_per_sm: int = 1, max_split: int = 16) -> int:
    """S: as many K ranges as fit the output tiles' blocks into one wave of `blocks_per_sm`
    blocks per SM (the staged K loop's ring takes most of shared memory: 64 x 64 x 64 tiles
    run one block per SM, so a second wave would wait for the first), at least 1, at most
    `max_split` and at most one per K tile."""
    bm, bn, bk = block
    tiles = ct.cdiv(m, bm) * ct.cdiv(n, bn)
    return max(1, min(blocks_per_sm * sms // tiles, max_split, ct.cdiv(k, bk)))


def launch(stream, a, b, c, ws, block: tuple[int, int, int], n_split: int) -> None:
    """c = a @ b through the workspace `ws` (float32, (n_split, M, N), any contents)."""
    (m, _), n = a.shape, b.shape[1]
    bm, bn, bk = block
    ct.launch(stream, (ct.cdiv(m, bm), ct.cdiv(n, bn), n_split), partial_products,
              (a, b, ws, bm, bn, bk, n_split))
    rm, rn = REDUCE_TILE
    ct.launch(stream, (ct.cdiv(m, rm), ct.cdiv(n, rn)), sum_partials, (ws, c, rm, rn, n_split))


def run(m: int, n: int, k: int, backend: Backend | None = None,
        block: tuple[int, int, int] = (64, 64, 64), n_split: int | None = None) -> None:
    backend = backend or Backend()
    bf16 = ml_dtypes.bfloat16
    rng = backend.rng
    a_host = (rng.standard_normal((m, k)) / math.sqrt(k)).astype(bf16)
    b_host = rng.standard_normal((k, n)).astype(bf16)
    if n_split is None:
        n_split = split_for(m, n, k, block, sms(backend))
    a, b = backend.array(a_host), backend.array(b_host)
    # poisoned: every element must be written (the workspace by the first kernel)
    ws = backend.empty_like(np.empty((n_split, m, n), np.float32))
    c = backend.empty_like(np.empty((m, n), bf16))
    launch(backend.stream(), a, b, c, ws, block, n_split)
    backend.synchronize()
    want = a_host.astype(np.float64) @ b_host.astype(np.float64)
    # float32 sums, one rounding to bfloat16 (8 bits) at the end
    check(f"splitk_gemm[{m}x{n}x{k}, S={n_split}]", backend.numpy(c), want, rtol=1e-2,
          atol=1e-2)


def sms(backend: Backend) -> int:
    """The GPU's SM count; on the interpreter 32, so that small sizes split K too."""
    if not backend.gpu:
        return 32
    import torch

    return torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count


def main() -> None:
    backend, m, n, k = gemm_sample_args(__doc__, gpu=(16, 4096, 4096), cpu=(20, 100, 300))
    print(f"split-K a @ b of ({m}, {k}) @ ({k}, {n}) bfloat16 on {backend.describe()}")
    run(m, n, k, backend, (64, 64, 64) if backend.gpu else (16, 32, 32))


if __name__ == "__main__":
    main()
