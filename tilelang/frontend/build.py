"""Front end: emit `tile` ops for front-end values, at the ambient insertion point and location."""

from __future__ import annotations

from collections.abc import Sequence

import mlir.ir as ir

from tilelang.dialect import ops, tensor_type
from tilelang.errors import TileTypeError, TileValueError
from tilelang.frontend import semantics
from tilelang.frontend import values as frontend_values
from tilelang.frontend.semantics import Scalar, describe
from tilelang.frontend.values import ArrayValue, TileValue, is_loose
from tilelang.language import dtypes as dt
from tilelang.language.dtypes import DType


def op(name: str, operands: Sequence[TileValue | ArrayValue], dtype: DType, shape: tuple[int, ...],
       **attrs: ops.AttrValue) -> TileValue:
    """Emit `tile.<name>` on tile values, returning its single result as a TileValue."""
    semantics.check_tile_size(shape, "the result tile shape")  # broadcasts and products too
    result = ops.create(name, [v.value for v in operands], [tensor_type(shape, dtype)], **attrs)
    return TileValue(result.result, dtype, shape)


def constant(value: Scalar, dtype: DType) -> TileValue:
    """A typed scalar constant; the value must be representable in `dtype`."""
    if dtype.is_integer or dtype.kind == "b":
        semantics.check_fits(value, dtype)
    attr = ops.constant_attr(value, dtype)
    result = ops.create("constant", [], [tensor_type((), dtype)], value=attr)
    return TileValue(result.result, dtype, ())


def to_tile(value: object, dtype: DType | None = None) -> TileValue:
    """A TileValue for `value`: loose constants take `dtype` (or their default dtype)."""
    if isinstance(value, TileValue):
        return value if dtype is None else cast(value, dtype)
    if is_loose(value):
        return constant(value, dtype or semantics.constant_dtype(value))
    raise TileTypeError(f"expected a tile or a number, got {describe(value)}")


def cast(value: TileValue, dtype: DType) -> TileValue:
    if value.dtype is dtype:
        return value
    return op("cast", [value], dtype, value.shape)


def splat(value: TileValue, shape: tuple[int, ...]) -> TileValue:
    return op("splat", [value], value.dtype, shape) if shape else value


def reshape(value: TileValue, shape: tuple[int, ...]) -> TileValue:
    if value.shape == shape:
        return value
    if _size(value.shape) != _size(shape):
        raise TileValueError(f"cannot reshape a tile of shape {value.shape} into {shape}")
    if not value.shape:
        return splat(value, shape)
    return op("reshape", [value], value.dtype, shape)


def broadcast_to(value: TileValue, shape: tuple[int, ...]) -> TileValue:
    """NumPy broadcasting of `value` to exactly `shape`."""
    if value.shape == shape:
        return value
    if semantics.broadcast_shapes(value.shape, shape) != shape:
        raise TileTypeError(f"cannot broadcast a tile of shape {value.shape} to {shape}")
    if not value.shape:
        return splat(value, shape)
    ranked = reshape(value, (1,) * (len(shape) - value.ndim) + value.shape)
    return op("broadcast", [ranked], value.dtype, shape)


def _size(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def bool_of(value: TileValue) -> TileValue:
    """A bool tile: `value != 0` unless it already is one."""
    if value.dtype is dt.bool_:
        return value
    zero = splat(constant(0, value.dtype), value.shape)
    return op("cmp", [value, zero], dt.bool_, value.shape, predicate="ne")


def elementwise(name: str, operands: list[TileValue], dtype: DType | None = None,
                **attrs: ops.AttrValue) -> TileValue:
    """Emit an element-wise op on operands already of one dtype and shape."""
    first = operands[0]
    folded = _fold(name, operands, dtype or first.dtype, attrs)
    if folded is not None:
        return folded
    return op(name, operands, dtype or first.dtype, first.shape, **attrs)


FOLDED = ("add", "sub", "mul", "floordiv", "mod", "minimum", "maximum", "and", "or", "xor",
          "shl", "shr", "neg", "invert", "cmp")


def _fold(name: str, operands: list[TileValue], dtype: DType, attrs: dict) -> TileValue | None:
    """Integer and bool arithmetic, and comparisons, of scalar constants: a constant, computed
    with the interpreter's exact semantics (cuTile folds strictly typed constants, so that
    `static_assert(ct.int16(2) + 5 == 7)` holds). Float arithmetic is left to the target."""
    if name not in FOLDED or operands[0].shape:
        return None
    values = [constant_value(v) for v in operands]
    if any(v is None for v in values):
        return None
    if name != "cmp" and any(v.dtype.is_float for v in operands):
        return None
    if name in ("floordiv", "mod") and values[1] == 0:
        return None  # left to run time, as a division by zero is
    import numpy as np

    from tilelang.dialect import semantics as exact

    arrays = [exact.hold(v, o.dtype) for v, o in zip(values, operands, strict=True)]
    with np.errstate(all="ignore"):
        if name == "cmp":
            result = exact.compare(str(attrs["predicate"]), *arrays)
        elif len(arrays) == 2:
            result = exact.BINARY[f"tile.{name}"](*arrays)
        else:
            result = exact.UNARY[f"tile.{name}"](*arrays)
    return constant(np.asarray(result).item(), dtype)


def constant_value(value: TileValue) -> Scalar | None:
    """The Python value of a scalar `tile.constant` result, or None if it is not one."""
    owner = value.value.owner
    if value.shape or not isinstance(owner, ir.Operation | ir.OpView):
        return None
    if owner.name != "tile.constant":
        return None
    return ops.constant_value(owner.attributes["value"], value.dtype)


frontend_values.STATIC.constant_value = constant_value  # static_eval's int(t), bool(t), ...
