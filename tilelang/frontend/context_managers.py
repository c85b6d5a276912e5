"""Front end: `with` statements over @contextlib.contextmanager generators, inlined.

`with cm(args) as v: body` emits the generator's statements up to its one `yield` (in the
generator's own frame), binds `v` to the value yielded, emits `body`, then emits the
generator's statements after the `yield`. A `break`, `continue` or `return` in `body` only sets
a flag (exits.py): the statements after the `with` are skipped by their guard, while the
teardown, emitted right after the body in the generator's frame, runs on every path, as
Python runs it. The generator may itself use `with` around its `yield`.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import types
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from tilelang.errors import TileError, TileSyntaxError, TileTypeError
from tilelang.frontend import semantics
from tilelang.frontend.binding import bind
from tilelang.frontend.emitter import (
    MAX_INLINE_DEPTH,
    Emitter,
    Frame,
    recursion_error,
    statement,
)
from tilelang.frontend.paths import always_exits
from tilelang.frontend.source import FunctionSource, parse_function
from tilelang.frontend.values import TileValue, is_loose


# Every function decorated with @contextlib.contextmanager shares this code object.
@contextlib.contextmanager
def _any_context_manager() -> Iterator[None]:
    yield


_HELPER_CODE = _any_context_manager.__code__


def is_contextmanager(fn: object) -> bool:
    return isinstance(fn, types.FunctionType) and fn.__code__ is _HELPER_CODE and \
        isinstance(getattr(fn, "__wrapped__", None), types.FunctionType)


@dataclass(eq=False)
class GeneratorContextManager:
    """What calling a @contextmanager function gives: its generator, not yet started."""

    fn: types.FunctionType  # the generator function
    arguments: dict[str, Any]  # its parameters, bound
    args: list[Any]
    kwargs: dict[str, Any]
    entered: bool = field(default=False)

    def __str__(self) -> str:
        args = ", ".join(type_str(a) for a in self.args)
        kwargs = ", ".join(f"{k}: {type_str(v)}" for k, v in self.kwargs.items())
        return f"GeneratorContextManager[{self.fn!r}, args=[{args}], kwargs={{{kwargs}}}]"


def type_str(value: object) -> str:
    """A value's type as cuTile spells it in messages (`Tile[int32,()]`)."""
    if isinstance(value, TileValue) or (is_loose(value) and not isinstance(value, str)):
        dtype = value.dtype if isinstance(value, TileValue) else semantics.constant_dtype(value)
        shape = value.shape if isinstance(value, TileValue) else ()
        return f"Tile[{dtype.name},({','.join(map(str, shape))}{',' if len(shape) == 1 else ''})]"
    if value is None:
        return "None"
    return str(value) if isinstance(value, GeneratorContextManager) else type(value).__name__


def check_operands(op: ast.operator, lhs: object, rhs: object) -> None:
    """A context manager is no operand (cuTile's message, which spells out both types)."""
    if isinstance(lhs, GeneratorContextManager) or isinstance(rhs, GeneratorContextManager):
        symbol = _SYMBOLS.get(type(op), type(op).__name__)
        raise TileTypeError(
            f"Unsupported operand types for {symbol}: {type_str(lhs)} and {type_str(rhs)}")


_SYMBOLS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
            ast.Mod: "%", ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitOr: "|",
            ast.BitXor: "^", ast.BitAnd: "&", ast.MatMult: "@"}


def create(fn: types.FunctionType, args: list[Any], kwargs: dict[str, Any]) -> object:
    """Call a @contextmanager function: bind its arguments, run nothing yet (as Python)."""
    gen = fn.__wrapped__  # type: ignore[attr-defined]  # set by functools.wraps; not in typeshed
    bound = bind(gen.__name__, inspect.signature(gen, follow_wrapped=False), args, kwargs)
    bound.apply_defaults()
    return GeneratorContextManager(gen, dict(bound.arguments), list(args), dict(kwargs))


# ----- the `with` statement --------------------------------------------------------------------


@statement(ast.With)
def _with(em: Emitter, node: ast.With) -> None:
    entered = _enter(em, node)
    em.block(_inner_body(node))
    _exit(em, entered)


def _inner_body(node: ast.With) -> list[ast.stmt]:
    """The body under the first item: `with a, b: s` is `with a: (with b: s)`."""
    if len(node.items) == 1:
        return node.body
    rest = ast.With(items=node.items[1:], body=node.body, type_comment=None)
    return [ast.copy_location(rest, node.items[1].context_expr)]


@dataclass
class _Entered:
    frame: Frame
    run: Iterator[Any]


def _enter(em: Emitter, node: ast.With) -> _Entered:
    """Enter the first item's context manager: its setup, then bind the `as` target."""
    item = node.items[0]
    with em.at(item.context_expr):
        cm = em.expr(item.context_expr)
        if not isinstance(cm, GeneratorContextManager):
            raise TileTypeError(
                f"{semantics.describe(cm)} is not a context manager usable in a kernel",
                hint="write it as a function decorated with @contextlib.contextmanager")
        if cm.entered:
            raise TileTypeError("a @contextmanager object can be entered only once")
        cm.entered = True
        if len(em.frames) >= MAX_INLINE_DEPTH:
            raise recursion_error()
        source = parse_function(cm.fn)
        point = _yield_point(source)
        entered = _Entered(Frame(source, dict(cm.arguments), em.loc),
                           _run(em, source.tree.body, point))
        value = _resume(em, entered)
    if item.optional_vars is not None:
        with em.at(item.optional_vars):
            em.bind(item.optional_vars, value)
    return entered


def _exit(em: Emitter, entered: _Entered) -> None:
    """The teardown: the generator's statements after its `yield`."""
    _resume(em, entered)


_DONE = object()


def _resume(em: Emitter, entered: _Entered) -> object:
    """Run the generator's code, in its own frame, up to its `yield` (or to its end)."""
    em.frames.append(entered.frame)
    try:
        return next(entered.run, _DONE)
    finally:
        em.frames.pop()


def _run(em: Emitter, body: list[ast.stmt], point: ast.Expr) -> Iterator[Any]:
    """Emit `body` (the generator's, or that of a `with` in it) around `point`, its `yield`:
    gives the value yielded, then, resumed, emits the rest."""
    i = next(i for i, s in enumerate(body) if any(n is point for n in ast.walk(s)))
    em.block(body[:i])  # no flag can be set here: no `return`, and loops keep their own
    stmt = body[i]
    if stmt is point:
        with em.at(point):
            yielded = point.value
            assert isinstance(yielded, ast.Yield), "_yield_point finds a `yield` statement"
            value = None if yielded.value is None else em.expr(yielded.value)
        yield value
    else:  # a `with` holding the `yield`
        assert isinstance(stmt, ast.With)
        entered = _enter(em, stmt)
        yield from _run(em, _inner_body(stmt), point)
        _exit(em, entered)
    em.block(body[i + 1:])


# ----- where the `yield` is --------------------------------------------------------------------


def _yield_point(source: FunctionSource) -> ast.Expr:
    """The generator's one reachable `yield` statement, or the error cuTile gives."""
    name = source.name
    for node in _own_nodes(source.tree.body):
        if isinstance(node, ast.Return):
            raise _at(source, node, TileSyntaxError(
                "Returning from a generator-based context manager is not supported"))
        if isinstance(node, ast.YieldFrom):
            raise _at(source, node, TileSyntaxError(
                "`yield from` is not supported in a context manager"))
    found = _reachable_yields(source.tree.body, False)
    if not found:
        raise TileTypeError(f"Context manager `{name}` has no reachable `yield` statement")
    if len(found) > 1:
        raise _at(source, found[1][0], TileTypeError(
            f"Context manager `{name}` must have one `yield` statement, found {len(found)}"))
    node, controlled = found[0]
    if controlled:
        raise _at(source, node, TileTypeError(
            "The `yield` of a context manager must be outside of loops and conditional "
            "statements"))
    if not isinstance(node, ast.Expr):
        raise _at(source, node, TileSyntaxError(
            "The `yield` of a context manager must be a statement of its own"))
    return node


def _reachable_yields(body: list[ast.stmt], controlled: bool) -> list[tuple[ast.AST, bool]]:
    """The `yield`s of `body` not after a `break`, `continue` or `return`, each with whether
    it is inside a loop or a conditional. A `yield` statement is given as its ast.Expr."""
    found: list[tuple[ast.AST, bool]] = []
    for stmt in body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Yield):
            found.append((stmt, controlled))
            found += [(n, controlled) for n in _expr_yields(stmt.value.value)]
        elif isinstance(stmt, ast.If | ast.For | ast.While | ast.With):
            inner = controlled or not isinstance(stmt, ast.With)
            heads = [stmt.test] if isinstance(stmt, ast.If | ast.While) else \
                [stmt.iter] if isinstance(stmt, ast.For) else [i.context_expr for i in stmt.items]
            found += [(n, controlled) for h in heads for n in _expr_yields(h)]
            found += _reachable_yields(stmt.body, inner)
            found += _reachable_yields(getattr(stmt, "orelse", []), inner)
        elif not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found += [(n, controlled) for n in _expr_yields(stmt)]
        if isinstance(stmt, ast.Break | ast.Continue | ast.Return) or \
                (isinstance(stmt, ast.If) and always_exits([stmt])):
            break  # the rest of the block cannot be reached
    return found


def _expr_yields(node: ast.AST | None) -> list[ast.AST]:
    return [] if node is None else [n for n in _own_nodes([node]) if isinstance(n, ast.Yield)]


def _own_nodes(nodes: Sequence[ast.AST]) -> Iterator[ast.AST]:
    """The nodes under `nodes`, not those of nested functions, lambdas and classes."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        stack += [c for c in ast.iter_child_nodes(node) if not isinstance(
            c, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef)]


def _at(source: FunctionSource, node: ast.AST, error: TileError) -> TileError:
    """Point `error` at `node` in the generator's source."""
    error.loc = source.loc(node)
    return error
