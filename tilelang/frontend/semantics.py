"""Front end: typing rules (dtype promotion, broadcasting, constant typing), free of MLIR."""

from __future__ import annotations

from tilelang.errors import TileTypeError, TileValueError
from tilelang.language import dtypes as dt
from tilelang.language.dtypes import DType

Scalar = bool | int | float  # a loose (weakly typed) Python constant

_CATEGORY = {"b": 0, "i": 1, "u": 1, "f": 2}


def category(dtype: DType) -> int:
    """0 for bool, 1 for integers, 2 for floats: promotion moves to the higher category."""
    return _CATEGORY[dtype.kind]


def int_range(dtype: DType) -> tuple[int, int]:
    if dtype.kind == "b":
        return 0, 1
    if dtype.kind == "u":
        return 0, 2**dtype.bitwidth - 1
    return -(2 ** (dtype.bitwidth - 1)), 2 ** (dtype.bitwidth - 1) - 1


def constant_dtype(value: Scalar) -> DType:
    """The dtype a loose constant takes when it must become a value of its own."""
    if isinstance(value, bool):
        return dt.bool_
    if isinstance(value, float):
        return dt.float32
    for candidate in (dt.int32, dt.int64, dt.uint64):
        lo, hi = int_range(candidate)
        if lo <= value <= hi:
            return candidate
    raise TileValueError(f"Constant {value} is out of range of any supported integer type")


def check_fits(value: Scalar, dtype: DType) -> None:
    """Raise if a loose constant cannot be represented in `dtype` (ints must be in range)."""
    if dtype.is_float or (isinstance(value, float) and dtype.kind == "b"):
        return
    if isinstance(value, float):
        raise TileTypeError(f"float constant {value} cannot become an integer of {dtype.name}")
    lo, hi = int_range(dtype)
    if not lo <= int(value) <= hi:
        raise TileValueError(f"Integer constant {value} is out of range of {dtype.name}")


def promote(a: DType, b: DType) -> DType:
    """The common dtype of two typed operands (cuTile's table)."""
    if a is b:
        return a
    if a.restricted or b.restricted:
        restricted = a if a.restricted else b
        raise TileTypeError(
            f"Implicit promotion of {a.name} and {b.name} is not supported: {restricted.name} "
            "is a restricted float, which converts only explicitly",
            hint="convert one operand explicitly with .astype(...)",
        )
    ca, cb = category(a), category(b)
    if ca != cb:
        return a if ca > cb else b
    if a.kind == "f":
        if {a.name, b.name} == {"float16", "bfloat16"}:
            raise _no_promotion(a, b)
        return a if a.bitwidth > b.bitwidth else b
    if a.kind != b.kind:
        raise _no_promotion(a, b)
    return a if a.bitwidth > b.bitwidth else b


def _no_promotion(a: DType, b: DType) -> TileTypeError:
    return TileTypeError(
        f"Implicit promotion of {a.name} and {b.name} is not supported",
        hint="convert one operand explicitly with .astype(...)",
    )


def promote_with_constant(dtype: DType, value: Scalar) -> DType:
    """The dtype of `typed op constant`: the typed side wins unless the constant's category is
    higher, in which case the constant's default dtype is used."""
    cdtype = constant_dtype(value)
    if category(cdtype) > category(dtype):
        return cdtype
    check_fits(value, dtype)
    return dtype


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """NumPy broadcasting of shapes; raises TileTypeError naming both shapes on mismatch."""
    ndim = max(len(s) for s in shapes)
    result = [1] * ndim
    for shape in shapes:
        padded = (1,) * (ndim - len(shape)) + tuple(shape)
        for i, (r, s) in enumerate(zip(result, padded, strict=True)):
            if r != s and 1 not in (r, s):
                raise TileTypeError(
                    f"shapes {' and '.join(str(tuple(x)) for x in shapes)} do not broadcast "
                    f"(dimension {i - ndim}: {r} vs {s})"
                )
            result[i] = max(r, s) if 1 in (r, s) else r
    return tuple(result)


def lossless_cast(src: DType, dst: DType) -> bool:
    """Whether values of `src` always convert exactly to `dst` (used by store's implicit cast)."""
    if src is dst:
        return True
    try:
        return promote(src, dst) is dst
    except TileTypeError:
        return False


def invalid_argument(param: str, what: str, hint: str | None = None) -> TileTypeError:
    """A TileTypeError about the builtin's argument `param`: the builtin's call (registry.py)
    names the argument and the function before `what`, as cuTile does ('Invalid argument
    "shape" of load(): ...'; a positional-only parameter by its 1-based number, '#1')."""
    error = TileTypeError(what, hint=hint)
    error.argument = param  # type: ignore[attr-defined]
    return error


def check_shape(shape: object, what: str = "tile shape", param: str = "shape",
                ndim: int | None = None) -> tuple[int, ...]:
    """Validate a constant tile shape: a tuple of positive Python ints (or one int), of `ndim`
    entries when given. Errors are TileTypeErrors about the argument `param` (cuTile's)."""
    hint = "use literals or Constant[int] parameters for tile shapes"
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, tuple):
        raise invalid_argument(param, "Expected a constant integer tuple, but given value has "
                                      f"type {type_str(shape)}", hint)
    for i, d in enumerate(shape):
        if _is_run_time(d):
            raise invalid_argument(param, "Expected a constant integer tuple, but given value "
                                          "is not constant", hint)
        if not isinstance(d, int) or isinstance(d, bool):
            raise invalid_argument(param, f"Expected a tuple of integers, but element #{i} has "
                                          f"type {type_str(d)}", hint)
    if ndim is not None and len(shape) != ndim:
        raise invalid_argument(param, f"Expected shape length to be {ndim}, got {len(shape)}")
    for i, d in enumerate(shape):
        if d <= 0:
            raise invalid_argument(param, f"Dimension #{i} of shape {shape} is not positive")
    check_tile_size(shape, what)
    return shape


def _is_run_time(value: object) -> bool:
    from tilelang.frontend.values import TileValue

    return isinstance(value, TileValue)


def type_str(value: object) -> str:
    """A value's type as cuTile spells it in messages: `Tile[int32,()]` (a constant too, as the
    value it would become), `Array[float32,(?,?):(?,?)]`."""
    from tilelang.frontend.values import ArrayValue, TileValue

    if isinstance(value, TileValue | bool | int | float):
        dtype = value.dtype if isinstance(value, TileValue) else constant_dtype(value)
        shape = value.shape if isinstance(value, TileValue) else ()
        return f"Tile[{dtype.name},{_tuple_str(shape)}]"
    if isinstance(value, ArrayValue):
        known = value.static_shape or (None,) * value.ndim
        strides = value.static_strides or (None,) * value.ndim
        return f"Array[{value.dtype.name},{_tuple_str(known)}:{_tuple_str(strides)}]"
    if value is None:
        return "None"
    return type(value).__name__


def _tuple_str(items: tuple[int | None, ...]) -> str:
    parts = ["?" if i is None else str(i) for i in items]
    return f"({','.join(parts)}{',' if len(parts) == 1 else ''})"


# The most elements a tile may have (docs/language.md, "Tiles"): a block holds its tiles in
# registers and shared memory (256 KB and 227 KB per SM on the H100), so a tile far beyond this
# cannot become a working kernel, and compiling one takes minutes; the interpreter holds each
# tile as a NumPy array (2**24 float64 elements are 128 MiB).
MAX_TILE_ELEMENTS = 2**24


def check_tile_size(shape: tuple[int, ...], what: str = "tile shape") -> None:
    """A `TileValueError` for a tile shape of more than MAX_TILE_ELEMENTS elements."""
    size = 1
    for d in shape:
        size *= d
    if size > MAX_TILE_ELEMENTS:
        raise TileValueError(
            f"{what} {shape} has {size} elements; a tile may have at most "
            f"{MAX_TILE_ELEMENTS} (2**24)",
            hint="use smaller tiles and more blocks, or loop over the data in tiles inside the "
                 "kernel",
        )


def normalize_axis(axis: object, ndim: int, what: str = "axis") -> int:
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise TileTypeError(f"{what} must be a constant int, got {describe(axis)}")
    if not -ndim <= axis < ndim:
        raise TileValueError(f"{what} {axis} is out of range for {ndim} dimensions")
    return axis % ndim


def describe(value: object) -> str:
    """A short description of a front-end value for error messages."""
    from tilelang.frontend.values import ArrayValue, TiledViewValue, TileValue

    if isinstance(value, TiledViewValue):
        return f"tiled view (tile shape {value.tile_shape}) of a {describe(value.array)}"
    if isinstance(value, TileValue):
        kind = "scalar" if not value.shape else f"tile of shape {value.shape}"
        return f"{value.dtype.name} {kind}"
    if isinstance(value, ArrayValue):
        return f"{value.ndim}-d {value.dtype.name} array"
    if isinstance(value, bool | int | float):
        return f"constant {value!r}"
    if isinstance(value, tuple):
        return "tuple (" + ", ".join(describe(v) for v in value) + ")"
    return type(value).__name__
