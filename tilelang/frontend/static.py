"""Front end: static_eval, static_assert and static_iter, evaluated by Python while the kernel
compiles.

Like keywords, they take their argument's source, not its value: the expression is compiled
with Python and run over the kernel's names (constants as Python values; tiles, arrays and other
run-time values as the front end's objects, whose `shape`, `dtype` and `ndim` can be read).
Python operators on tiles, and the pure language functions (`ct.minimum`, `ct.add`, ...), emit
their tile operation there; other language functions are errors. Messages follow cuTile's.
"""

from __future__ import annotations

import ast
import builtins
from typing import Any

from tilelang import pyast
from tilelang.errors import (
    TileError,
    TileNameError,
    TileStaticAssertionError,
    TileStaticEvalError,
    TileSyntaxError,
    TileTypeError,
)
from tilelang.frontend import build
from tilelang.frontend.emitter import Emitter
from tilelang.frontend.values import STATIC_EVALUATION, TileValue
from tilelang.language import dtypes as dt
from tilelang.language import stub
from tilelang.language.stub import KernelOnlyCall

KEYWORDS = ("static_eval", "static_assert")
DIRECT_ONLY = ("static_eval", "static_assert", "static_iter")  # must be called by their name
WHERE = {  # the part of a keyword that evaluates, as cuTile's messages name it
    "static_eval": "static_eval()",
    "static_assert": "static_assert() condition",
    "static_assert message": "static_assert() message",
    "static_iter": "static_iter() iterable",
}
PURE = frozenset({  # language functions a static expression may call (cuTile's list)
    "add", "sub", "mul", "truediv", "floordiv", "pow", "mod", "divmod", "cdiv", "minimum",
    "maximum", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_lshift", "bitwise_rshift",
    "bitwise_not", "negative", "greater", "greater_equal", "less", "less_equal", "equal",
    "not_equal", "matmul",
})
MAX_STATIC_ITERATIONS = 1000


def require_direct(em: Emitter, func: ast.expr, keyword: str) -> None:
    """static_eval/static_assert/static_iter are keywords: called by their own name (or as an
    attribute of a module), never through a variable of the kernel."""
    direct = (isinstance(func, ast.Attribute) and func.attr == keyword) or (
        isinstance(func, ast.Name) and func.id not in em.scope)
    if not direct:
        raise TileSyntaxError(f"{keyword}() must be used directly by name, e.g. "
                              f"tilelang.{keyword}() or ct.{keyword}()")


def emit(em: Emitter, keyword: str, node: ast.Call) -> object:
    require_direct(em, node.func, keyword)
    if keyword == "static_eval":
        if len(node.args) != 1 or node.keywords:
            raise TileSyntaxError("static_eval() expects a single expression")
        from tilelang.frontend.dataclass_values import check_frozen

        result = evaluate(em, node.args[0], keyword)
        check_frozen(result)  # a dataclass instance in a kernel is a compile-time value
        return result
    if not 1 <= len(node.args) <= 2 or node.keywords:
        raise TileSyntaxError(
            "static_assert(cond, msg=None, /) expects one or two positional arguments")
    condition = evaluate(em, node.args[0], keyword)
    if isinstance(condition, TileValue):  # a strictly typed constant counts (cuTile)
        known = build.constant_value(condition)
        if known is None:
            raise TileTypeError("static_assert() condition must be a compile-time constant")
        if condition.dtype is not dt.bool_:
            raise TileTypeError(f"static_assert() condition must be a boolean, not "
                                f"{condition.dtype.name}")
        condition = bool(known)
    if not isinstance(condition, bool):
        raise TileTypeError(f"static_assert() condition must be a boolean, not "
                            f"{type(condition).__name__}")
    if not condition:
        message = evaluate(em, node.args[1], "static_assert message") if len(node.args) == 2 \
            else None
        text = "" if message is None else str(message)
        raise TileStaticAssertionError("Static assertion failed" + (f": {text}" if text else ""))
    return None


def iterate(em: Emitter, call: ast.Call) -> list[Any]:
    """The items of `static_iter(expr)`: `expr` evaluated by Python, then drained."""
    require_direct(em, call.func, "static_iter")
    if len(call.args) != 1 or call.keywords:
        raise TileSyntaxError("static_iter() expects a single expression")
    iterable = evaluate(em, call.args[0], "static_iter")
    try:
        iterator = iter(iterable)
    except Exception as e:
        raise TileTypeError(f"Invalid static_iter() iterable{_detail(e)}") from None
    items: list[Any] = []
    while True:
        try:
            item = next(iterator)
        except StopIteration:
            return items
        except Exception as e:
            raise TileTypeError(f"Error was raised while obtaining item #{len(items)} from the "
                                f"static_iter() iterable{_detail(e)}") from None
        if len(items) == MAX_STATIC_ITERATIONS:
            raise TileStaticEvalError(
                f"Maximum number of iterations ({MAX_STATIC_ITERATIONS}) has been reached "
                "while unpacking the static_iter() iterable")
        if isinstance(item, list | set | dict | bytearray):  # mutable: no kernel value
            raise TileStaticEvalError(f"Invalid item #{len(items)} of static_iter() iterable: "
                                      f"Cannot create constant from value of type "
                                      f"{type(item).__name__}.")
        items.append(item)


def _detail(e: Exception) -> str:
    return f": {e}" if str(e) else ""


def evaluate(em: Emitter, node: ast.expr, keyword: str) -> Any:
    """Run the expression `node` with Python, over the names of the kernel's scope."""
    where = WHERE[keyword]
    stored = sorted(inner.target.id for inner in ast.walk(node)
                    if isinstance(inner, ast.NamedExpr) and isinstance(inner.target, ast.Name))
    if stored:
        raise TileSyntaxError(
            f"static_eval() expression attempted to modify a local variable '{stored[0]}'")
    names = {}
    inside = _bound_inside(node)
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name) and inner.id not in names:
            # a name the kernel lacks is left to Python (bound inside the expression, or not);
            # one of the kernel's locals read before it is assigned is an error, as in Python
            try:
                with em.at(inner):  # an error points at the name
                    names[inner.id] = em.lookup(inner.id, python=True)
            except TileNameError:
                pass
            except TileSyntaxError:
                if inner.id not in inside:
                    raise
    code = pyast.compile_tree(ast.Expression(body=node), em.frame.source.filename, "eval")
    saved_hook = stub.STATIC_CALL[0]
    stub.STATIC_CALL[0] = lambda name, args, kwargs: _call(em, name, args, kwargs)
    STATIC_EVALUATION[0] += 1
    try:
        return eval(code, {"__builtins__": builtins}, names)
    except KernelOnlyCall as e:
        used = "used" if e.name in DIRECT_ONLY else "called"
        raise TileStaticEvalError(f"{e.name}() cannot be {used} inside {where}.") from None
    except TileError:
        raise
    except Exception as e:  # the user's Python raised
        raise TileStaticEvalError(
            f"Exception was raised inside {where} ({type(e).__name__}{_detail(e)})") from None
    finally:
        STATIC_EVALUATION[0] -= 1
        stub.STATIC_CALL[0] = saved_hook


def _bound_inside(node: ast.expr) -> set[str]:
    """Names the expression binds itself: its comprehensions' targets, its lambdas' parameters."""
    bound: set[str] = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.comprehension):
            bound |= {n.id for n in ast.walk(inner.target) if isinstance(n, ast.Name)}
        elif isinstance(inner, ast.Lambda):
            args = inner.args
            bound |= {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs,
                                      *filter(None, (args.vararg, args.kwarg)))}
    return bound


def _call(em: Emitter, name: str, args: tuple, kwargs: dict[str, Any]) -> object:
    """A language function called by the static expression: pure ones emit their operation."""
    from tilelang.frontend.builtins import registry

    entry = registry.lookup(stub.STUBS[name]) if name in PURE else None
    if entry is None:
        raise KernelOnlyCall(name)
    return entry.call(em, list(args), kwargs)
