"""Front end: tuples, lists of arrays and dicts in kernels: indexing, `==`/`!=` and `in`.

Tuples and dicts are compile-time containers of any values; indexing them needs a constant.
A list-of-arrays parameter can also be indexed by a run-time scalar (`tile.array_select`).
Comparisons of tuples holding run-time scalars compare element-wise and combine the results,
as cuTile does.
"""

from __future__ import annotations

import ast
import operator
from typing import TYPE_CHECKING

from tilelang.dialect import ops
from tilelang.errors import TileTypeError, TileValueError
from tilelang.frontend import build, emitter, operators
from tilelang.frontend.semantics import describe
from tilelang.frontend.values import ArrayValue, ListValue, TileValue, is_loose
from tilelang.language import dtypes as dt

if TYPE_CHECKING:
    from tilelang.frontend.emitter import Emitter

SYMBOLS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}


# ----- indexing ------------------------------------------------------------------------------


def tuple_item(value: tuple, index: object) -> object:
    if isinstance(index, TileValue):
        if index.shape or not index.dtype.is_integer:
            raise TileTypeError(f"Tuple indices must be integers or slices, not {describe(index)}")
        known = build.constant_value(index)
        if known is None:
            raise TileTypeError("Tuple indices must be constant",
                                hint="index with a constant, or unroll with ct.static_iter")
        index = int(known)
    if isinstance(index, bool) or not isinstance(index, int | slice):
        raise TileTypeError(f"Tuple indices must be integers or slices, not {describe(index)}")
    try:
        return value[index]
    except IndexError:
        raise TileValueError(f"tuple index {index} out of range for a tuple of {len(value)} "
                             "items") from None


def list_item(array_list: ListValue, index: object) -> ArrayValue:
    """`xs[i]`: a constant index picks the array; a run-time one selects among them."""
    n = len(array_list.items)
    if isinstance(index, TileValue) and not index.shape and index.dtype.is_integer:
        known = build.constant_value(index)
        if known is None:
            return _select(array_list, index)
        index = int(known)
    if isinstance(index, bool) or not isinstance(index, int):
        raise TileTypeError(f"Index must be an integer scalar or 0D Tile, got {describe(index)}")
    if not -n <= index < n:
        raise TileValueError(f"list index {index} out of range for a list of {n} arrays")
    return array_list.items[index]


def _select(array_list: ListValue, index: TileValue) -> ArrayValue:
    if index.dtype not in (dt.int32, dt.int64):
        wide = index.dtype.bitwidth > 32 or index.dtype is dt.uint32
        index = build.cast(index, dt.int64 if wide else dt.int32)
    first = array_list.items[0]
    result = ops.create("array_select", [index.value, *(a.value for a in array_list.items)],
                        [first.value.type])
    return ArrayValue(result.result, first.dtype, first.ndim, f"{array_list.name}[i]",
                      first.index_dtype, first.static_shape, first.static_strides)


def dict_item(value: dict, key: object) -> object:
    if isinstance(key, TileValue | ArrayValue):
        raise TileTypeError(f"dict keys must be compile-time constants, got {describe(key)}")
    try:
        return value[key]
    except KeyError:
        raise TileTypeError(f"Key {key!r} not found in dictionary") from None
    except TypeError as e:
        raise TileTypeError(f"invalid dict key: {e}") from None


# ----- comparisons ---------------------------------------------------------------------------


def compare_tuples(op: ast.cmpop, lhs: object, rhs: object) -> object:
    """`==` / `!=` with a tuple operand: a constant, or a bool scalar computed at run time."""
    if type(op) not in (ast.Eq, ast.NotEq):
        raise TileTypeError(f"Operator '{SYMBOLS.get(type(op), type(op).__name__)}' is not "
                            "supported for tuples")
    equal = _equal(lhs, rhs, "Tuple comparison is")
    return equal if isinstance(op, ast.Eq) else _negate(equal)


def contains(haystack: object, needle: object) -> object:
    """`needle in haystack`: over a tuple, True as soon as one item is known to be equal."""
    if isinstance(haystack, dict):
        return dict_contains(haystack, needle)
    if not isinstance(haystack, tuple):
        if isinstance(haystack, TileValue | ArrayValue | ListValue):
            raise TileTypeError(f"'in' is not supported for {describe(haystack)}")
        return operators.fold(lambda a, b: a in b, needle, haystack)
    _check_scalar(needle, "'in' requires scalar operands")
    found: object = False
    for item in haystack:
        equal = _equal(needle, item, "'in' is")
        if equal is True:
            return True
        if equal is not False:
            found = equal if found is False else operators.binary("bitwise_or", found, equal)
    return found


def dict_contains(haystack: dict, needle: object) -> bool:
    if isinstance(needle, TileValue | ArrayValue):
        raise TileTypeError(f"dict keys must be compile-time constants, got {describe(needle)}")
    return operators.fold(operator.contains, haystack, needle)  # type: ignore[return-value]


def negate(value: object) -> object:
    return _negate(value)


def _equal(a: object, b: object, what: str) -> object:
    """Python's `a == b` for compile-time values; element-wise for tuples with scalars."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        if len(a) != len(b):
            return False
        result: object = True
        for x, y in zip(a, b, strict=True):
            result = _and(result, _equal(x, y, what))
        return result
    if isinstance(a, tuple) or isinstance(b, tuple):
        return False
    for v in (a, b):
        if isinstance(v, TileValue):
            _check_scalar(v, f"{what} not supported for non-scalar elements"
                          if what.startswith("Tuple") else "'in' requires scalar operands")
        elif _runtime_object(v):
            raise TileTypeError(f"{what} not supported for elements of type {describe(v)}")
    if isinstance(a, TileValue) or isinstance(b, TileValue):
        if not all(isinstance(v, TileValue) or is_loose(v) for v in (a, b)):
            return False  # a scalar never equals a dtype, an enum member, None...
        return operators.compare("equal", a, b)
    return operators.fold(operator.eq, a, b)


def _check_scalar(value: object, message: str) -> None:
    if isinstance(value, TileValue) and value.shape:
        raise TileTypeError(f"{message}, got {describe(value)}")


def _runtime_object(value: object) -> bool:
    """Arrays, lists of arrays, views...: front-end objects with no `==`."""
    return type(value).__module__.startswith("tilelang.frontend")


def _and(acc: object, value: object) -> object:
    if acc is False or value is False:
        return False
    if acc is True:
        return value
    if value is True:
        return acc
    return operators.binary("bitwise_and", acc, value)


def _negate(value: object) -> object:
    if isinstance(value, TileValue):
        return operators.logical_not(value)
    return not value


# ----- item assignment -----------------------------------------------------------------------


def assign_item(em: Emitter, container: object, index: object, value: object) -> None:
    """`container[index] = value`: only a dataclass with `__setitem__` accepts it."""
    from tilelang.frontend import dataclass_values

    if dataclass_values.is_instance(container):
        dataclass_values.setitem(em, container, index, value)
    elif isinstance(container, tuple):
        raise TileTypeError("Tuples are immutable: item assignment is not supported")
    elif isinstance(container, ArrayValue):
        raise TileTypeError("Arrays do not support item assignment. Use store() or scatter() "
                            "instead.")
    elif isinstance(container, TileValue):
        raise TileTypeError("Tiles are immutable: item assignment is not supported.",
                            hint="bind a new name to the changed tile")
    else:
        raise TileTypeError(f"{describe(container)} does not support item assignment")


emitter.HOOKS["assign_item"] = assign_item
