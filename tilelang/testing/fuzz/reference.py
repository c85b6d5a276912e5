"""Fuzzing: the NumPy reference, written from docs/language.md (not from the interpreter).

Each function takes and returns NumPy arrays of the documented dtypes. The interpreter's own
semantics (tilelang/dialect/semantics.py) are deliberately not imported: the fuzzer compares two
readings of the docs, and a shared helper would hide a bug in both.
"""

from __future__ import annotations

from collections.abc import Callable

import ml_dtypes
import numpy as np

NP_DTYPES: dict[str, np.dtype] = {
    "bool_": np.dtype(np.bool_),
    **{n: np.dtype(n) for n in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                "uint64", "float16", "float32", "float64")},
    "bfloat16": np.dtype(ml_dtypes.bfloat16),
    "float8_e4m3fn": np.dtype(ml_dtypes.float8_e4m3fn),
    "float8_e5m2": np.dtype(ml_dtypes.float8_e5m2),
}
HALF = ("float16", "bfloat16")
FLOAT8 = ("float8_e4m3fn", "float8_e5m2")
FLOATS = ("float16", "bfloat16", "float32", "float64", *FLOAT8)
SIGNED = ("int8", "int16", "int32", "int64")
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
INTS = SIGNED + UNSIGNED


def kind(dtype: str) -> str:
    return "b" if dtype == "bool_" else "f" if dtype in FLOATS else "i" if dtype in SIGNED else "u"


def bits(dtype: str) -> int:
    return 1 if dtype == "bool_" else NP_DTYPES[dtype].itemsize * 8


def _wide(x: np.ndarray) -> np.ndarray:
    """Half-precision (and 8-bit) floats compute in float32 (docs: rounded once at the end)."""
    return x.astype(np.float32) if x.dtype.itemsize < 4 and x.dtype.kind not in "iub" else x


def float_op(fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    def apply(*xs: np.ndarray) -> np.ndarray:
        return astype(np.asarray(fn(*(_wide(x) for x in xs))), str(_name(xs[0].dtype)))

    return apply


def _name(dtype: np.dtype) -> str:
    for name, d in NP_DTYPES.items():
        if d == dtype:
            return name
    raise KeyError(dtype)


# ----- conversions ----------------------------------------------------------------------------


def astype(x: np.ndarray, dtype: str) -> np.ndarray:
    """`astype`: float->int truncates and saturates (NaN -> 0); int->int keeps the low bits;
    ->bool is != 0; to the 8-bit floats, finite overflow and infinities saturate."""
    target = NP_DTYPES[dtype]
    x = np.asarray(x)
    if dtype == "bool_":
        return x != 0
    if kind(dtype) in "iu":
        if x.dtype.kind == "f" or x.dtype in (NP_DTYPES[f] for f in FLOATS):
            return _float_to_int(x.astype(np.float64), dtype)
        return x.astype(target)  # NumPy's integer casts wrap
    if x.dtype.kind == "b":
        x = x.astype(np.float32)
    if dtype in FLOAT8:
        wide = x.astype(np.float64)
        top = float(ml_dtypes.finfo(target).max)
        return np.where(np.isnan(wide), wide, np.clip(wide, -top, top)).astype(target)
    if x.dtype.kind in "iu" and dtype in HALF:  # exact in float64 for the fuzzer's values
        return x.astype(np.float64).astype(target)
    return x.astype(target)


def _float_to_int(x: np.ndarray, dtype: str) -> np.ndarray:
    info = np.iinfo(NP_DTYPES[dtype])
    t = np.trunc(np.nan_to_num(x, nan=0.0))
    low, high = float(info.min), float(info.max)
    out = np.where(t <= low, info.min, 0).astype(NP_DTYPES[dtype])
    inside = (t > low) & (t < high)
    # float64 cannot hold every int64: values just under 2**63 come from the inside branch
    out = np.where(inside, np.where(inside, t, 0).astype(NP_DTYPES[dtype]), out)
    return np.where(t >= high, info.max, out).astype(NP_DTYPES[dtype])


# ----- element-wise ---------------------------------------------------------------------------


def _int_floordiv(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    safe = np.where(b == 0, 1, b)
    return np.where(b == 0, 0, np.floor_divide(a, safe)).astype(a.dtype)


def _int_mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    safe = np.where(b == 0, 1, b)
    return np.where(b == 0, 0, np.remainder(a, safe)).astype(a.dtype)


def _float_floordiv(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    quotient = float_op(np.divide)(a, b)  # rounded to the dtype, then floored
    return float_op(np.floor)(quotient)


def _float_mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    def python_mod(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        r = np.fmod(x, y)
        return np.where((r != 0) & ((r < 0) != (y < 0)), r + y, r)

    return float_op(python_mod)(a, b)


def _int_pow(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = np.broadcast_arrays(a, b)
    result = np.ones(a.shape, a.dtype)
    base, e = a.copy(), b.astype(object)
    for index in np.ndindex(a.shape):
        n, x, r = int(e[index]), base[index], a.dtype.type(1)
        if n < 0:
            result[index] = 1 if x == 1 else (-1 if n % 2 else 1) if x == -1 and kind(
                _name(a.dtype)) == "i" else 0
            continue
        while n:
            if n & 1:
                r = a.dtype.type(r * x)
            x, n = a.dtype.type(x * x), n >> 1
        result[index] = r
    return result


def _shift(a: np.ndarray, b: np.ndarray, left: bool) -> np.ndarray:
    width = a.dtype.itemsize * 8
    ok = (b.astype(object) >= 0) & (b.astype(object) < width)
    amount = np.where(ok, b, 0).astype(a.dtype)
    if left:
        return np.where(ok, np.left_shift(a, amount), 0).astype(a.dtype)
    shifted = np.right_shift(a, amount)  # arithmetic for signed, logical for unsigned
    fill = np.where(a < 0, -1, 0) if a.dtype.kind == "i" else 0
    return np.where(ok, shifted, fill).astype(a.dtype)


def binary(name: str, a: np.ndarray, b: np.ndarray, propagate_nan: bool = False) -> np.ndarray:
    """A binary op on two arrays of one dtype (the generator promotes before)."""
    is_float = kind(_name(a.dtype)) == "f"
    with np.errstate(all="ignore"):
        if name in ("add", "sub", "mul"):
            fn = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[name]
            return float_op(fn)(a, b) if is_float else fn(a, b).astype(a.dtype)
        if name == "truediv":
            if is_float:
                return float_op(np.divide)(a, b)
            return np.divide(a.astype(np.float32), b.astype(np.float32)).astype(np.float32)
        if name == "floordiv":
            return _float_floordiv(a, b) if is_float else _int_floordiv(a, b)
        if name == "mod":
            return _float_mod(a, b) if is_float else _int_mod(a, b)
        if name == "pow":
            return float_op(np.power)(a, b) if is_float else _int_pow(a, b)
        if name in ("minimum", "maximum"):
            if is_float:
                nan_rule = {"minimum": (np.fmin, np.minimum), "maximum": (np.fmax, np.maximum)}
                return float_op(nan_rule[name][propagate_nan])(a, b)
            return (np.minimum if name == "minimum" else np.maximum)(a, b)
        if name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
            return getattr(np, name)(a, b)
        if name in ("bitwise_lshift", "bitwise_rshift"):
            return _shift(a, b, name == "bitwise_lshift")
        if name in COMPARISONS:
            return COMPARISONS[name](_wide(a), _wide(b))
    raise KeyError(name)


COMPARISONS = {"equal": np.equal, "not_equal": np.not_equal, "less": np.less,
               "less_equal": np.less_equal, "greater": np.greater,
               "greater_equal": np.greater_equal}


def unary(name: str, x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        if name == "negative":
            return float_op(np.negative)(x) if x.dtype.kind == "f" or _name(x.dtype) in FLOATS \
                else np.negative(x).astype(x.dtype)
        if name == "abs":
            if kind(_name(x.dtype)) == "f":
                return float_op(np.abs)(x)
            return x if x.dtype.kind in "ub" else np.abs(x).astype(x.dtype)
        if name == "bitwise_not":
            return ~x
        if name == "isnan":
            return np.isnan(_wide(x))
        fn = {"exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2,
              "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos, "tanh": np.tanh,
              "floor": np.floor, "ceil": np.ceil}[name]
        return float_op(lambda v: fn(v.astype(np.float64)).astype(v.dtype))(x)


def where(c: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.where(c, a, b).astype(a.dtype)


# ----- reductions and scans -------------------------------------------------------------------


def reduce(name: str, x: np.ndarray, axis: int, keepdims: bool,
           propagate_nan: bool = False) -> np.ndarray:
    dtype = _name(x.dtype)
    with np.errstate(all="ignore"):
        if name in ("sum", "prod"):
            fn = np.sum if name == "sum" else np.prod
            if kind(dtype) == "f":  # halves accumulate in float32, rounded once
                return astype(fn(_wide(x), axis=axis, keepdims=keepdims), dtype)
            return fn(x, axis=axis, keepdims=keepdims, dtype=x.dtype)
        if name in ("max", "min"):
            if kind(dtype) != "f":
                return (np.max if name == "max" else np.min)(x, axis=axis, keepdims=keepdims)
            extreme = ((np.max if name == "max" else np.min) if propagate_nan
                       else (np.nanmax if name == "max" else np.nanmin))
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows give NaN
                return astype(extreme(_wide(x), axis=axis, keepdims=keepdims), dtype)
        if name in ("argmax", "argmin"):
            return _arg(name, x, axis, keepdims, propagate_nan)
    raise KeyError(name)


def _arg(name: str, x: np.ndarray, axis: int, keepdims: bool, propagate_nan: bool) -> np.ndarray:
    """First index of the best value; NaNs lose (or, with propagate_nan, the first NaN wins);
    an all-NaN row gives its first index."""
    moved = np.moveaxis(_wide(x), axis, -1)
    out = np.zeros(moved.shape[:-1], np.int32)
    for index in np.ndindex(moved.shape[:-1]):
        row = moved[index]
        nans = np.isnan(row) if row.dtype.kind == "f" else np.zeros(row.shape, bool)
        if propagate_nan and nans.any():
            out[index] = int(np.argmax(nans))
        elif nans.all():
            out[index] = 0
        else:
            values = [(v, i) for i, v in enumerate(row) if not nans[i]]
            best = max(v for v, _ in values) if name == "argmax" else min(v for v, _ in values)
            out[index] = next(i for v, i in values if v == best)
    return np.expand_dims(out, axis) if keepdims else out


def scan(name: str, x: np.ndarray, axis: int, reverse: bool) -> np.ndarray:
    dtype = _name(x.dtype)
    fn = np.cumsum if name == "cumsum" else np.cumprod
    if reverse:
        x = np.flip(x, axis)
    with np.errstate(all="ignore"):
        if kind(dtype) == "f":
            out = astype(fn(_wide(x), axis=axis), dtype)
        else:
            out = fn(x, axis=axis, dtype=x.dtype)
    return np.flip(out, axis) if reverse else out


# ----- memory ---------------------------------------------------------------------------------

PADDING = {"ZERO": 0.0, "NEG_ZERO": -0.0, "NAN": float("nan"), "POS_INF": float("inf"),
           "NEG_INF": float("-inf"), "UNDETERMINED": 0.0}


def padding_value(mode: str, dtype: str) -> np.ndarray:
    """The documented padding: NaN is 0 and the infinities the range's ends for integers."""
    target = NP_DTYPES[dtype]
    if kind(dtype) in "iu":
        if mode == "POS_INF":
            return np.asarray(np.iinfo(target).max, target)
        if mode == "NEG_INF":
            return np.asarray(np.iinfo(target).min, target)
        return np.asarray(0, target)
    if kind(dtype) == "b":
        return np.asarray(False)
    return np.asarray(PADDING[mode]).astype(target)  # float8_e5m2 has infinities


def load_tile(array: np.ndarray, index: tuple[int, ...], shape: tuple[int, ...],
              order: tuple[int, ...], padding: str) -> np.ndarray:
    """The tile at tile coordinates `index` of `array` viewed in `order`, padded outside."""
    view = np.transpose(array, order)
    tile = np.full(shape, padding_value(padding, _name(array.dtype)), array.dtype)
    starts = [i * s for i, s in zip(index, shape, strict=True)]
    src = tuple(slice(b, min(b + s, n)) for b, s, n in zip(starts, shape, view.shape,
                                                           strict=True))
    part = view[src]
    tile[tuple(slice(0, n) for n in part.shape)] = part
    return tile


def store_tile(array: np.ndarray, index: tuple[int, ...], tile: np.ndarray) -> None:
    starts = [i * s for i, s in zip(index, tile.shape, strict=True)]
    dst = tuple(slice(b, min(b + s, n)) for b, s, n in zip(starts, tile.shape, array.shape,
                                                           strict=True))
    part = tuple(slice(0, max(0, d.stop - d.start)) for d in dst)
    array[dst] = tile[part]


def gather(table: np.ndarray, index: np.ndarray, mask: np.ndarray | None,
           pad: np.ndarray) -> np.ndarray:
    inside = (index.astype(object) >= 0) & (index.astype(object) < table.shape[0])
    if mask is not None:
        inside = inside & mask
    safe = np.where(inside, index, 0).astype(np.int64)
    return np.where(inside, table[safe], pad).astype(table.dtype)
