"""Front end: mma_scaled (cuTile's block-scaled product), composed of existing tile ops.

Hopper has no block-scaled instruction (Blackwell's tcgen05.mma has), so each operand is
scaled in registers and the product is an ordinary `tile.mma`:

    x' = bfloat16(float32(x) * float32(x_scale) repeated B times along K)   (same for y)
    acc' = mma(x', y', acc)

Every step is exact: an 8-bit float times a power of two has at most 4 significant bits, a
float4_e2m1fn value (2 bits) times a float8_e4m3fn or float8_e5m3fnu scale (4 bits; the
latter from 2**-17 to 114688) at most 6, which bfloat16
(8 bits, float32's exponent range) holds, down to its subnormals at 2**-133 and up to
overflow, where float32 overflows as well. So the product is the float64 reference's up to
the accumulation's rounding, as for `mma`. bfloat16 and not float16: a scale can be 2**+-127.
Composing keeps one `tile.mma` for the passes (layouts, tensor cores) and the interpreter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilelang.errors import TileTypeError
from tilelang.frontend import build
from tilelang.frontend.builtins.matmul import product_shapes
from tilelang.frontend.builtins.registry import lowers
from tilelang.frontend.semantics import describe
from tilelang.frontend.values import TileValue
from tilelang.language import dtypes as dt
from tilelang.language import products as lang
from tilelang.language.dtypes import DType

if TYPE_CHECKING:
    from tilelang.frontend.emitter import Emitter

# operand dtype -> {scale dtype: scaling block sizes B} (cuTile's table; the result is float32).
# float4_e2m1fn operands come from bytes (unpack_from_bytes), and so do its float8_e5m3fnu
# scales (cuTile: sm_107; here any target, as the product is composed).
SCALED: dict[DType, dict[DType, tuple[int, ...]]] = {
    dt.float8_e4m3fn: {dt.float8_e8m0fnu: (32,)},
    dt.float8_e5m2: {dt.float8_e8m0fnu: (32,)},
    dt.float4_e2m1fn: {dt.float8_e8m0fnu: (16, 32), dt.float8_e4m3fn: (16,),
                       dt.float8_e5m3fnu: (16, 32)},
}
ACCUMULATOR = dt.float32
SCALED_DTYPE = dt.bfloat16  # what the scaled operands are multiplied in (exact, see above)


@lowers(lang.mma_scaled)
def emit_mma_scaled(em: Emitter, x: object, x_scale: object, y: object, y_scale: object,
                    acc: object) -> TileValue:
    tiles = {"x": x, "y": y, "acc": acc, "x_scale": x_scale, "y_scale": y_scale}
    t = {name: _tile(value, name) for name, value in tiles.items()}
    check_dtypes(t["x"].dtype, t["x_scale"].dtype, t["y"].dtype, t["y_scale"].dtype,
                 t["acc"].dtype)
    bx = block_size(t["x"], t["x_scale"], -1, "x", "x_scale")
    by = block_size(t["y"], t["y_scale"], -2, "y", "y_scale")
    _, _, out_shape = product_shapes(t["x"].shape, t["y"].shape)
    if t["acc"].shape != out_shape:
        raise TileTypeError(f"Expect acc shape to be {out_shape}, got {t['acc'].shape}")
    xs = scaled(t["x"], t["x_scale"], -1, bx)
    ys = scaled(t["y"], t["y_scale"], -2, by)
    x_shape, y_shape, _ = product_shapes(xs.shape, ys.shape)
    operands = [build.broadcast_to(xs, x_shape), build.broadcast_to(ys, y_shape), t["acc"]]
    return build.op("mma", operands, ACCUMULATOR, out_shape)


def check_dtypes(x: DType, x_scale: DType, y: DType, y_scale: DType, acc: DType) -> None:
    """cuTile's rules and messages for mma_scaled's dtypes."""
    if x is not y:
        raise TileTypeError(f"x and y must have the same dtype, got {x.name} and {y.name}")
    if x_scale is not y_scale:
        raise TileTypeError(f"x_scale and y_scale must have the same dtype, got "
                            f"{x_scale.name} and {y_scale.name}")
    if x not in SCALED:
        names = ", ".join(d.name for d in SCALED)
        raise TileTypeError(f"Unsupported input dtype {x.name} for mma_scaled, supported input "
                            f"dtypes are {names}")
    if x_scale not in SCALED[x]:
        names = ", ".join(d.name for d in SCALED[x])
        raise TileTypeError(f"Unsupported scale dtype {x_scale.name} for input dtype {x.name}, "
                            f"supported scale dtypes are {names}")
    if acc is not ACCUMULATOR:
        raise TileTypeError(f"Unsupported acc dtype {acc.name} for mma_scaled, expected "
                            f"{ACCUMULATOR.name}")


def block_size(tile: TileValue, scale: TileValue, k_axis: int, name: str, scale_name: str) -> int:
    """B = K // K_s, checked against cuTile's table; every other dimension must match."""
    k = k_axis % tile.ndim
    if scale.ndim != tile.ndim or any(a != b for i, (a, b) in
                                      enumerate(zip(tile.shape, scale.shape)) if i != k):
        raise TileTypeError(f"{scale_name} shape {scale.shape} is not compatible with {name} "
                            f"shape {tile.shape}. All dimensions except K axis {k} must match")
    allowed = SCALED[tile.dtype][scale.dtype]
    b, rem = divmod(tile.shape[k], scale.shape[k])
    if rem or b not in allowed:
        raise TileTypeError(
            f"For mma_scaled with dtype={tile.dtype.name}, scale_dtype={scale.dtype.name}: "
            f"{name}.shape[{k}] must be an exact multiple of {scale_name}.shape[{k}] with "
            f"scaling block size B = K // K_s in {set(allowed)}, got {name}.shape[{k}] = "
            f"{tile.shape[k]} and {scale_name}.shape[{k}] = {scale.shape[k]}")
    return b


def scaled(tile: TileValue, scale: TileValue, k_axis: int, b: int) -> TileValue:
    """`tile` times its scales, each repeated `b` times along axis `k_axis`, in bfloat16."""
    k = k_axis % tile.ndim
    one_per_block = (*scale.shape[:k + 1], 1, *scale.shape[k + 1:])
    repeated = (*scale.shape[:k + 1], b, *scale.shape[k + 1:])
    factors = build.cast(scale, dt.float32)
    factors = build.broadcast_to(build.reshape(factors, one_per_block), repeated)
    factors = build.reshape(factors, tile.shape)
    values = build.op("mul", [build.cast(tile, dt.float32), factors], dt.float32, tile.shape)
    return build.cast(values, SCALED_DTYPE)


def _tile(value: object, name: str) -> TileValue:
    if not isinstance(value, TileValue) or not value.shape:
        raise TileTypeError(f"mma_scaled() expects a tile for `{name}`, got {describe(value)}")
    if value.ndim not in (2, 3):
        raise TileTypeError(f"Expect shape of `{name}` to be 2D or 3D, got {value.shape}")
    return value
