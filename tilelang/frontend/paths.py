"""Front end: what run-time control flow tracks per path: exit flags and the names assigned.

`break`, `continue` and `return` set a flag, a hidden name of the scope (spaces keep it apart
from Python names). A flag is False, True, or a bool scalar known only at run time; flags flow
through `if` and loops like any other variable. While a flag may be set, the statements after
it run under `if not flag` (see exits.py); a loop with `break` (or `return`) runs while its
flags are clear. `return` also binds RESULT, the value returned.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from tilelang.frontend import build
from tilelang.frontend.values import TileValue

BREAK, CONTINUE, RETURN, RESULT = " break", " continue", " return", " result"
FLAGS = (BREAK, CONTINUE, RETURN)


@dataclass
class LoopExits:
    """A run-time loop being emitted: the scope at each of its `break`s."""

    kind: str  # "for" or "while"
    breaks: list[dict[str, Any]] = field(default_factory=list)


def assigned_names(body: list[ast.stmt]) -> list[str]:
    """Names a list of statements assigns, in first-assignment order, with the flags (and
    RESULT) its `break`, `continue` and `return` statements set."""
    names: dict[str, None] = {}
    for stmt in body:
        for node in _own_scope(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.setdefault(node.id)
            elif isinstance(node, ast.FunctionDef):
                names.setdefault(node.name)
    for word in exit_words(body):
        names.setdefault(word)
        if word == RETURN:
            names.setdefault(RESULT)
    return list(names)


def assignment_line(body: list[ast.stmt], name: str) -> int | None:
    """The line of the last statement of `body` that assigns `name`, if one does."""
    lines = [node.lineno for stmt in body for node in _own_scope(stmt)
             if (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and
                 node.id == name) or (isinstance(node, ast.FunctionDef) and node.name == name)]
    return max(lines, default=None)


NESTED_SCOPES = (ast.Lambda, ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)


def _own_scope(root: ast.AST) -> list[ast.AST]:
    """The nodes of `root` that belong to the enclosing function's scope: not the inside of
    nested functions, lambdas or comprehensions (whose names are their own, as in Python)."""
    out: list[ast.AST] = []
    stack = [root]
    while stack:
        node = stack.pop()
        out.append(node)
        if isinstance(node, NESTED_SCOPES):
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            stack += [d for d in (*node.decorator_list, *node.args.defaults,
                                  *node.args.kw_defaults) if d is not None]
            continue
        stack += ast.iter_child_nodes(node)
    return out


def exit_words(body: list[ast.stmt]) -> set[str]:
    """The flags `body` may set: `break`/`continue` of nested loops are theirs, and nested
    functions return from themselves."""
    found: set[str] = set()
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Break | ast.Continue | ast.Return):
            found.add({ast.Break: BREAK, ast.Continue: CONTINUE, ast.Return: RETURN}[type(node)])
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        elif isinstance(node, ast.For | ast.While):
            stack += [n for n in ast.walk(node) if isinstance(n, ast.Return) and
                      not _inside_function(node, n)]
        else:
            stack += [c for c in ast.iter_child_nodes(node) if isinstance(c, ast.stmt)]
    return found


def _inside_function(root: ast.AST, target: ast.AST) -> bool:
    for node in ast.walk(root):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) and \
                any(n is target for n in ast.walk(node)):
            return True
    return False


def always_exits(body: list[ast.stmt]) -> bool:
    """Whether every path through `body` ends in `break`, `continue` or `return`."""
    for stmt in body:
        if isinstance(stmt, ast.Break | ast.Continue | ast.Return):
            return True
        if isinstance(stmt, ast.If) and always_exits(stmt.body) and always_exits(stmt.orelse):
            return True
    return False


def exit_state(scope: dict[str, Any]) -> bool | TileValue:
    """Whether this path has left its block: False, True, or a run-time bool scalar."""
    flags = [scope.get(f, False) for f in FLAGS]
    if any(f is True for f in flags):
        return True
    dynamic = [f for f in flags if isinstance(f, TileValue)]
    if not dynamic:
        return False
    acc = dynamic[0]
    for f in dynamic[1:]:
        acc = build.elementwise("or", [acc, f])
    return acc


def may_have_exited(scope: dict[str, Any]) -> bool:
    return any(scope.get(f, False) is not False for f in FLAGS)
