"""Front end: generator expressions over compile-time iterables, unrolled into tuples.

`tuple(f(x) for x in ct.static_iter(items))` (cuTile's tuple comprehension): each `for` clause
iterates over a `static_iter(...)` (evaluated by Python) or a constant tuple, `if` clauses must
be compile-time bools, and the element expression is emitted once per combination.

Scoping is Python's: the comprehension is a function of its own. Its first iterable is
evaluated in the enclosing scope; everything else sees the enclosing names except the
targets of its `for` clauses, which are its own (reading one before its clause binds it is
cuTile's "Undefined variable"). Its names do not leak out, and a lambda made inside it keeps
the comprehension's names as they are when the comprehension ends.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator, Mapping
from typing import Any

from tilelang.errors import TileSyntaxError, TileTypeError
from tilelang.frontend import build, static
from tilelang.frontend.emitter import Emitter, Frame, expression
from tilelang.frontend.semantics import describe
from tilelang.frontend.values import TileValue
from tilelang.language.stub import stub_name


@expression(ast.GeneratorExp)
def _generator(em: Emitter, node: ast.GeneratorExp) -> tuple:
    first = _iterable(em, node.generators[0])  # in the enclosing scope, as Python
    em.frames.append(_own_frame(em, node))
    items: list[Any] = []
    try:
        _unroll(em, node, 0, first, items)
    finally:
        em.frames.pop()
    return tuple(items)


def _own_frame(em: Emitter, node: ast.GeneratorExp) -> Frame:
    """The comprehension's frame: its targets are its own names, the rest are the enclosing
    function's, read through (live, as Python's cells: an enclosing comprehension's target
    holds its last value once that comprehension ends)."""
    outer = em.frame
    targets = frozenset(n.id for clause in node.generators for n in ast.walk(clause.target)
                        if isinstance(n, ast.Name))
    closure = Enclosing(outer.scope, outer.source.closure, targets)
    source = dataclasses.replace(outer.source, closure=closure, own_names=targets)
    return Frame(source, {}, outer.call_site)


class Enclosing(Mapping[str, Any]):
    """The names a comprehension sees from its enclosing function: that function's scope, then
    its closure, less the comprehension's own names."""

    def __init__(self, scope: Mapping[str, Any], closure: Mapping[str, Any],
                 own: frozenset[str]):
        self.scope, self.closure, self.own = scope, closure, own

    def __getitem__(self, name: str) -> object:
        if name in self.own:
            raise KeyError(name)
        return self.scope[name] if name in self.scope else self.closure[name]

    def __iter__(self) -> Iterator[str]:
        return (n for n in {**self.closure, **self.scope} if n not in self.own)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _unroll(em: Emitter, node: ast.GeneratorExp, level: int, values: tuple,
            items: list[Any]) -> None:
    clause = node.generators[level]
    for item in values:
        em.bind(clause.target, item)
        if not all(_condition(em, cond) for cond in clause.ifs):
            continue
        if level + 1 == len(node.generators):
            items.append(em.expr(node.elt))
        else:
            inner = node.generators[level + 1]
            _unroll(em, node, level + 1, _iterable(em, inner), items)


def _iterable(em: Emitter, clause: ast.comprehension) -> tuple:
    if clause.is_async:
        raise TileSyntaxError("`async for` is not supported in a kernel")
    node = clause.iter
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
        known = build.constant_value(value)
        if known is None:
            with em.at(node):
                raise TileTypeError(
                    "Tuple comprehension if-conditions must be statically known; if the "
                    "condition can be evaluated at compile time, wrap it with ct.static_eval()")
        value = known
    return bool(value)
