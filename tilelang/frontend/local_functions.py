"""Front end: lambdas and functions defined inside a kernel or helper, inlined where called.

A local function sees the names of the scope it was defined in as they are when it is called
(Python's late binding), its own parameters first.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
from typing import Any

from tilelang.errors import TileSyntaxError
from tilelang.frontend import exits
from tilelang.frontend.binding import bind
from tilelang.frontend.emitter import (
    MAX_INLINE_DEPTH,
    Emitter,
    Frame,
    LocalFunction,
    expression,
    recursion_error,
    statement,
)


@expression(ast.Lambda)
def _lambda(em: Emitter, node: ast.Lambda) -> LocalFunction:
    return _define(em, node, "<lambda>")


@statement(ast.FunctionDef)
def _def(em: Emitter, node: ast.FunctionDef) -> None:
    if node.decorator_list:
        raise TileSyntaxError("a function defined in a kernel cannot have decorators")
    em.scope[node.name] = _define(em, node, node.name)


def _define(em: Emitter, node: ast.Lambda | ast.FunctionDef, name: str) -> LocalFunction:
    args = node.args
    if args.vararg or args.kwarg or args.kwonlyargs:
        raise TileSyntaxError(f"`{name}`: functions defined in a kernel take plain parameters "
                              "only (no *args, **kwargs or keyword-only ones)")
    names = [a.arg for a in (*args.posonlyargs, *args.args)]
    defaults = [em.expr(d) for d in args.defaults]
    first_default = len(names) - len(defaults)
    params = [
        inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                          default=defaults[i - first_default] if i >= first_default
                          else inspect.Parameter.empty)
        for i, n in enumerate(names)
    ]
    return LocalFunction(node, em.frame.source, em.frame, inspect.Signature(params), name)


def call_local(em: Emitter, fn: LocalFunction, args: list[Any], kwargs: dict[str, Any]) -> object:
    """Emit `fn`'s body in place with its arguments bound; return its result."""
    if len(em.frames) >= MAX_INLINE_DEPTH:
        raise recursion_error()
    bound = bind(fn.name, fn.signature, args, kwargs)
    bound.apply_defaults()
    closure = {**fn.source.closure, **fn.frame.scope}
    source = dataclasses.replace(fn.source, name=fn.name, closure=closure)
    frame = Frame(source, dict(bound.arguments), em.loc)
    em.frames.append(frame)
    try:
        if isinstance(fn.node, ast.Lambda):
            return em.expr(fn.node.body)
        return exits.emit_body(em, fn.node.body)
    finally:
        em.frames.pop()
