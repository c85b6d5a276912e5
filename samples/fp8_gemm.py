"""Sample: fp8 GEMM with per-tensor scales, out = (a @ b.T) * scale_a * scale_b in bfloat16.

What `torch._scaled_mm(a, b.t(), scale_a, scale_b, out_dtype=torch.bfloat16)` computes: `a`
(M, K) and `b` (N, K) hold float8_e4m3fn values, quantized with one float32 scale per tensor
(x ~ x_fp8 * scale; `quantize` below picks the scale that maps the largest magnitude to 448,
e4m3's largest value). `b` is stored as (N, K), K contiguous, as a linear layer's weight is (and
as torch requires): the kernel loads its tiles transposed with `order=(1, 0)`, giving the
(BK, BN) operand. Products accumulate in float32 over the K loop (on sm_90 each K tile's
wgmma products are added to a float32 accumulator, as cuBLASLt's default does;
TILELANG_FP8_ACCUMULATION=fast leaves the sums to wgmma: docs/language.md, "fp8
accumulation"); the two scales (1-element float32 arrays, so they can stay on the device) are
applied once, in the epilogue, before the conversion to bfloat16.

fp8 tiles need sm_90 or newer on the GPU (wgmma with e4m3 operands); the interpreter runs
them anywhere.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
from _common import Backend, check, gemm_sample_args

import tilelang as ct

E4M3_MAX = 448.0
ZERO = ct.PaddingMode.ZERO


@ct.kernel(num_warps=8)  # 4 warps would spill the float32 accumulator
def fp8_gemm(a, b, scale_a, scale_b, out, BM: ct.Constant[int], BN: ct.Constant[int],
             BK: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((BM, BN), ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
        x = ct.load(a, index=(i, k), shape=(BM, BK), padding_mode=ZERO)
        w = ct.load(b, index=(k, j), shape=(BK, BN), order=(1, 0), padding_mode=ZERO)  # of b.T
        acc = ct.mma(x, w, acc)
    scale = ct.gather(scale_a, 0) * ct.gather(scale_b, 0)
    ct.store(out, index=(i, j), tile=(acc * scale).astype(out.dtype))


def quantize(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(x / scale as float8_e4m3fn, scale as a 1-element float32 array), per tensor."""
    scale = np.float32(max(np.abs(x).max(), 1e-12) / E4M3_MAX)
    return (x / scale).astype(ml_dtypes.float8_e4m3fn), np.array([scale], np.float32)


def reference(a8, b8, scale_a, scale_b) -> np.ndarray:
    """The exact product of the quantized values (what the kernel multiplies), in float64."""
    a = a8.astype(np.float64) * np.float64(scale_a[0])
    b = b8.astype(np.float64) * np.float64(scale_b[0])
    return a @ b.T


def run(m: int, n: int, k: int, backend: Backend | None = None,
        block: tuple[int, int, int] = (128, 128, 32), warps: int = 8) -> None:
    backend = backend or Backend()
    rng = backend.rng
    a8, scale_a = quantize(rng.standard_normal((m, k)) / math.sqrt(k))
    b8, scale_b = quantize(rng.standard_normal((n, k)))
    a, b, sa, sb = (backend.array(x) for x in (a8, b8, scale_a, scale_b))
    out = backend.empty_like(np.empty((m, n), ml_dtypes.bfloat16))
    bm, bn, bk = block
    ct.launch(backend.stream(), (ct.cdiv(m, bm), ct.cdiv(n, bn)),
              fp8_gemm.replace_hints(num_warps=warps), (a, b, sa, sb, out, bm, bn, bk))
    backend.synchronize()
    # one bfloat16 rounding (2**-9 relative) over a float32 accumulation of exact products
    check(f"fp8_gemm[{m}x{n}x{k}]", backend.numpy(out), reference(a8, b8, scale_a, scale_b),
          rtol=1e-2, atol=1e-2)


def main() -> None:
    backend, m, n, k = gemm_sample_args(__doc__)
    print(f"({m}, {k}) @ ({n}, {k}).T float8_e4m3fn with per-tensor scales, bfloat16 out, on "
          f"{backend.describe()}")
    block, warps = ((128, 128, 128), 8) if backend.gpu else ((32, 32, 32), 4)
    run(m, n, k, backend, block, warps)


if __name__ == "__main__":
    main()
