"""Sample: grouped GEMM, as a mixture-of-experts layer runs it: out[t] = x[t] @ w[expert(t)].

The tokens `x` (T, K) are already sorted by expert: expert e owns rows offsets[e] to
offsets[e + 1] (an int32 array of E + 1 group starts, the last one T), and `w` (E, K, N) holds
one weight matrix per expert. A group may have any number of rows, none included.

Block (m, n, e) computes the (BM, BN) tile (m, n) of expert e's rows. It takes a view of its
group's rows (`Array.slice`), so the tile indices count from the group's first row and a tile
that hangs past the group's end reads zeros there and stores nothing there, exactly as at the
edge of an array: rows of the next expert are neither used nor overwritten. The grid has room for
the largest group (the host knows the offsets when it launches); blocks past their own group's
end return at once.
"""

from __future__ import annotations

import argparse

import ml_dtypes
import numpy as np
from _common import Backend, check

import tilelang as ct

ZERO = ct.PaddingMode.ZERO


@ct.kernel(num_warps=8)  # 4 warps would spill the float32 accumulator
def grouped_gemm(x, w, offsets, out, BM: ct.Constant[int], BN: ct.Constant[int],
                 BK: ct.Constant[int]):
    m, n, expert = ct.bid(0), ct.bid(1), ct.bid(2)
    bounds = offsets.tiled_view(())  # single elements, loaded as scalars
    start, stop = bounds.load(expert), bounds.load(expert + 1)
    if m * BM >= stop - start:
        return  # this group has fewer row tiles than the grid allows for
    rows, out_rows = x.slice(0, start, stop), out.slice(0, start, stop)
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(x, axis=1, shape=(BM, BK))):
        a = ct.load(rows, index=(m, k), shape=(BM, BK), padding_mode=ZERO)
        b = ct.load(w, index=(expert, k, n), shape=(1, BK, BN), padding_mode=ZERO)
        acc = ct.mma(a, b.reshape((BK, BN)), acc)
    ct.store(out_rows, index=(m, n), tile=acc.astype(out.dtype))


def group_offsets(sizes: list[int]) -> np.ndarray:
    """E + 1 group starts (the last is the number of tokens) from the tokens per expert."""
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int32)


def launch_grouped_gemm(stream, x, w, offsets: np.ndarray, device_offsets, out,
                        block: tuple[int, int, int] = (128, 128, 32), warps: int = 8) -> None:
    """`offsets` on the host sizes the grid; `device_offsets` is the kernel's copy."""
    bm, bn, bk = block
    experts, _, n = w.shape
    largest = int(np.max(np.diff(offsets))) if experts else 0
    grid = (max(1, ct.cdiv(largest, bm)), ct.cdiv(n, bn), experts)
    kernel = grouped_gemm.replace_hints(num_warps=warps)
    ct.launch(stream, grid, kernel, (x, w, device_offsets, out, bm, bn, bk))


def reference(x: np.ndarray, w: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    out = np.zeros((x.shape[0], w.shape[2]))
    for e in range(w.shape[0]):
        lo, hi = offsets[e], offsets[e + 1]
        out[lo:hi] = x[lo:hi].astype(np.float64) @ w[e].astype(np.float64)
    return out


def run(sizes: list[int], n: int, k: int, backend: Backend | None = None,
        block: tuple[int, int, int] = (128, 128, 32), warps: int = 8, spare_rows: int = 0,
        ) -> None:
    """Experts with `sizes[e]` tokens each, (k, n) weights, bf16 in and out. `spare_rows`
    unused rows follow the tokens in `x` and `out` (a capacity-sized buffer): they must stay
    untouched, which shows that the last group's tiles are masked at the group's end."""
    backend = backend or Backend()
    bf16 = ml_dtypes.bfloat16
    rng = backend.rng
    tokens, experts = sum(sizes), len(sizes)
    offsets = group_offsets(sizes)
    x_host = (rng.standard_normal((tokens + spare_rows, k)) / np.sqrt(k)).astype(bf16)
    w_host = rng.standard_normal((experts, k, n)).astype(bf16)
    x, w, device_offsets = (backend.array(a) for a in (x_host, w_host, offsets))
    out = backend.empty_like(np.empty((tokens + spare_rows, n), bf16))
    launch_grouped_gemm(backend.stream(), x, w, offsets, device_offsets, out, block, warps)
    backend.synchronize()
    got = backend.numpy(out)
    spare = got[tokens:].astype(np.float32)
    assert np.isnan(spare).all(), f"{int((~np.isnan(spare)).sum())} spare elements were written"
    # bfloat16 keeps 8 bits: the result is rounded once, the rest is float32 accumulation
    check(f"grouped_gemm[{experts} experts, {tokens} tokens, {k}->{n}]", got[:tokens],
          reference(x_host[:tokens], w_host, offsets), rtol=1e-2, atol=1e-2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experts", type=int, default=None)
    parser.add_argument("--tokens", type=int, default=None, help="tokens in all")
    parser.add_argument("-n", type=int, default=None)
    parser.add_argument("-k", type=int, default=None)
    parser.add_argument("--interpret", action="store_true", help="run on the CPU interpreter")
    args = parser.parse_args()
    backend = Backend(force_interpreter=args.interpret)
    defaults = (8, 8000, 2048, 1024) if backend.gpu else (5, 300, 70, 90)
    experts, tokens, n, k = (given or default for given, default in zip(
        (args.experts, args.tokens, args.n, args.k), defaults, strict=True))
    # uneven groups, as a router makes them (one may be empty)
    weights = backend.rng.dirichlet(np.ones(experts) * 0.7)
    sizes = np.floor(weights * tokens).astype(int)
    sizes[0] += tokens - sizes.sum()
    print(f"grouped GEMM, {experts} experts with {[int(s) for s in sizes]} of {tokens} tokens, "
          f"({k} -> {n}) bfloat16 on {backend.describe()}")
    block, warps = ((128, 128, 32), 8) if backend.gpu else ((32, 32, 16), 4)
    run(list(sizes), n, k, backend, block, warps)


if __name__ == "__main__":
    main()
