"""Front end: emitters for reductions and scans (`tile.reduce` / `tile.scan` with a combiner)."""

from __future__ import annotations

import operator
import types
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import mlir.ir as ir
from mlir.dialects import gpu

from tilelang.dialect import ops, tensor_type
from tilelang.errors import TileTypeError, TileValueError
from tilelang.frontend import build, operators, semantics
from tilelang.frontend.builtins.common import as_tile
from tilelang.frontend.builtins.elementwise import DIRECTED, rounding_attribute
from tilelang.frontend.builtins.registry import NOT_IN_COMBINERS, lowers
from tilelang.frontend.local_functions import LocalFunction
from tilelang.frontend.semantics import describe, invalid_argument, type_str
from tilelang.frontend.values import TileValue, is_loose
from tilelang.language import dtypes as dt
from tilelang.language import reduction as lang
from tilelang.language.dtypes import DType
from tilelang.language.enums import RoundingMode

if TYPE_CHECKING:
    from tilelang.frontend.emitter import Emitter

MAX_INPUTS = 4  # the dialect's reduce/scan ops have four operand slots
Combine = Callable[[list[TileValue], list[TileValue]], Sequence[Any]]

# Python's operator functions a user may pass as `func`, as language operations.
_OPERATORS: dict[Any, Callable[[Any, Any], Any]] = {
    operator.add: lambda a, b: operators.binary("add", a, b),
    operator.mul: lambda a, b: operators.binary("mul", a, b),
    operator.and_: lambda a, b: operators.binary("bitwise_and", a, b),
    operator.or_: lambda a, b: operators.binary("bitwise_or", a, b),
    operator.xor: lambda a, b: operators.binary("bitwise_xor", a, b),
}


# ----- emitting the ops ---------------------------------------------------------------------------


def reduce_tiles(inputs: list[TileValue], axes: tuple[int, ...], identities: list[Any],
                 combine: Combine) -> list[TileValue]:
    """Emit `tile.reduce`; each result keeps the input's rank (reduced axes become 1)."""
    shape = tuple(1 if i in axes else d for i, d in enumerate(inputs[0].shape))
    return _emit("reduce", inputs, shape, identities, combine, axes=list(axes))


def scan_tiles(inputs: list[TileValue], axis: int, reverse: bool, identities: list[Any],
               combine: Combine) -> list[TileValue]:
    return _emit("scan", inputs, inputs[0].shape, identities, combine, axis=axis,
                 reverse=int(reverse))


def _emit(name: str, inputs: list[TileValue], shape: tuple[int, ...], identities: list[Any],
          combine: Combine, **attrs: object) -> list[TileValue]:
    dtypes = [v.dtype for v in inputs]
    attributes = {k: ops.to_attr(v) for k, v in attrs.items()}
    if len(inputs) > MAX_INPUTS:
        raise TileValueError(f"{name}() takes at most {MAX_INPUTS} tiles, got {len(inputs)}")
    segments = ir.DenseI32ArrayAttr.get([1] + [int(i < len(inputs)) for i in range(1, MAX_INPUTS)])
    attributes["operandSegmentSizes"] = attributes["resultSegmentSizes"] = segments
    attributes["identities"] = ir.ArrayAttr.get(
        [ops.constant_attr(_identity_value(i, d), d) for i, d in zip(identities, dtypes,
                                                                       strict=True)]
    )
    op = ir.Operation.create(
        f"tile.{name}", results=[tensor_type(shape, d) for d in dtypes],
        operands=[v.value for v in inputs], attributes=attributes, regions=1,
    )
    scalar_types = [tensor_type((), d) for d in dtypes]
    block = op.regions[0].blocks.append(*scalar_types, *scalar_types)
    args = [TileValue(a, d, ()) for a, d in zip(block.arguments, dtypes * 2, strict=True)]
    with ir.InsertionPoint(block):
        combined = combine(args[: len(dtypes)], args[len(dtypes):])
        gpu.YieldOp([_combined_value(v, d).value for v, d in zip(combined, dtypes, strict=True)])
    return [TileValue(r, d, shape) for r, d in zip(op.results, dtypes, strict=True)]


def _identity_value(value: object, dtype: DType) -> bool | int | float:
    if isinstance(value, TileValue):
        value = build.constant_value(value)
    if not is_loose(value):
        raise TileTypeError(f"an identity must be a constant number, got {describe(value)}")
    if dtype.kind == "b":
        return bool(value)
    if dtype.is_integer:
        if isinstance(value, float):
            if value in (float("inf"), float("-inf")):  # -inf for max is the integer minimum
                low, high = semantics.int_range(dtype)
                return high if value > 0 else low
            raise TileTypeError(f"identity {value!r} is not an integer for a {dtype.name} tile")
        semantics.check_fits(value, dtype)
    return value


def _combined_value(value: object, dtype: DType) -> TileValue:
    if is_loose(value):
        value = build.constant(value, dtype)
    if not isinstance(value, TileValue) or value.shape:
        raise TileTypeError(f"the combining function must return scalars, got {describe(value)}")
    if value.dtype is not dtype:
        raise TileTypeError(
            f"the combining function returns {value.dtype.name} for a {dtype.name} input",
            hint=f"cast its result with .astype(tilelang.{dtype.name})",
        )
    return value


# ----- arguments ------------------------------------------------------------------------------


def reduction_axes(axis: object, ndim: int, allow_tuple: bool = True) -> tuple[int, ...]:
    """Sorted, normalized axes: None means all of them."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, tuple):
        if not allow_tuple:
            raise TileTypeError("a tuple of axes is not supported here; give one int or None")
        normalized = [semantics.normalize_axis(a, ndim) for a in axis]
        for i, a in enumerate(normalized):
            if a in normalized[:i]:
                raise TileTypeError(f"Repeated reduction axis {a}")
        return tuple(sorted(normalized))
    return (semantics.normalize_axis(axis, ndim),)


def check_options(tile: TileValue, rounding_mode: object = None,
                  flush_to_zero: object = False) -> str | None:
    """cuTile's rules for the float options of sum, prod, max, min, cumsum and cumprod; the
    combining op's `rounding_mode` attribute (RZ, RM, RP; None for RN)."""
    if flush_to_zero and tile.dtype is not dt.float32:
        raise TileTypeError("Flush to zero can only be used for float32 type")
    if rounding_mode is None or rounding_mode is RoundingMode.RN:
        return None
    if rounding_mode not in DIRECTED:
        value = getattr(rounding_mode, "value", rounding_mode)
        raise TileTypeError(f"Rounding mode {value} is not supported")
    if not tile.dtype.is_float:
        raise TileTypeError("Rounding mode can only be used for unrestricted float types, "
                            f"but got {tile.dtype.name}")
    return rounding_attribute(rounding_mode)


def _arithmetic(tile: TileValue, fn: str) -> TileValue:
    """Restricted floats (tfloat32, 8-bit floats) cannot be reduced or scanned, as in cuTile."""
    if tile.dtype.kind not in "biuf" or not tile.dtype.is_arithmetic:
        what = "prefix scans" if fn in ("cumsum", "cumprod") else "reduction"
        raise TileTypeError(f"Non-arithmetic dtype {tile.dtype.name} is unsupported for {what}",
                            hint="convert the tile with .astype(tilelang.float32) first")
    return tile


def check_keepdims(keepdims: object) -> bool:
    """`keepdims` decides the result's shape: a constant bool (a run-time bool is cuTile's
    TileTypeError; it must not be taken as a true Python object)."""
    if isinstance(keepdims, bool):
        return keepdims
    if isinstance(keepdims, TileValue):
        raise invalid_argument("keepdims", "Expected a boolean constant, but given value is not "
                                           "constant", hint="declare it ct.Constant[bool]")
    raise invalid_argument("keepdims", f"Expected a boolean constant, but given value has type "
                                       f"{type_str(keepdims)}")


def _finish(results: list[TileValue], axes: tuple[int, ...], keepdims: bool) -> list[TileValue]:
    if check_keepdims(keepdims):
        return results
    return [build.reshape(r, tuple(d for i, d in enumerate(r.shape) if i not in axes))
            for r in results]


def _wide(tile: TileValue) -> TileValue:
    """float16/bfloat16 accumulate in float32; bools sum as int32."""
    if tile.dtype in (dt.float16, dt.bfloat16):
        return build.cast(tile, dt.float32)
    if tile.dtype is dt.bool_:
        return build.cast(tile, dt.int32)
    return tile


def _narrow(result: TileValue, dtype: DType, mode: str | None = None) -> TileValue:
    """The float32 result of a float16/bfloat16 tile back in its dtype, rounded with the
    combining op's directed mode too (rounding twice in one direction is rounding once)."""
    if dtype not in (dt.float16, dt.bfloat16):
        return result
    if mode is None:
        return build.cast(result, dtype)
    return build.op("cast", [result], dtype, result.shape, rounding_mode=mode)


# ----- sum, prod, max, min ----------------------------------------------------------------------


def _binary_combine(name: str, mode: str | None = None) -> Combine:
    """Combines with `name` (rounded with `mode`, a directed rounding attribute, or to
    nearest)."""
    return lambda a, b: [operators.binary(name, a[0], b[0], rounding_mode=mode)]


def _nan_combine(name: str) -> Combine:
    """max/min where a NaN wins (torch's amax/amin)."""
    def combine(a: list[TileValue], b: list[TileValue]) -> list[Any]:
        x, y = a[0], b[0]
        best = operators.binary(name, x, y)
        if not x.dtype.is_float:
            return [best]
        x_nan = operators.math_unary("isnan", x)
        return [operators.where(x_nan, x, operators.where(operators.math_unary("isnan", y),
                                                          y, best))]
    return combine


def _accumulate(name: str, identity: int, x: object, axis: object, keepdims: bool,
                options: tuple[Any, Any]) -> TileValue:
    tile = _arithmetic(as_tile(x, name), name)
    mode = check_options(tile, *options)
    axes = reduction_axes(axis, tile.ndim)
    check_keepdims(keepdims)
    if not tile.shape:
        return tile
    wide = _wide(tile)
    op = "add" if name == "sum" else "mul"
    (result,) = reduce_tiles([wide], axes, [identity], _binary_combine(op, mode))
    return _finish([_narrow(result, tile.dtype, mode)], axes, keepdims)[0]


@lowers(lang.sum)
def emit_sum(em: Emitter, x: object, axis: object, keepdims: bool, rounding_mode: object,
             flush_to_zero: object) -> TileValue:
    return _accumulate("sum", 0, x, axis, keepdims, (rounding_mode, flush_to_zero))


@lowers(lang.prod)
def emit_prod(em: Emitter, x: object, axis: object, keepdims: bool, rounding_mode: object,
              flush_to_zero: object) -> TileValue:
    return _accumulate("prod", 1, x, axis, keepdims, (rounding_mode, flush_to_zero))


def _extremum(name: str, x: object, axis: object, keepdims: bool, propagate_nan: bool,
              flush_to_zero: object) -> TileValue:
    tile = _arithmetic(as_tile(x, name), name)
    check_options(tile, None, flush_to_zero)
    axes = reduction_axes(axis, tile.ndim)
    check_keepdims(keepdims)
    if not tile.shape:
        return tile
    op = "maximum" if name == "max" else "minimum"
    identity = _extremum_identity(name == "max", tile.dtype, propagate_nan)
    combine = _nan_combine(op) if propagate_nan else _binary_combine(op)
    (result,) = reduce_tiles([tile], axes, [identity], combine)
    return _finish([result], axes, keepdims)[0]


def _extremum_identity(largest: bool, dtype: DType, propagate_nan: bool) -> bool | float:
    """What pads a row whose length is not a power of two. Where NaNs are ignored, NaN itself
    is the identity (an all-NaN row stays NaN, and its argmax is its first index); an infinity
    there would win over the row's NaNs."""
    if dtype.kind == "b":
        return not largest
    if dtype.is_float and not propagate_nan:
        return float("nan")
    return float("-inf") if largest else float("inf")


@lowers(lang.max)
def emit_max(em: Emitter, x: object, axis: object, keepdims: bool, flush_to_zero: object,
             propagate_nan: bool) -> TileValue:
    return _extremum("max", x, axis, keepdims, propagate_nan, flush_to_zero)


@lowers(lang.min)
def emit_min(em: Emitter, x: object, axis: object, keepdims: bool, flush_to_zero: object,
             propagate_nan: bool) -> TileValue:
    return _extremum("min", x, axis, keepdims, propagate_nan, flush_to_zero)


# ----- argmax, argmin -------------------------------------------------------------------------


def _flat_index(shape: tuple[int, ...], axes: tuple[int, ...]) -> TileValue:
    """int32 tile of `shape`: each element's row-major index over `axes` (deferred: free)."""
    index: Any = 0
    for a in axes:
        ramp = build.op("arange", [], dt.int32, (shape[a],))
        ramp = build.reshape(ramp, tuple(shape[a] if i == a else 1 for i in range(len(shape))))
        index = operators.binary("add", operators.binary("mul", index, shape[a]), ramp)
    return build.broadcast_to(index, shape)


def _arg_combine(better: str, propagate_nan: bool) -> Combine:
    """(value, index) pairs: the better value wins; equal values keep the smaller index."""
    def combine(a: list[TileValue], b: list[TileValue]) -> list[Any]:
        (va, ia), (vb, ib) = a, b
        wins = operators.compare(better, vb, va)
        tie = operators.binary("bitwise_and", operators.compare("equal", vb, va),
                               operators.compare("less", ib, ia))
        take_b = operators.binary("bitwise_or", wins, tie)
        if va.dtype.is_float:
            a_nan, b_nan = operators.math_unary("isnan", va), operators.math_unary("isnan", vb)
            if propagate_nan:  # the first NaN wins
                take_b = operators.where(a_nan, operators.binary(
                    "bitwise_and", b_nan, operators.compare("less", ib, ia)),
                    operators.binary("bitwise_or", b_nan, take_b))
            else:  # NaNs lose against numbers
                take_b = operators.where(b_nan, operators.binary(
                    "bitwise_and", a_nan, operators.compare("less", ib, ia)),
                    operators.binary("bitwise_or", a_nan, take_b))
        return [operators.where(take_b, vb, va), operators.where(take_b, ib, ia)]
    return combine


def _arg(name: str, x: object, axis: object, keepdims: bool, propagate_nan: bool) -> TileValue:
    tile = _arithmetic(as_tile(x, name), name)
    axes = reduction_axes(axis, tile.ndim, allow_tuple=False)
    check_keepdims(keepdims)
    if not tile.shape:
        return build.constant(0, dt.int32)
    index = _flat_index(tile.shape, axes)
    worst = _extremum_identity(name == "argmax", tile.dtype, propagate_nan)
    better = "greater" if name == "argmax" else "less"
    _, result = reduce_tiles([tile, index], axes, [worst, 2**31 - 1],
                             _arg_combine(better, propagate_nan))
    return _finish([result], axes, keepdims)[0]


@lowers(lang.argmax)
def emit_argmax(em: Emitter, x: object, axis: object, keepdims: bool,
                propagate_nan: bool) -> TileValue:
    return _arg("argmax", x, axis, keepdims, propagate_nan)


@lowers(lang.argmin)
def emit_argmin(em: Emitter, x: object, axis: object, keepdims: bool,
                propagate_nan: bool) -> TileValue:
    return _arg("argmin", x, axis, keepdims, propagate_nan)


# ----- user combiners ---------------------------------------------------------------------------


def user_combine(em: Emitter, func: object, count: int, what: str) -> Combine:
    """A Combine calling the user's function (a helper, a lambda or an `operator` function)."""
    if func in _OPERATORS and count == 1:
        fn = _OPERATORS[func]
        return lambda a, b: [fn(a[0], b[0])]
    if not isinstance(func, types.FunctionType | LocalFunction):
        raise TileTypeError(f"{what}() needs a function of two groups of tiles as `func`, got "
                            f"{describe(func)}")

    def combine(a: list[TileValue], b: list[TileValue]) -> list[Any]:
        from tilelang.frontend.calls import call

        outer, em.combiner = em.combiner, "reduction" if what == "reduce" else "scan"
        try:
            result = call(em, func, [*a, *b], {})
        finally:
            em.combiner = outer
        results = list(result) if isinstance(result, tuple) else [result]
        if len(results) != count:
            raise TileTypeError(f"the combining function returns {len(results)} values for "
                                f"{count} input tile(s)")
        return results

    return combine


def _inputs(x: Any, identity: object, what: str) -> tuple[list[TileValue], list[Any], bool]:
    """The input tiles (broadcast to one shape), their identities, and whether x was a tuple."""
    multiple = isinstance(x, tuple)
    tiles = [as_tile(v, what) for v in (x if multiple else (x,))]
    identities = list(identity) if isinstance(identity, tuple) else [identity]
    if len(identities) != len(tiles):
        raise TileTypeError(f"{what}() got {len(identities)} identities for {len(tiles)} tiles")
    shape = semantics.broadcast_shapes(*(t.shape for t in tiles))
    if not shape:
        raise TileValueError(f"{what}() needs tiles with at least one dimension")
    return [build.broadcast_to(t, shape) for t in tiles], identities, multiple


@lowers(lang.reduce)
def emit_reduce(em: Emitter, x: object, axis: object, func: object, identity: object,
                keepdims: bool) -> TileValue | tuple[TileValue, ...]:
    tiles, identities, multiple = _inputs(x, identity, "reduce")
    axes = reduction_axes(axis, tiles[0].ndim)
    results = reduce_tiles(tiles, axes, identities, user_combine(em, func, len(tiles), "reduce"))
    results = _finish(results, axes, keepdims)
    return tuple(results) if multiple else results[0]


# Builtins a combiner cannot call: it is straight-line code without memory effects.
NOT_IN_COMBINERS.update(
    {n: "combining" for n in ("sum", "prod", "max", "min", "argmax", "argmin", "reduce",
                              "cumsum", "cumprod", "scan")}
    | {n: "memory" for n in ("load", "store", "gather", "scatter", "atomic_add", "atomic_max",
                             "atomic_min", "atomic_and", "atomic_or", "atomic_xor", "atomic_xchg",
                             "atomic_cas", "TiledView.load", "TiledView.store")}
)


# ----- scans -------------------------------------------------------------------------------------


def _scan_axis(axis: object, ndim: int) -> int:
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise TileTypeError("Expected an integer constant, but given value has type "
                            f"{type(axis).__name__ if axis is not None else 'None'}")
    return semantics.normalize_axis(axis, ndim)


def _running(name: str, x: object, axis: object, reverse: bool,
             options: tuple[object, object]) -> TileValue:
    tile = _arithmetic(as_tile(x, name), name)
    mode = check_options(tile, *options)
    if not tile.shape:
        raise TileValueError(f"{name}() needs a tile with at least one dimension")
    ax = _scan_axis(axis, tile.ndim)
    op, identity = ("add", 0) if name == "cumsum" else ("mul", 1)
    (result,) = scan_tiles([_wide(tile)], ax, bool(reverse), [identity],
                           _binary_combine(op, mode))
    return _narrow(result, tile.dtype, mode)


@lowers(lang.cumsum)
def emit_cumsum(em: Emitter, x: object, axis: object, reverse: bool, rounding_mode: object,
                flush_to_zero: object) -> TileValue:
    return _running("cumsum", x, axis, reverse, (rounding_mode, flush_to_zero))


@lowers(lang.cumprod)
def emit_cumprod(em: Emitter, x: object, axis: object, reverse: bool, rounding_mode: object,
                 flush_to_zero: object) -> TileValue:
    return _running("cumprod", x, axis, reverse, (rounding_mode, flush_to_zero))


@lowers(lang.scan)
def emit_scan(em: Emitter, x: object, axis: object, func: object, identity: object,
              reverse: bool) -> TileValue | tuple[TileValue, ...]:
    tiles, identities, multiple = _inputs(x, identity, "scan")
    ax = _scan_axis(axis, tiles[0].ndim)
    results = scan_tiles(tiles, ax, bool(reverse), identities,
                         user_combine(em, func, len(tiles), "scan"))
    return tuple(results) if multiple else results[0]
