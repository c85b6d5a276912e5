"""Front end: values carried through run-time control flow part by part (see carried.py).

A user's dataclass instance is its fields. A local function (lambda or nested `def`) is its
default values and the variables it reads from the functions around it (cuTile's closure
value: defaults and frozen captures). Two such values merge when they share their static part
(the class; the definition), each part merging as a value of its own: `make_closure(30)` on one
path and `make_closure(40)` on the other give one function whose captured value is an int32
chosen at run time. A merged function reads the captured values as they were where it was
merged.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
from typing import Any, TypeGuard

from tilelang.frontend.dataclass_values import is_instance, make_instance
from tilelang.frontend.emitter import Frame, LocalFunction

DEFAULT, CAPTURE = "default ", "capture "


def split(value: object) -> tuple[tuple, dict[str, Any]] | None:
    """(key, parts) of a record, or None for any other value. Values merge only when their
    keys are equal; the parts are merged one by one."""
    if is_instance(value):
        cls = type(value)
        return (cls,), {f.name: getattr(value, f.name) for f in dataclasses.fields(cls)}
    if _is_local_function(value):
        return _split_function(value)
    return None


def assemble(template: object, parts: dict[str, Any]) -> object:
    """The record like `template` whose parts are `parts`."""
    if _is_local_function(template):
        return _assemble_function(template, parts)
    return make_instance(type(template), parts)


def describe_record(value: object) -> str:
    if _is_local_function(value):
        return f"local function `{value.name}`"
    return f"{type(value).__name__} instance"


# ----- local functions -------------------------------------------------------------------------


def _is_local_function(value: object) -> TypeGuard[LocalFunction]:

    return isinstance(value, LocalFunction)


def _split_function(fn: LocalFunction) -> tuple[tuple, dict[str, Any]]:
    parts = {DEFAULT + p.name: p.default for p in fn.signature.parameters.values()
             if p.default is not p.empty}
    visible = {**fn.source.closure, **fn.frame.scope}
    itself = []  # names under which the function reads itself (a recursive local function)
    for name in free_names(fn.node):
        if name not in visible:
            continue  # a global, or not defined (an error when the function runs)
        if visible[name] is fn:
            itself.append(name)
        else:
            parts[CAPTURE + name] = visible[name]
    return (fn.node, tuple(itself)), parts


def _assemble_function(template: LocalFunction, parts: dict[str, Any]) -> LocalFunction:
    params = [p.replace(default=parts[DEFAULT + p.name]) if p.default is not p.empty else p
              for p in template.signature.parameters.values()]
    captured = {k[len(CAPTURE):]: v for k, v in parts.items() if k.startswith(CAPTURE)}
    frame = Frame(template.source, captured, None)  # returned: holds the captured values only
    fn = LocalFunction(template.node, template.source, frame, inspect.Signature(params),
                       template.name)
    _, itself = _split_function(template)[0]
    for name in itself:
        captured[name] = fn
    return fn


_FREE: dict[int, tuple[ast.AST, tuple[str, ...]]] = {}


def free_names(node: ast.Lambda | ast.FunctionDef) -> tuple[str, ...]:
    """The names a local function reads that it does not bind itself (a superset of Python's
    free variables: nested functions' own names are counted too, which costs nothing)."""
    cached = _FREE.get(id(node))
    if cached is not None and cached[0] is node:
        return cached[1]
    args = node.args
    bound = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs,
                             *filter(None, (args.vararg, args.kwarg)))}
    body = [node.body] if isinstance(node, ast.Lambda) else node.body
    loaded: dict[str, None] = {}
    for stmt in body:
        for inner in ast.walk(stmt):
            if isinstance(inner, ast.Name):
                if isinstance(inner.ctx, ast.Load):
                    loaded.setdefault(inner.id)
                elif not isinstance(node, ast.Lambda):
                    bound.add(inner.id)
    names = tuple(n for n in loaded if n not in bound)
    _FREE[id(node)] = (node, names)
    return names
