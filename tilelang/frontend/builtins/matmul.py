"""Front end: emitters for mma, matmul and the `@` operator (cuTile's typing rules).

Every product becomes one `tile.mma` on operands of one batch shape: the front end broadcasts
batch dimensions, turns a 1-d matmul operand into a matrix, and gives matmul a zero accumulator,
so the op has a single form for the passes after it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilelang.errors import TileTypeError
from tilelang.frontend import build, semantics
from tilelang.frontend.builtins.registry import lowers
from tilelang.frontend.semantics import describe
from tilelang.frontend.values import TileValue
from tilelang.language import dtypes as dt
from tilelang.language import products as lang
from tilelang.language.dtypes import DType

if TYPE_CHECKING:
    from tilelang.frontend.emitter import Emitter

# input dtype -> the accumulator dtypes mma accepts (cuTile's table)
ACCUMULATORS: dict[DType, tuple[DType, ...]] = {
    dt.float8_e4m3fn: (dt.float16, dt.float32),
    dt.float8_e5m2: (dt.float16, dt.float32),
    dt.float16: (dt.float16, dt.float32),
    dt.bfloat16: (dt.float32,),
    dt.float32: (dt.float32,),
    dt.tfloat32: (dt.float32,),
    dt.float64: (dt.float64,),
    dt.int8: (dt.int32,),
    dt.uint8: (dt.int32,),
}
BYTE_INTS = (dt.int8, dt.uint8)


@lowers(lang.mma)
def emit_mma(em: Emitter, x: object, y: object, acc: object, use_fast_acc: object) -> TileValue:
    x, y, acc = _tile(x, "x", "mma"), _tile(y, "y", "mma"), _tile(acc, "acc", "mma")
    for name, tile in (("x", x), ("y", y)):
        if tile.ndim not in (2, 3):
            raise TileTypeError(f"mma() needs 2-d or 3-d tiles, got `{name}` of shape "
                                f"{tile.shape}", hint="reshape a vector to (1, K) or (K, 1)")
    x_shape, y_shape, out_shape = product_shapes(x.shape, y.shape)
    if acc.shape != out_shape:
        raise TileTypeError(f"Expect acc shape to be {out_shape}, got {acc.shape}: x @ y of "
                            f"shapes {x.shape} and {y.shape} has shape {out_shape}")
    fast = _constant_bool(use_fast_acc, "use_fast_acc")
    if fast and x.dtype not in dt.FLOAT8_DTYPES:
        raise TileTypeError(f"use_fast_acc is only supported for fp8 inputs (float8_e4m3fn, "
                            f"float8_e5m2), got {x.dtype.name}")
    check_dtypes(x.dtype, y.dtype, acc.dtype)
    attrs = {"use_fast_acc": True} if fast else {}
    operands = [build.broadcast_to(x, x_shape), build.broadcast_to(y, y_shape), acc]
    return build.op("mma", operands, acc.dtype, acc.shape, **attrs)


@lowers(lang.matmul)
def emit_matmul(em: Emitter, x: object, y: object) -> TileValue:
    return matmul(_tile(x, "x", "matmul"), _tile(y, "y", "matmul"))


def matmul(x: TileValue, y: TileValue) -> TileValue:
    """`x @ y`: NumPy's matmul shapes, in the promoted dtype, accumulated at full precision."""
    for name, tile in (("x", x), ("y", y)):
        if tile.ndim not in (1, 2, 3):
            raise TileTypeError(f"matmul() needs tiles of 1 to 3 dimensions, got `{name}` of "
                                f"shape {tile.shape}")
    x2 = build.reshape(x, (1, *x.shape)) if x.ndim == 1 else x  # a row vector
    y2 = build.reshape(y, (*y.shape, 1)) if y.ndim == 1 else y  # a column vector
    x_shape, y_shape, acc_shape = product_shapes(x2.shape, y2.shape, x.shape, y.shape)
    dtype = semantics.promote(x.dtype, y.dtype)
    acc_dtype = matmul_accumulator(dtype)
    zero = build.splat(build.constant(0, acc_dtype), acc_shape)
    operands = [build.broadcast_to(build.cast(t, dtype), s)
                for t, s in ((x2, x_shape), (y2, y_shape))]
    product = build.cast(build.op("mma", [*operands, zero], acc_dtype, acc_shape), dtype)
    out_shape = acc_shape
    if x.ndim == 1:
        out_shape = out_shape[:-2] + out_shape[-1:]
    if y.ndim == 1:
        out_shape = out_shape[:-1]
    return build.reshape(product, out_shape)


def matmul_accumulator(dtype: DType) -> DType:
    """What matmul accumulates `dtype` inputs in: float32 for floats of 32 bits or fewer (also
    for float16 and fp8, where cuTile's choice is unspecified), float64, int32 for 8-bit ints."""
    check_dtypes(dtype, dtype, None)
    return ACCUMULATORS[dtype][-1]


def check_dtypes(x: DType, y: DType, acc: DType | None) -> None:
    """cuTile's rules (and messages) for the dtypes of an mma's inputs and accumulator."""
    if x is not y and not (x in BYTE_INTS and y in BYTE_INTS):
        raise TileTypeError(f"x and y must have the same dtype unless they are int8/uint8, got "
                            f"{x.name} and {y.name}",
                            hint="mma never promotes: convert one with .astype(...)")
    if x not in ACCUMULATORS:
        supported = ", ".join(d.name for d in ACCUMULATORS)
        raise TileTypeError(f"Unsupported input dtype {x.name}: the supported dtypes are "
                            f"{supported}")
    if acc is not None and acc not in ACCUMULATORS[x]:
        allowed = " or ".join(d.name for d in ACCUMULATORS[x])
        raise TileTypeError(f"Unsupported acc dtype {acc.name} for {x.name} inputs: the "
                            f"accumulator must be {allowed}")


def product_shapes(x: tuple[int, ...], y: tuple[int, ...], x_given: tuple[int, ...] = (),
                   y_given: tuple[int, ...] = ()) -> tuple[tuple[int, ...], ...]:
    """(x's, y's and the product's shape) for matrices `x` and `y` with batch dimensions
    broadcast; `x_given`/`y_given` are the shapes the user wrote, for the message."""
    shown = f"{x_given or x}, {y_given or y}"
    if x[-1] != y[-2]:
        raise TileTypeError(f"Incompatible shapes for matrix mul on tiles: {shown}: x has "
                            f"{x[-1]} columns but y has {y[-2]} rows")
    try:
        batch = semantics.broadcast_shapes(x[:-2], y[:-2])
    except TileTypeError:
        raise TileTypeError(f"Incompatible shapes for matrix mul on tiles: {shown}: the batch "
                            f"dimensions {x[0]} and {y[0]} differ") from None
    return (*batch, *x[-2:]), (*batch, *y[-2:]), (*batch, x[-2], y[-1])


def _tile(value: object, name: str, fn: str) -> TileValue:
    if not isinstance(value, TileValue) or not value.shape:
        raise TileTypeError(f"{fn}() expects a tile for `{name}`, got {describe(value)}")
    return value


def _constant_bool(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise TileTypeError(f"{name} must be a constant bool, got {describe(value)}")
    return value
