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
