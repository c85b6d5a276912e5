"""Front end: statements (assignment, if/for/while, expression statements)."""

from __future__ import annotations

import ast
import builtins

from tilelang.errors import (
    TileSyntaxError,
    TileTypeError,
    TileUnsupportedFeatureError,
    TileValueError,
)
from tilelang.frontend import (  # noqa: F401  (exits registers break/continue/return)
    control_flow,
    exits,
    loops,
    operators,
    static,
)
from tilelang.frontend.emitter import Emitter, statement
from tilelang.frontend.expressions import BINOPS, matmul_operator, tuple_arith
from tilelang.frontend.values import ArrayValue, TileValue
from tilelang.language.stub import stub_name


@statement(ast.Expr)
def _expr(em: Emitter, node: ast.Expr) -> None:
    if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
        return  # a docstring
    em.expr(node.value)


@statement(ast.Pass)
def _pass(em: Emitter, node: ast.Pass) -> None:
    pass


@statement(ast.Assign)
def _assign(em: Emitter, node: ast.Assign) -> None:
    value = em.expr(node.value)
    for target in node.targets:
        em.bind(target, value)


@statement(ast.AnnAssign)
def _ann_assign(em: Emitter, node: ast.AnnAssign) -> None:
    if node.value is None:
        return
    em.bind(node.target, em.expr(node.value))


@statement(ast.AugAssign)
def _aug_assign(em: Emitter, node: ast.AugAssign) -> None:
    if isinstance(node.target, ast.Subscript) and isinstance(em.expr(node.target.value),
                                                             ArrayValue):
        # Python reads the target first: `x[0] += 1` on an array fails as the read of x[0]
        # does ("Arrays are not directly subscriptable", as cuTile says)
        em.expr(ast.copy_location(ast.Subscript(node.target.value, node.target.slice,
                                                ast.Load()), node.target))
    if not isinstance(node.target, ast.Name):
        raise TileSyntaxError(
            "augmented assignment needs a plain name as its target: tiles are immutable"
        )
    current, operand = em.lookup(node.target.id), em.expr(node.value)
    if isinstance(node.op, ast.MatMult):
        em.scope[node.target.id] = matmul_operator(current, operand)
        return
    if isinstance(current, tuple) or isinstance(operand, tuple):
        em.scope[node.target.id] = tuple_arith(node.op, current, operand)  # states += (t,)
        return
    value = operators.binary(BINOPS[type(node.op)], current, operand)
    em.scope[node.target.id] = value


@statement(ast.If)
def _if(em: Emitter, node: ast.If) -> None:
    with em.at(node.test):
        cond = em.expr(node.test)
        if isinstance(cond, TileValue):
            cond = control_flow.condition(cond, "an `if`")
    if not isinstance(cond, TileValue):  # decided at compile time: emit only the taken branch
        em.block(node.body if cond else node.orelse)
        return
    control_flow.emit_if(em, node, cond)


@statement(ast.For)
def _for(em: Emitter, node: ast.For) -> None:
    if node.orelse:
        raise TileUnsupportedFeatureError("`for ... else` is not supported")
    iterable = node.iter
    if isinstance(iterable, ast.Call) and _is_range(em, iterable.func):
        with em.at(iterable):
            args = tuple(em.expr(a) for a in iterable.args)
            if iterable.keywords:
                raise TileTypeError("range() takes no keyword arguments")
            bounds = loops.range_bounds(args)
        loops.emit_for(em, node, bounds)
        return
    if isinstance(iterable, ast.Call) and stub_name(em.expr(iterable.func)) == "static_iter":
        _static_for(em, node, iterable)
        return
    values = em.expr(iterable)
    if not isinstance(values, tuple):
        raise TileTypeError(
            "a `for` loop must iterate over range(...) or a constant tuple",
            hint="loop over indices with range(n)",
        )
    _check_static_body(em, node.body, TUPLE_LOOP_EXITS)
    for value in values:  # a tuple: unrolled at compile time
        em.bind(node.target, value)
        em.block(node.body)


def _static_for(em: Emitter, node: ast.For, call: ast.Call) -> None:
    """`for x in ct.static_iter(expr)`: `expr` is evaluated by Python (as by static_eval) and
    the body is emitted once per item, with the target bound to it."""
    _check_static_body(em, node.body)
    with em.at(call):
        items = static.iterate(em, call)
    for item in items:
        em.bind(node.target, item)
        em.block(node.body)


STATIC_ITER_EXITS = {ast.Break: "Break in a for loop with static_iter() is not supported",
                     ast.Continue: "Continue in a for loop with static_iter() is not supported",
                     ast.Return: "Returning from a for loop is not supported"}
TUPLE_LOOP_EXITS = {ast.Break: "`break` in a `for` loop over a tuple is not supported",
                    ast.Continue: "`continue` in a `for` loop over a tuple is not supported",
                    ast.Return: "Returning from a for loop is not supported"}


def _check_static_body(em: Emitter, body: list[ast.stmt],
                       words: dict = STATIC_ITER_EXITS) -> None:
    """No break, continue or return in an unrolled body (nested loops and functions may)."""
    stack = list(body)
    while stack:
        stmt = stack.pop()
        if type(stmt) in words:
            with em.at(stmt):
                raise TileSyntaxError(words[type(stmt)])
        if isinstance(stmt, ast.FunctionDef):
            continue  # its own returns
        inner = [c for c in ast.iter_child_nodes(stmt) if isinstance(c, ast.stmt)]
        if isinstance(stmt, ast.For | ast.While):  # its break/continue are its own
            inner = [c for c in ast.walk(stmt) if isinstance(c, ast.Return)]
        stack += inner


def _is_range(em: Emitter, func: ast.expr) -> bool:
    with em.at(func):
        return em.expr(func) is builtins.range


@statement(ast.While)
def _while(em: Emitter, node: ast.While) -> None:
    if node.orelse:
        raise TileUnsupportedFeatureError("`while ... else` is not supported")
    loops.emit_while(em, node)


@statement(ast.Assert)
def _assert(em: Emitter, node: ast.Assert) -> None:
    cond = em.expr(node.test)
    if isinstance(cond, TileValue):
        raise TileUnsupportedFeatureError("`assert` on run-time values is not supported yet")
    if not cond:
        message = em.expr(node.msg) if node.msg is not None else "assertion failed"
        raise TileValueError(f"compile-time assertion failed: {message}")
