"""Language: matrix products of tiles (tensor cores on the GPU)."""

from __future__ import annotations

from tilelang.language.stub import stub
from tilelang.language.tile import Tile


@stub
def mma(x: Tile, y: Tile, /, acc: Tile, use_fast_acc: bool = False) -> Tile:
    """`x @ y + acc`, in `acc`'s dtype and shape: x is (M, K), y is (K, N), acc is (M, N), or
    with a batch dimension in front (a 2-d x or y is broadcast over the batch).

    x and y have one dtype (int8 and uint8 may be mixed) and are never promoted. Input dtypes
    and the accumulators they allow: float16 (float16 or float32), bfloat16, float32, tfloat32
    (float32), float64 (float64), float8_e4m3fn and float8_e5m2 (float16 or float32), int8 and
    uint8 (int32). `use_fast_acc` (fp8 inputs only) allows a less precise accumulation.

    Example:
        >>> acc = tilelang.zeros((64, 64), tilelang.float32)
        >>> acc = tilelang.mma(a, b, acc)  # a: (64, 32) float16, b: (32, 64) float16
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def matmul(x: Tile, y: Tile, /) -> Tile:
    """The matrix product `x @ y` in the dtype x and y promote to (NumPy's matmul shapes: a 1-d
    x or y is a row or column vector, batch dimensions broadcast; at most 3 dimensions).

    Example:
        >>> c = tilelang.matmul(a, b)  # also written a @ b
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits


@stub
def mma_scaled(x: Tile, x_scale: Tile, y: Tile, y_scale: Tile, /, acc: Tile) -> Tile:
    """Block-scaled `x @ y + acc`: every block of B consecutive K elements of x and y has its
    own scale, `acc[i, j] + sum_k x[i, k] * x_scale[i, k // B] * y[k, j] * y_scale[k // B, j]`.

    x is (M, K), x_scale (M, K // B), y (K, N), y_scale (K // B, N), acc (M, N) float32, or each
    with a batch dimension in front (x's and y's batches broadcast, as for `mma`; a scale's
    batch must be its operand's). Dtypes (cuTile's table): x and y float8_e4m3fn or
    float8_e5m2 (one dtype) with float8_e8m0fnu scales, B = 32; or float4_e2m1fn (from bytes:
    unpack_from_bytes) with float8_e8m0fnu scales, B = 16 or 32, or float8_e4m3fn scales,
    B = 16. Hopper has no block-scaled
    instruction: the operands are scaled in registers (exactly, into bfloat16) and multiplied
    on the tensor cores.

    Example:
        >>> acc = tilelang.mma_scaled(a, a_scale, b, b_scale, acc)  # a: (64, 128) fp8,
        ... # a_scale: (64, 4) float8_e8m0fnu, b: (128, 64) fp8, b_scale: (4, 64)
    """
    raise NotImplementedError  # never run: @stub answers host calls, the front end emits
