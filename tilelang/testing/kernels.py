"""Testing: kernels that several test tiers compile or run."""

from __future__ import annotations

import tilelang as ct


def make_matmul(num_warps: int = 4, scale_in_loop: bool = False,
                accumulator: ct.DType = ct.float32) -> ct.Kernel:
    """c = a @ b in float32 accumulation (or `accumulator`'s: int32 for int8 inputs) over a K
    loop of (BM, BK) x (BK, BN) tiles, stored in c's dtype; edge tiles read zeros.
    `scale_in_loop` doubles `a`'s tile inside the loop (work that keeps the loop off the
    whole-loop path of passes/matmul_loops.py; on sm_90 it takes the staged-loops path, B
    staged and A in registers)."""

    @ct.kernel(num_warps=num_warps)
    def matmul(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
        i, j = ct.bid(0), ct.bid(1)
        acc = ct.zeros((BM, BN), accumulator)
        for k in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
            x = ct.load(a, (i, k), (BM, BK), padding_mode=ct.PaddingMode.ZERO)
            y = ct.load(b, (k, j), (BK, BN), padding_mode=ct.PaddingMode.ZERO)
            if scale_in_loop:
                x = x * 2
            acc = ct.mma(x, y, acc)
        ct.store(c, (i, j), acc.astype(c.dtype))

    return matmul


def make_accumulating_matmul(num_warps: int = 8) -> ct.Kernel:
    """c += a @ b: the accumulator starts as c's tile, in c's dtype widened to float32."""

    @ct.kernel(num_warps=num_warps)
    def accumulate_into(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int],
                        BK: ct.Constant[int]):
        i, j = ct.bid(0), ct.bid(1)
        zero = ct.PaddingMode.ZERO
        acc = ct.load(c, (i, j), (BM, BN), padding_mode=zero).astype(ct.float32)
        for k in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
            x = ct.load(a, (i, k), (BM, BK), padding_mode=zero)
            y = ct.load(b, (k, j), (BK, BN), padding_mode=zero)
            acc = ct.mma(x, y, acc)
        ct.store(c, (i, j), acc.astype(c.dtype))

    return accumulate_into


def make_batched_matmul(num_warps: int = 4) -> ct.Kernel:
    """c[z] = a[z] @ b[z] with (1, BM, BK) x (1, BK, BN) tiles reshaped to 2-d for the product
    and back to (1, BM, BN) for the store; grid (M tiles, N tiles, batch)."""

    @ct.kernel(num_warps=num_warps)
    def batched_matmul(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int],
                       BK: ct.Constant[int]):
        i, j, z = ct.bid(0), ct.bid(1), ct.bid(2)
        zero = ct.PaddingMode.ZERO
        acc = ct.zeros((BM, BN), ct.float32)
        for k in range(ct.num_tiles(a, axis=2, shape=(1, BM, BK))):
            x = ct.reshape(ct.load(a, (z, i, k), (1, BM, BK), padding_mode=zero), (BM, BK))
            y = ct.reshape(ct.load(b, (z, k, j), (1, BK, BN), padding_mode=zero), (BK, BN))
            acc = ct.mma(x, y, acc)
        ct.store(c, (z, i, j), ct.reshape(acc.astype(c.dtype), (1, BM, BN)))

    return batched_matmul


def make_transposed_a_matmul(num_warps: int = 8) -> ct.Kernel:
    """c = at.T @ b with at given (K, M), its tiles loaded (BK, BM) and transposed (a weight
    gradient's `dy.T @ x`, spelled with ct.transpose); float32 accumulation."""

    @ct.kernel(num_warps=num_warps)
    def transposed_a(at, b, c, BM: ct.Constant[int], BN: ct.Constant[int],
                     BK: ct.Constant[int]):
        i, j = ct.bid(0), ct.bid(1)
        acc = ct.zeros((BM, BN), ct.float32)
        for k in range(ct.num_tiles(at, axis=0, shape=(BK, BM))):
            x = ct.load(at, (k, i), (BK, BM), padding_mode=ct.PaddingMode.ZERO)
            y = ct.load(b, (k, j), (BK, BN), padding_mode=ct.PaddingMode.ZERO)
            acc = ct.mma(ct.transpose(x), y, acc)
        ct.store(c, (i, j), acc.astype(c.dtype))

    return transposed_a


def make_linear(num_warps: int = 4) -> ct.Kernel:
    """y = x @ w.T (w is (N, K), as torch.nn.Linear stores its weight), float32 accumulation."""

    @ct.kernel(num_warps=num_warps)
    def linear(x, w, y, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
        i, j = ct.bid(0), ct.bid(1)
        acc = ct.zeros((BM, BN), ct.float32)
        for k in range(ct.num_tiles(x, axis=1, shape=(BM, BK))):
            a = ct.load(x, (i, k), (BM, BK), padding_mode=ct.PaddingMode.ZERO)
            b = ct.load(w, (j, k), (BN, BK), padding_mode=ct.PaddingMode.ZERO)
            acc = ct.mma(a, ct.transpose(b), acc)
        ct.store(y, (i, j), acc.astype(y.dtype))

    return linear


def make_two_products(num_warps: int = 8) -> ct.Kernel:
    """c = a @ b + a2 @ b2 + (column sums of bias's tile), in two K loops that share one TMA
    ring on sm_90 (simt/warp_specialize.py: the ring's count runs on from the first loop into
    the second); the column sums cross warps through shared memory before the loops, so the
    ring lies past that buffer."""

    @ct.kernel(num_warps=num_warps)
    def two_products(a, b, a2, b2, bias, c, BM: ct.Constant[int], BN: ct.Constant[int],
                     BK: ct.Constant[int]):
        i, j = ct.bid(0), ct.bid(1)
        t = ct.load(bias, (i, j), (BM, BN), padding_mode=ct.PaddingMode.ZERO)
        col = ct.sum(t.astype(ct.float32), axis=0, keepdims=True)
        acc = ct.zeros((BM, BN), ct.float32)
        for k in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
            x = ct.load(a, (i, k), (BM, BK), padding_mode=ct.PaddingMode.ZERO)
            y = ct.load(b, (k, j), (BK, BN), padding_mode=ct.PaddingMode.ZERO)
            acc = ct.mma(x, y, acc)
        for k in range(ct.num_tiles(a2, axis=1, shape=(BM, BK))):
            x = ct.load(a2, (i, k), (BM, BK), padding_mode=ct.PaddingMode.ZERO)
            y = ct.load(b2, (k, j), (BK, BN), padding_mode=ct.PaddingMode.ZERO)
            acc = ct.mma(x, y, acc)
        ct.store(c, (i, j), (acc + col).astype(c.dtype))

    return two_products


def make_persistent_matmul(num_warps: int = 8) -> ct.Kernel:
    """c = a @ b with a grid of any size walking the (BM, BN) tiles of c (a persistent kernel:
    tile t, t + num_blocks, ...), in groups of GROUP block rows for L2 reuse; float32
    accumulation. On sm_90 its K loop runs on the producer warpgroup's ring, whose count runs
    on from tile to tile (simt/warp_specialize.py)."""

    @ct.kernel(num_warps=num_warps)
    def persistent_matmul(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int],
                          BK: ct.Constant[int], GROUP: ct.Constant[int]):
        tiles_m = ct.num_tiles(c, axis=0, shape=(BM, BN))
        tiles_n = ct.num_tiles(c, axis=1, shape=(BM, BN))
        for t in range(ct.bid(0), tiles_m * tiles_n, ct.num_blocks(0)):
            per_group = GROUP * tiles_n
            first = (t // per_group) * GROUP
            rows = ct.minimum(tiles_m - first, GROUP)
            i = first + (t % per_group) % rows
            j = (t % per_group) // rows
            acc = ct.zeros((BM, BN), ct.float32)
            for k in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
                x = ct.load(a, (i, k), (BM, BK), padding_mode=ct.PaddingMode.ZERO)
                y = ct.load(b, (k, j), (BK, BN), padding_mode=ct.PaddingMode.ZERO)
                acc = ct.mma(x, y, acc)
            ct.store(c, (i, j), acc.astype(c.dtype))

    return persistent_matmul


def make_grouped_matmul(num_warps: int = 4) -> ct.Kernel:
    """A grouped GEMM: C[g] = A[g] @ B[g] for lists of arrays, block (i, j) of every group whose
    C has one; each group's arrays are picked from the lists at run time, so its K loop cannot
    use TMA tensor maps (made on the host for kernel parameters) and stages by cp.async."""

    @ct.kernel(num_warps=num_warps)
    def grouped_matmul(As, Bs, Cs, BM: ct.Constant[int], BN: ct.Constant[int],
                       BK: ct.Constant[int]):
        i, j = ct.bid(0), ct.bid(1)
        for g in range(len(As)):
            a, b, c = As[g], Bs[g], Cs[g]
            if i < ct.num_tiles(a, 0, (BM, BK)) and j < ct.num_tiles(b, 1, (BK, BN)):
                acc = ct.zeros((BM, BN), ct.float32)
                for k in range(ct.num_tiles(a, 1, (BM, BK))):
                    x = ct.load(a, (i, k), (BM, BK), padding_mode=ct.PaddingMode.ZERO)
                    w = ct.load(b, (k, j), (BK, BN), padding_mode=ct.PaddingMode.ZERO)
                    acc = ct.mma(x, w, acc)
                ct.store(c, (i, j), acc.astype(c.dtype))

    return grouped_matmul


@ct.kernel
def copy_1d(x, y, T: ct.Constant[int]):
    """Block b copies elements [b*T, (b+1)*T) of x to y."""
    t = ct.load(x, (ct.bid(0),), (T,))
    ct.store(y, (ct.bid(0),), t)


@ct.kernel
def cast_1d(x, y, T: ct.Constant[int]):
    """Block b converts elements [b*T, (b+1)*T) of x to y's dtype."""
    t = ct.load(x, (ct.bid(0),), (T,))
    ct.store(y, (ct.bid(0),), t.astype(y.dtype))


@ct.kernel
def scaled_gemm(A, AS, B, BS, C, BM: ct.Constant[int], BN: ct.Constant[int],
                BK: ct.Constant[int]):
    """C = mma_scaled(A, AS, B, BS) over K in BK steps, scales in blocks of 32 (fp8 operands)."""
    i, j = ct.bid(0), ct.bid(1)
    zero = ct.PaddingMode.ZERO
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(BM, BK))):
        a = ct.load(A, (i, k), (BM, BK), padding_mode=zero)
        s = ct.load(AS, (i, k), (BM, BK // 32), padding_mode=zero)
        b = ct.load(B, (k, j), (BK, BN), padding_mode=zero)
        t = ct.load(BS, (k, j), (BK // 32, BN), padding_mode=zero)
        acc = ct.mma_scaled(a, s, b, t, acc)
    ct.store(C, (i, j), acc)


@ct.kernel(num_warps=8)
def hinted_matmul(a, b, c, LA: ct.Constant[int | None], LB: ct.Constant[int | None],
                  TMA_LOADS: ct.Constant[bool | None], TMA_STORE: ct.Constant[bool | None],
                  BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    """c = a @ b with access hints (None: no hint): `latency=` LA and LB on the two loads,
    `allow_tma=` TMA_LOADS on both and TMA_STORE on the store."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, 1, (BM, BK))):
        x = ct.load(a, (i, k), (BM, BK), padding_mode=ct.PaddingMode.ZERO, latency=LA,
                    allow_tma=TMA_LOADS)
        y = ct.load(b, (k, j), (BK, BN), padding_mode=ct.PaddingMode.ZERO, latency=LB,
                    allow_tma=TMA_LOADS)
        acc = ct.mma(x, y, acc)
    ct.store(c, (i, j), acc.astype(c.dtype), allow_tma=TMA_STORE)


@ct.kernel(num_warps=4)
def hinted_two_products(q, k, v, out, scale: float, L: ct.Constant[int | None],
                        BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """out = (q @ k.T * scale, rounded to v's dtype) @ v per (batch, head), the key loop spelled
    as cuTile's FMHA spells it (keys loaded transposed by `order=`, both loads with the
    `latency=` hint L) but without the softmax: two products an iteration with work between,
    a staged loop (passes/staged_loops.py). Keys past the end load as zeros and add nothing."""
    i, bh = ct.bid(0), ct.bid(1)
    batch, head = bh // q.shape[1], bh % q.shape[1]
    zero = ct.PaddingMode.ZERO
    x = ct.load(q, (batch, head, i, 0), (1, 1, BM, D), padding_mode=zero).reshape((BM, D))
    acc = ct.zeros((BM, D), ct.float32)
    for j in range(ct.cdiv(k.shape[2], BN)):
        kt = ct.load(k, (batch, head, 0, j), (1, 1, D, BN), order=(0, 1, 3, 2), latency=L,
                     padding_mode=zero).reshape((D, BN))
        vj = ct.load(v, (batch, head, j, 0), (1, 1, BN, D), latency=L,
                     padding_mode=zero).reshape((BN, D))
        s = ct.mma(x, kt, ct.zeros((BM, BN), ct.float32)) * scale
        acc = ct.mma(s.astype(vj.dtype), vj, acc)
    ct.store(out, (batch, head, i, 0), acc.astype(out.dtype).reshape((1, 1, BM, D)))
