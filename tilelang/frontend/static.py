"""Front end: static_eval and static_assert, evaluated by Python while the kernel compiles.

Like keywords, they take their argument's source, not its value: the expression is compiled
with Python and run over the kernel's names (constants as Python values; tiles, arrays and other
run-time values as the front end's objects, whose `shape`, `dtype` and `ndim` can be read).
"""

from __future__ import annotations

import ast
import builtins
import contextlib
from typing import Any

from tilelang.errors import (
    TileError,
    TileNameError,
    TileStaticAssertionError,
    TileStaticEvalError,
    TileSyntaxError,
    TileTypeError,
)
from tilelang.frontend.emitter import Emitter
from tilelang.frontend.values import STATIC_EVALUATION
from tilelang.language.stub import KernelOnlyCall

KEYWORDS = ("static_eval", "static_assert")


def emit(em: Emitter, keyword: str, node: ast.Call) -> Any:
    if node.keywords:
        raise TileSyntaxError(f"{keyword}() takes positional arguments only")
    if keyword == "static_eval":
        if len(node.args) != 1:
            raise TileSyntaxError("static_eval(expr, /) takes exactly one expression")
        from tilelang.frontend.dataclass_values import check_frozen

        result = evaluate(em, node.args[0], keyword)
        check_frozen(result)  # a dataclass instance in a kernel is a compile-time value
        return result
    if not 1 <= len(node.args) <= 2:
        raise TileSyntaxError("static_assert(cond, msg=None, /) takes one or two expressions")
    condition = evaluate(em, node.args[0], keyword)
    if not isinstance(condition, bool):
        raise TileTypeError(f"static_assert() condition must be a boolean constant, got "
                            f"{type(condition).__name__}")
    if not condition:
        message = evaluate(em, node.args[1], keyword) if len(node.args) == 2 else None
        suffix = "" if message is None else f": {message}"
        raise TileStaticAssertionError(f"Static assertion failed{suffix}")
    return None


def evaluate(em: Emitter, node: ast.expr, keyword: str) -> Any:
    """Run the expression `node` with Python, over the names of the kernel's scope."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.NamedExpr):
            raise TileSyntaxError(f"{keyword}() expression attempted to assign to a variable")
    names = {}
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name) and inner.id not in names:
            # a name the kernel lacks is left to Python (bound inside the expression, or not)
            with contextlib.suppress(TileNameError):
                names[inner.id] = em.lookup(inner.id)
    code = compile(ast.Expression(body=node), em.frame.source.filename, "eval")
    try:
        return eval(code, {"__builtins__": builtins}, names)
    except KernelOnlyCall as e:
        inner = e.name if e.name not in KEYWORDS else None
        if inner is None:
            raise TileStaticEvalError(f"{e.name}() cannot be used inside {keyword}().") from None
        raise TileStaticEvalError(f"{inner}() cannot be called inside {keyword}()") from None
    except TileError:
        raise
    except Exception as e:  # the user's Python raised
        raise TileStaticEvalError(
            f"Exception was raised inside {keyword}(): {type(e).__name__}: {e}") from None
    finally:
        STATIC_EVALUATION[0] -= 1
