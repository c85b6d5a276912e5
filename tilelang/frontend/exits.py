"""Front end: `break`, `continue` and `return` anywhere, as flags and guarded statements.

Each statement sets its flag (paths.py). After a statement that may have set a flag at run
time, the rest of the block is emitted inside `if not (flags)`: the paths that left skip it.
When one branch of an `if` always leaves (`if i == k: break`), the rest of the block moves into
the other branch instead, so the common patterns need no guard. A function's result is what
its `return`s give; a `return` under run-time control flow makes it a value carried out of it.
"""

from __future__ import annotations

import ast
from typing import Any

from tilelang.errors import TileSyntaxError, TileTypeError, TileUnsupportedFeatureError
from tilelang.frontend import control_flow, emitter, operators
from tilelang.frontend.carried import exact, is_static, join, same_constant
from tilelang.frontend.emitter import Emitter, statement
from tilelang.frontend.paths import (
    BREAK,
    CONTINUE,
    FLAGS,
    RESULT,
    RETURN,
    always_exits,
    exit_state,
)
from tilelang.frontend.semantics import describe
from tilelang.frontend.values import TileValue, Undefined, is_loose

# ----- statements ------------------------------------------------------------------------------


@statement(ast.Break, ast.Continue)
def _break(em: Emitter, node: ast.stmt) -> None:
    frame = em.frame
    word = "break" if isinstance(node, ast.Break) else "continue"
    if not frame.loops:
        raise TileSyntaxError(f"`{word}` outside a loop")
    if isinstance(node, ast.Break):
        frame.loops[-1].breaks.append(dict(em.scope))
    em.scope[BREAK if isinstance(node, ast.Break) else CONTINUE] = True


@statement(ast.Return)
def _return(em: Emitter, node: ast.Return) -> None:
    frame = em.frame
    if any(loop.kind == "for" for loop in frame.loops):
        raise TileSyntaxError("Returning from a for loop is not supported",
                              hint="use a `while` loop, or a flag and `break`")
    value = None if node.value is None else em.expr(node.value)
    if len(em.frames) == 1 and value is not None:
        raise TileTypeError(
            "a kernel cannot return a value", hint="store results with tilelang.store"
        )
    frame.returns.append(value)
    em.scope[RESULT], em.scope[RETURN] = value, True
    if not frame.dynamic_depth:
        frame.result, frame.returned = value, True


# ----- the statements after one that may leave -------------------------------------------------


def emit_statement(em: Emitter, node: ast.stmt, rest: list[ast.stmt]) -> bool:
    """Emit `node`; return True when the rest of its block was dealt with (emitted under a
    guard, moved into a branch, or unreachable)."""
    if isinstance(node, ast.If) and rest:
        exits_then, exits_else = always_exits(node.body), always_exits(node.orelse)
        if exits_then or exits_else:  # the rest runs after the branch that stays
            body = node.body if exits_then else node.body + rest
            orelse = node.orelse if exits_else else node.orelse + rest
            em.stmt(ast.copy_location(ast.If(test=node.test, body=body, orelse=orelse), node))
            return True
    em.stmt(node)
    flags = [em.scope.get(f, False) for f in FLAGS]
    if any(f is True for f in flags):
        return True  # the rest cannot be reached
    if all(f is False for f in flags):
        return False
    if rest:
        _guard(em, rest)
    return True


def _guard(em: Emitter, rest: list[ast.stmt]) -> None:
    """Emit `rest` for the paths that have not left: `if not (flags): rest`. Where one flag
    alone may be set, the paths that skip `rest` are those where it is."""
    first = rest[0]
    with em.at(first):
        state = exit_state(em.scope)
        assert isinstance(state, TileValue), "no flag is True and one is set at run time"
        stay = operators.logical_not(state)
        node = ast.copy_location(ast.If(test=ast.Constant(True), body=rest, orelse=[]), first)
        cleared = {f: False for f in FLAGS if f in em.scope}
        maybe = [f for f in FLAGS if isinstance(em.scope.get(f), TileValue)]
        left = {maybe[0]: True} if len(maybe) == 1 else {}
        control_flow.emit_if(em, node, stay, enter=cleared, enter_else=left)


# ----- function bodies -------------------------------------------------------------------------


def emit_body(em: Emitter, body: list[ast.stmt]) -> object:
    """Emit a function's body; return its result (None when it returns nothing)."""
    em.block(body)
    frame = em.frame
    returned = frame.scope.get(RETURN, False)
    if frame.returned or returned is False:
        return frame.result
    results = list(frame.returns)
    if returned is not True:
        results.append(None)  # some paths reach the end of the function
    _check_results(results)
    if is_static(results[0]) and all(same_constant(results[0], r) for r in results):
        return results[0]
    value = frame.scope.get(RESULT)
    if isinstance(value, Undefined):
        value = value.value
    if value is None:  # a compiler bug: some `return` was not carried to the end
        raise TileUnsupportedFeatureError("this function's return value could not be carried "
                                          "out of its run-time control flow")
    return value


def _check_results(results: list[Any]) -> None:
    """Every `return` must give a value of one type (cuTile's rule): constants of one kind and
    tiles of one dtype and shape."""
    first = results[0]
    for other in results[1:]:
        if same_constant(first, other):
            continue
        if not _same_kind(first, other):
            raise TileTypeError(
                "Type of return value depends on path taken: "
                f"{describe(first)} vs. {describe(other)}",
                hint="return values of one type on every path (or none on any)",
            )
    skel = exact(first)
    for other in results[1:]:
        skel = join("return value", skel, other)


def _same_kind(a: Any, b: Any) -> bool:
    if isinstance(a, TileValue) and isinstance(b, TileValue):
        return a.dtype is b.dtype and a.shape == b.shape
    if is_loose(a) and is_loose(b):
        return type(a) is type(b)
    if isinstance(a, TileValue) != isinstance(b, TileValue):
        loose, tile = (a, b) if is_loose(a) else (b, a)
        return is_loose(loose) and not tile.shape and \
            type(loose) is {"b": bool, "i": int, "u": int, "f": float}[tile.dtype.kind]
    if type(a) is tuple and type(b) is tuple:
        return len(a) == len(b) and all(_same_kind(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a is not None


emitter.HOOKS["statement"] = emit_statement
