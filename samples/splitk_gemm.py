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

`splitk_fused` does both in one launch: each block stores its partial tile, then counts itself
in on its tile's counter (`atomic_add`, acquire-release at device scope: its partial is
published, the others' are visible to it); the block that arrives last adds the S partial tiles
(in the same order whatever order the blocks ran in) and stores c, then sets the counter back
to 0 for the next launch. It shows the cross-block pattern (the counter's acquire-release
covers the whole block's stores and loads: docs/language.md), but it is not the faster one on
the H100: the last block's sum is serial work at the end of each tile, where the second kernel
spreads it over many blocks. Measured with the weight in L2 (CUDA-graph replay, bf16, H100):
16x4096x4096 at 64x64x64, S=2: 33.5 TFLOP/s against 36.4 for two launches; S=4: 26.3 against
31.2; 16x14336x4096 at 64x128x64, S=2: 36.9 against 39.4. Nor was a one-launch form without
fences (tenth session, weights read from DRAM, CUDA-graph replay, 16x4096x4096 at 64x64x128,
S=2: 15.8 us for the two launches): each block publishes its partial as tagged 64-bit words
(samples/_exchange.py), the tile's last arrival on a relaxed counter polls the others' words
and stores c, 16.9 us; with blocks taking their tiles from a ticket counter first (so that
only earlier tickets are waited for), 18.3 us: that atomic is one more round trip before a
block's first load.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
from _common import Backend, check, gemm_sample_args

import tilelang as ct


def store_partial(a, b, ws, i, j, s, BM, BN, BK, SPLIT):
    """ws[s]'s (BM, BN) tile (i, j) = the product over the s-th of SPLIT ranges of K tiles
    (zeros for an empty one)."""
    tiles = ct.num_tiles(a, axis=1, shape=(BM, BK))
    zero = ct.PaddingMode.ZERO
    acc = ct.zeros((BM, BN), ct.float32)
    # ranges differ by at most one tile; one is empty only when SPLIT > tiles
    for k in range(s * tiles // SPLIT, (s + 1) * tiles // SPLIT):
        x = ct.load(a, index=(i, k), shape=(BM, BK), padding_mode=zero)
        w = ct.load(b, index=(k, j), shape=(BK, BN), padding_mode=zero)
        acc = ct.mma(x, w, acc)
    ct.store(ws, index=(s, i, j), tile=ct.reshape(acc, (1, BM, BN)))


@ct.kernel(num_warps=4)
def partial_products(a, b, ws, BM: ct.Constant[int], BN: ct.Constant[int],
                     BK: ct.Constant[int], SPLIT: ct.Constant[int]):
    """ws[s] = the product over the s-th of SPLIT ranges of K tiles (zeros for an empty one)."""
    store_partial(a, b, ws, ct.bid(0), ct.bid(1), ct.bid(2), BM, BN, BK, SPLIT)


@ct.kernel(num_warps=4)
def splitk_fused(a, b, c, ws, counters, BM: ct.Constant[int], BN: ct.Constant[int],
                 BK: ct.Constant[int], SPLIT: ct.Constant[int]):
    """c = a @ b in one launch: partial tiles in ws (S, M, N), the last block of each tile adds
    them. `counters` (int32, one per output tile, zero before the first launch) is left zero."""
    i, j, s = ct.bid(0), ct.bid(1), ct.bid(2)
    store_partial(a, b, ws, i, j, s, BM, BN, BK, SPLIT)
    zero = ct.PaddingMode.ZERO
    tile = i * ct.num_blocks(1) + j
    if ct.atomic_add(counters, tile, 1) == SPLIT - 1:  # the tile's last block
        total = ct.zeros((BM, BN), ct.float32)
        for t in ct.static_iter(range(SPLIT)):
            part = ct.load(ws, index=(t, i, j), shape=(1, BM, BN), padding_mode=zero)
            total += ct.reshape(part, (BM, BN))
        ct.store(c, index=(i, j), tile=total.astype(c.dtype))
        ct.atomic_xchg(counters, tile, 0, memory_order=ct.MemoryOrder.RELAXED)


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


def launch_fused(stream, a, b, c, ws, counters, block: tuple[int, int, int],
                 n_split: int) -> None:
    """c = a @ b in one launch (splitk_fused); `counters`: int32, one per output tile, zero."""
    (m, _), n = a.shape, b.shape[1]
    bm, bn, bk = block
    ct.launch(stream, (ct.cdiv(m, bm), ct.cdiv(n, bn), n_split), splitk_fused,
              (a, b, c, ws, counters, bm, bn, bk, n_split))


def run(m: int, n: int, k: int, backend: Backend | None = None,
        block: tuple[int, int, int] = (64, 64, 64), n_split: int | None = None,
        fused: bool = False) -> None:
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
    if fused:
        bm, bn, _ = block
        counters = backend.array(np.zeros(ct.cdiv(m, bm) * ct.cdiv(n, bn), np.int32))
        for _ in range(2):  # the counters are left zero for the next launch
            launch_fused(backend.stream(), a, b, c, ws, counters, block, n_split)
        backend.synchronize()
        assert not backend.numpy(counters).any(), "the counters are back to zero"
    else:
        launch(backend.stream(), a, b, c, ws, block, n_split)
        backend.synchronize()
    want = a_host.astype(np.float64) @ b_host.astype(np.float64)
    # float32 sums, one rounding to bfloat16 (8 bits) at the end
    check(f"splitk_gemm[{m}x{n}x{k}, S={n_split}{', fused' if fused else ''}]",
          backend.numpy(c), want, rtol=1e-2,
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
