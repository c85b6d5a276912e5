"""Front end: expressions (constants, names, operators, comparisons, subscripts, tuples)."""

from __future__ import annotations

import ast
import operator

from tilelang.errors import TileTypeError
from tilelang.frontend import (
    attributes,
    build,
    containers,
    context_managers,
    dataclass_values,
    formatting,
    operators,
)
from tilelang.frontend import values as frontend_values
from tilelang.frontend.calls import emit_call
from tilelang.frontend.emitter import Emitter, expression
from tilelang.frontend.semantics import describe
from tilelang.frontend.values import ArrayValue, ListValue, TileValue, is_loose
from tilelang.language import dtypes as dt

BINOPS = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
    ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow", ast.BitAnd: "bitwise_and",
    ast.BitOr: "bitwise_or", ast.BitXor: "bitwise_xor", ast.LShift: "bitwise_lshift",
    ast.RShift: "bitwise_rshift",
}
COMPARES = {
    ast.Eq: "equal", ast.NotEq: "not_equal", ast.Lt: "less", ast.LtE: "less_equal",
    ast.Gt: "greater", ast.GtE: "greater_equal",
}
PY_COMPARES = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}


@expression(ast.Constant)
def _constant(em: Emitter, node: ast.Constant) -> object:
    if isinstance(node.value, bytes | complex):
        raise TileTypeError(f"{type(node.value).__name__} constants are not supported")
    return node.value


@expression(ast.Name)
def _name(em: Emitter, node: ast.Name) -> object:
    return em.lookup(node.id)


@expression(ast.Tuple, ast.List)
def _tuple(em: Emitter, node: ast.Tuple | ast.List) -> tuple:
    return tuple(em.exprs(node.elts))


@expression(ast.Attribute)
def _attribute(em: Emitter, node: ast.Attribute) -> object:
    obj = em.expr(node.value)
    if dataclass_values.is_instance(obj):
        return dataclass_values.attribute(em, obj, node.attr)
    return attributes.get_attribute(obj, node.attr)


@expression(ast.BinOp)
def _binop(em: Emitter, node: ast.BinOp) -> object:
    lhs, rhs = em.expr(node.left), em.expr(node.right)
    if isinstance(node.op, ast.MatMult):
        context_managers.check_operands(node.op, lhs, rhs)
        return matmul_operator(lhs, rhs)
    if isinstance(lhs, tuple) or isinstance(rhs, tuple):
        return tuple_arith(node.op, lhs, rhs)
    if isinstance(node.op, ast.Add) and formatting.is_text(lhs) and formatting.is_text(rhs):
        return formatting.concat(lhs, rhs)  # strings, f-strings with run-time values included
    context_managers.check_operands(node.op, lhs, rhs)
    return operators.binary(BINOPS[type(node.op)], lhs, rhs)


def matmul_operator(lhs: object, rhs: object) -> TileValue:
    """`lhs @ rhs` on two tiles (matmul); anything else is no operand of @."""
    from tilelang.frontend.builtins.matmul import matmul

    if not (isinstance(lhs, TileValue) and lhs.shape and isinstance(rhs, TileValue)
            and rhs.shape):
        raise TileTypeError(f"Unsupported operand types for @: {describe(lhs)} and "
                            f"{describe(rhs)}", hint="@ multiplies two tiles")
    return matmul(lhs, rhs)


def tuple_arith(op: ast.operator, lhs: object, rhs: object) -> tuple:
    if isinstance(op, ast.Add) and isinstance(lhs, tuple) and isinstance(rhs, tuple):
        return lhs + rhs
    if isinstance(op, ast.Mult) and isinstance(lhs, tuple) and isinstance(rhs, int):
        return lhs * rhs
    raise TileTypeError(f"unsupported operands {describe(lhs)} and {describe(rhs)}")


@expression(ast.UnaryOp)
def _unaryop(em: Emitter, node: ast.UnaryOp) -> object:
    value = em.expr(node.operand)
    if isinstance(node.op, ast.Not):
        if not (isinstance(value, TileValue) or is_loose(value)):
            return not value
        return operators.logical_not(value)
    fns = {ast.USub: operators.negative, ast.UAdd: operators.positive,
           ast.Invert: operators.bitwise_not}
    return fns[type(node.op)](value)


@expression(ast.BoolOp)
def _boolop(em: Emitter, node: ast.BoolOp) -> object:
    """`and`/`or`: constants short-circuit at compile time; scalar tiles combine as bools."""
    is_and = isinstance(node.op, ast.And)
    acc: TileValue | None = None
    value: object = None
    for operand in node.values:
        value = em.expr(operand)
        if isinstance(value, TileValue):
            acc = value if acc is None else _combine(acc, value, is_and)
        elif bool(value) != is_and:  # `False and ...` / `True or ...`
            return value if acc is None else (not is_and)
    return value if acc is None else acc


def _combine(lhs: object, rhs: object, is_and: bool) -> TileValue:
    a = build.bool_of(_scalar(lhs, "and" if is_and else "or"))
    b = build.bool_of(_scalar(build.to_tile(rhs), "and" if is_and else "or"))
    return build.elementwise("and" if is_and else "or", [a, b])


def _scalar(value: object, what: str) -> TileValue:
    if not isinstance(value, TileValue) or value.shape:
        raise TileTypeError(
            f"`{what}` needs scalars, got {describe(value)}",
            hint="use & and | for element-wise logic on tiles",
        )
    return value


@expression(ast.Compare)
def _compare(em: Emitter, node: ast.Compare) -> object:
    result: object = None
    lhs = em.expr(node.left)
    for op, right in zip(node.ops, node.comparators, strict=True):
        rhs = em.expr(right)
        value = _compare_pair(op, lhs, rhs)
        result = value if result is None else operators.binary("bitwise_and", result, value)
        lhs = rhs
    return result


def _compare_pair(op: ast.cmpop, lhs: object, rhs: object) -> object:
    if isinstance(op, ast.In | ast.NotIn):
        found = containers.contains(rhs, lhs)
        return found if isinstance(op, ast.In) else containers.negate(found)
    if not isinstance(op, ast.Is | ast.IsNot) and (isinstance(lhs, tuple) or
                                                   isinstance(rhs, tuple)):
        return containers.compare_tuples(op, lhs, rhs)
    if not isinstance(lhs, TileValue) and not isinstance(rhs, TileValue):
        return operators.fold(PY_COMPARES[type(op)], lhs, rhs)
    if isinstance(op, ast.Is | ast.IsNot):  # a tile is only ever compared with None (cuTile)
        if lhs is not None and rhs is not None:
            name = "is" if isinstance(op, ast.Is) else "is not"
            raise TileTypeError(f"Operator '{name}' expects one of the operands to be None",
                                hint="compare tiles with == and != (element-wise)")
        return isinstance(op, ast.IsNot)  # one is a tile, the other None
    if type(op) not in COMPARES:
        raise TileTypeError(f"`{type(op).__name__}` cannot compare {describe(lhs)}")
    return operators.compare(COMPARES[type(op)], lhs, rhs)


@expression(ast.IfExp)
def _ifexp(em: Emitter, node: ast.IfExp) -> object:
    cond = em.expr(node.test)
    if not isinstance(cond, TileValue):
        return em.expr(node.body if cond else node.orelse)
    _scalar(cond, "if-else expression")
    chosen, other = em.expr(node.body), em.expr(node.orelse)
    if isinstance(chosen, TileValue) and isinstance(other, TileValue) and \
            (chosen.dtype, chosen.shape) != (other.dtype, other.shape):
        # its two values are the two paths of an `if`: of one type (a constant adapts)
        raise TileTypeError(f"Type of the if-else expression depends on path taken: "
                            f"{describe(other)} vs. {describe(chosen)}",
                            hint="make both values the same type (astype, broadcast_to)")
    return operators.where(cond, chosen, other)


@expression(ast.Call)
def _call(em: Emitter, node: ast.Call) -> object:
    return emit_call(em, node)


@expression(ast.Slice)
def _slice(em: Emitter, node: ast.Slice) -> slice:
    parts = [None if p is None else em.expr(p) for p in (node.lower, node.upper, node.step)]
    if any(isinstance(p, TileValue) for p in parts):
        raise TileTypeError("slice bounds must be compile-time constants")
    return slice(*parts)


@expression(ast.Subscript)
def _subscript(em: Emitter, node: ast.Subscript) -> object:
    value, index = em.expr(node.value), em.expr(node.slice)
    if isinstance(value, TileValue):
        return _index_tile(value, index)
    if isinstance(value, ArrayValue):
        raise TileTypeError(
            "Arrays are not directly subscriptable. Use load() or gather() instead.",
            hint="read tiles with tilelang.load",
        )
    if isinstance(value, tuple):
        return containers.tuple_item(value, index)
    if isinstance(value, ListValue):
        return containers.list_item(value, index)
    if isinstance(value, dict):
        return containers.dict_item(value, index)
    if dataclass_values.is_instance(value):
        return dataclass_values.getitem(em, value, index)
    if isinstance(value, str | bytes):
        return operators.fold(operator.getitem, value, index)
    raise TileTypeError(f"{describe(value)} cannot be indexed")


@expression(ast.Dict)
def _dict(em: Emitter, node: ast.Dict) -> dict:
    """A dict of compile-time keys (any values), as helpers' `**kwargs` are."""
    result: dict = {}
    for key_node, value_node in zip(node.keys, node.values, strict=True):
        value = em.expr(value_node)
        if key_node is None:  # {**other}
            if not isinstance(value, dict):
                raise TileTypeError(f"cannot unpack {describe(value)} with ** in a dict")
            result.update(value)
            continue
        key = em.expr(key_node)
        if isinstance(key, TileValue | ArrayValue):
            raise TileTypeError(f"dict keys must be compile-time constants, got {describe(key)}")
        operators.fold(result.__setitem__, key, value)
    return result


_INDEX_HINT = "tiles are indexed as a whole; use reshape, extract, or load a smaller tile"


def _index_tile(tile: TileValue, index: object) -> TileValue:
    """`t[None]`, `t[:, None]`-style indexing: only adds unit dimensions (cuTile's rules: a
    tuple of `None`, `:` and `...`, or a lone `None`)."""
    if index is not None and not isinstance(index, tuple):
        raise TileTypeError("Directly indexing a tile is not supported; use `extract()` or "
                            "`item()` instead.", hint=_INDEX_HINT)
    items = index if isinstance(index, tuple) else (index,)
    for item in items:
        if not (item is None or item is Ellipsis or item == slice(None)):
            shown = describe(item) if isinstance(item, TileValue) else repr(item)
            raise TileTypeError(
                f"Expected `None|np.newaxis` or `ellipsis` or full slice (`:`), but got {shown}. "
                "Hint: Directly indexing a tile is not supported, use `extract` or `item`.",
                hint=_INDEX_HINT)
    if sum(i is Ellipsis for i in items) > 1:
        raise TileTypeError("Only one ellipsis is allowed")
    n_slices = sum(isinstance(i, slice) for i in items)
    if n_slices > tile.ndim:
        raise TileTypeError(f"Tile is {tile.ndim}-dimensional, but {n_slices} were indexed")
    dims = iter(tile.shape)
    shape: list[int] = []
    for item in items:
        if item is None:
            shape.append(1)
        elif item is Ellipsis:
            shape.extend(next(dims) for _ in range(tile.ndim - n_slices))
        else:
            shape.append(next(dims))
    shape.extend(dims)
    return build.reshape(tile, tuple(shape))


__all__ = ["BINOPS", "COMPARES", "dt"]


frontend_values.STATIC.matmul = matmul_operator  # static_eval's `a @ b`
