"""Sample: GEMM with a fused epilogue, out = gelu(a @ b + bias) in bfloat16.

Each block owns a (BM, BN) tile of the output. It walks the K dimension one (BM, BK) tile of `a`
and one (BK, BN) tile of `b` at a time, accumulating in float32 with `ct.mma` (tensor cores on
the GPU). Tiles that hang over the edge of `a` or `b` read zeros (`PaddingMode.ZERO`), which add
nothing to the sum, so M, N and K need not be multiples of the tile. The epilogue (bias, GELU,
conversion to bfloat16) is plain tile code after the loop: it runs on the accumulator while it
is still on chip, and only the final bfloat16 tile is written.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
from _common import Backend, check, gemm_sample_args

import tilelang as ct

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


@ct.kernel(num_warps=8)  # 4 warps would spill the float32 accumulator
def gemm_bias_gelu(a, b, bias, out, BM: ct.Constant[int], BN: ct.Constant[int],
                   BK: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    zero = ct.PaddingMode.ZERO
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
        x = ct.load(a, index=(i, k), shape=(BM, BK), padding_mode=zero)
        w = ct.load(b, index=(k, j), shape=(BK, BN), padding_mode=zero)
        acc = ct.mma(x, w, acc)
    acc = acc + ct.load(bias, index=(j,), shape=(BN,), padding_mode=zero).astype(ct.float32)
    inner = SQRT_2_OVER_PI * (acc + 0.044715 * acc * acc * acc)
    gelu = 0.5 * acc * (1.0 + ct.tanh(inner))  # GELU, tanh form (torch's approximate="tanh")
    ct.store(out, index=(i, j), tile=gelu.astype(out.dtype))


def reference(a: np.ndarray, b: np.ndarray, bias: np.ndarray) -> np.ndarray:
    y = a.astype(np.float64) @ b.astype(np.float64) + bias.astype(np.float64)
    return 0.5 * y * (1.0 + np.tanh(SQRT_2_OVER_PI * (y + 0.044715 * y**3)))


def run(m: int, n: int, k: int, backend: Backend | None = None,
        block: tuple[int, int, int] = (128, 128, 32)) -> None:
    backend = backend or Backend()
    bf16 = ml_dtypes.bfloat16
    rng = backend.rng
    a_host = (rng.standard_normal((m, k)) / math.sqrt(k)).astype(bf16)
    b_host = rng.standard_normal((k, n)).astype(bf16)
    bias_host = rng.standard_normal(n).astype(bf16)
    a, b, bias = backend.array(a_host), backend.array(b_host), backend.array(bias_host)
    out = backend.empty_like(np.empty((m, n), bf16))
    bm, bn, bk = block
    grid = (ct.cdiv(m, bm), ct.cdiv(n, bn))
    ct.launch(backend.stream(), grid, gemm_bias_gelu, (a, b, bias, out, bm, bn, bk))
    backend.synchronize()
    # bfloat16 keeps 8 bits: the result is rounded once, the rest is float32 accumulation
    check(f"gemm_bias_gelu[{m}x{n}x{k}]", backend.numpy(out), reference(a_host, b_host, bias_host),
          rtol=1e-2, atol=1e-2)


def main() -> None:
    backend, m, n, k = gemm_sample_args(__doc__)
    print(f"gelu(a @ b + bias) of ({m}, {k}) @ ({k}, {n}) bfloat16 on {backend.describe()}")
    run(m, n, k, backend, (128, 128, 64) if backend.gpu else (32, 32, 16))


if __name__ == "__main__":
    main()
