"""Front end: generator expressions over compile-time iterables, unrolled into tuples.

`tuple(f(x) for x in ct.static_iter(items))` (cuTile's tuple comprehension): each `for` clause
iterates over a `static_iter(...)` (evaluated by Python) or a constant tuple, `if` clauses must
be compile-time bools, and the element expression is emitted once per combination. The
comprehension's names do not leak into the enclosing scope.
"""

from __future__ import annotations

import ast
from typing import Any

from tilelang.errors import TileSyntaxError, TileTypeError
from tilelang.frontend import static
from tilelang.frontend.emitter import Emitter, expression
from tilelang.frontend.semantics import describe
from tilelang.frontend.values import TileValue
from tilelang.language.stub import stub_name


@expression(ast.GeneratorExp)
def _generator(em: Emitter, node: ast.GeneratorExp) -> tuple:
    saved = dict(em.scope)
    items: list[Any] = []
    try:
        _unroll(em, node, 0, items)
    finally:
        em.frame.scope = saved
    return tuple(items)


def _unroll(em: Emitter, node: ast.GeneratorExp, level: int, items: list[Any]) -> None:
    if level == len(node.generators):
        items.append(em.expr(node.elt))
        return
    clause = node.generators[level]
    if clause.is_async:
        raise TileSyntaxError("`async for` is not supported in a kernel")
    for item in _iterable(em, clause.iter):
        em.bind(clause.target, item)
        if all(_condition(em, cond) for cond in clause.ifs):
            _unroll(em, node, level + 1, items)


def _iterable(em: Emitter, node: ast.expr) -> tuple:
    if isinstance(node, ast.Call) and stub_name(em.expr(node.func)) == "static_iter":
        with em.at(node):
            return tuple(static.iterate(em, node))
    values = em.expr(node)
    if not isinstance(values, tuple):
        with em.at(node):
            raise TileTypeError(f"a comprehension iterates over ct.static_iter(...) or a tuple, "
                                f"got {describe(values)}")
    return values


def _condition(em: Emitter, node: ast.expr) -> bool:
    value = em.expr(node)
    if isinstance(value, TileValue):
        with em.at(node):
            raise TileTypeError("the condition of a comprehension must be a compile-time constant")
    return bool(value)
