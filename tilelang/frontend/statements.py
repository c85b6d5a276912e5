"""Front end: statements (assignment, if/for/while, return, expression statements)."""

from __future__ import annotations

import ast
import builtins

from tilelang.errors import (
    TileSyntaxError,
    TileTypeError,
    TileUnsupportedFeatureError,
    TileValueError,
)
from tilelang.frontend import control_flow, operators
from tilelang.frontend.emitter import Emitter, statement
from tilelang.frontend.expressions import BINOPS
from tilelang.frontend.values import TileValue


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
    if not isinstance(node.target, ast.Name):
        raise TileSyntaxError(
            "augmented assignment needs a plain name as its target: tiles are immutable"
        )
    if isinstance(node.op, ast.MatMult):
        raise TileUnsupportedFeatureError("the @ operator (matmul) is not supported yet")
    current = em.lookup(node.target.id)
    value = operators.binary(BINOPS[type(node.op)], current, em.expr(node.value))
    em.scope[node.target.id] = value


@statement(ast.Return)
def _return(em: Emitter, node: ast.Return) -> None:
    frame = em.frame
    if frame.dynamic_depth:
        raise TileUnsupportedFeatureError(
            "`return` inside a run-time `if` or a loop is not supported",
            hint="assign the result to a variable and return it at the end of the function",
        )
    value = None if node.value is None else em.expr(node.value)
    if len(em.frames) == 1 and value is not None:
        raise TileTypeError(
            "a kernel cannot return a value", hint="store results with tilelang.store"
        )
    frame.result, frame.returned = value, True


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
            bounds = control_flow.range_bounds(args)
        control_flow.emit_for(em, node, bounds)
        return
    values = em.expr(iterable)
    if not isinstance(values, tuple):
        raise TileTypeError(
            "a `for` loop must iterate over range(...) or a constant tuple",
            hint="loop over indices with range(n)",
        )
    for value in values:  # a tuple: unrolled at compile time
        em.bind(node.target, value)
        em.block(node.body)


def _is_range(em: Emitter, func: ast.expr) -> bool:
    with em.at(func):
        return em.expr(func) is builtins.range


@statement(ast.While)
def _while(em: Emitter, node: ast.While) -> None:
    if node.orelse:
        raise TileUnsupportedFeatureError("`while ... else` is not supported")
    control_flow.emit_while(em, node)


@statement(ast.Assert)
def _assert(em: Emitter, node: ast.Assert) -> None:
    cond = em.expr(node.test)
    if isinstance(cond, TileValue):
        raise TileUnsupportedFeatureError("`assert` on run-time values is not supported yet")
    if not cond:
        message = em.expr(node.msg) if node.msg is not None else "assertion failed"
        raise TileValueError(f"compile-time assertion failed: {message}")


@statement(ast.Break, ast.Continue)
def _break(em: Emitter, node: ast.stmt) -> None:
    word = "break" if isinstance(node, ast.Break) else "continue"
    raise TileUnsupportedFeatureError(
        f"`{word}` is not supported", hint="use a `while` loop with a condition instead"
    )
