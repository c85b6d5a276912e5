"""Front end: the walk over a kernel's AST, with scopes, locations and error reporting."""

from __future__ import annotations

import ast
import builtins
import contextlib
import inspect
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, NoReturn

import mlir.ir as ir
import numpy as np

from tilelang import settings
from tilelang.errors import (
    Loc,
    TileError,
    TileInternalError,
    TileRecursionError,
    TileSyntaxError,
    TileTypeError,
    TileUndefinedVariableError,
    TileValueError,
    did_you_mean,
)
from tilelang.frontend.source import FunctionSource
from tilelang.frontend.values import Undefined
from tilelang.language.stub import KernelOnlyCall

Handler = Callable[["Emitter", Any], Any]
EXPRESSIONS: dict[type[ast.AST], Handler] = {}
STATEMENTS: dict[type[ast.AST], Handler] = {}

MAX_INLINE_DEPTH = 1000  # nested helper calls (cuTile's limit): deeper is TileRecursionError
PYTHON_FRAMES_PER_CALL = 40  # the front end's Python frames per inlined call, with room to spare


def recursion_error() -> TileRecursionError:
    return TileRecursionError(
        f"Maximum recursion depth ({MAX_INLINE_DEPTH}) reached while inlining a function call",
        hint="every helper call is inlined: recursion must end after a compile-time number of "
             "steps")


@contextlib.contextmanager
def room_for_inlining() -> Iterator[None]:
    """Python's recursion limit raised for the emission of a kernel, so that MAX_INLINE_DEPTH
    nested helper calls end in a TileRecursionError rather than Python's RecursionError."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(max(before, PYTHON_FRAMES_PER_CALL * MAX_INLINE_DEPTH))
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


def expression(*node_types: type[ast.AST]) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        for t in node_types:
            EXPRESSIONS[t] = fn
        return fn

    return register


def statement(*node_types: type[ast.AST]) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        for t in node_types:
            STATEMENTS[t] = fn
        return fn

    return register


# Installed by the modules that implement them, which import this one (so that this module, the
# visitor every statement module uses, imports none of them): "statement" runs one statement
# with the function's exits (exits.emit_statement: a return or break under a run-time condition
# guards the rest), "assign_item" writes `x[i] = v` into a container (containers.assign_item).
HOOKS: dict[str, Callable[..., Any]] = {}


@dataclass
class Frame:
    """One function being emitted: the kernel itself or an inlined helper."""

    source: FunctionSource
    scope: dict[str, Any]
    call_site: Loc | None
    returned: bool = False
    result: object = None
    dynamic_depth: int = 0  # > 0 inside the body of a run-time `if`/`for`/`while`
    loops: list[Any] = field(default_factory=list)  # run-time loops around (paths.LoopExits)
    returns: list[Any] = field(default_factory=list)  # the value of every `return` emitted



@dataclass(frozen=True, eq=False)
class LocalFunction:
    node: ast.Lambda | ast.FunctionDef
    source: FunctionSource  # the function it was defined in
    frame: Frame  # ... and its frame, whose names are read when the function is called
    signature: inspect.Signature
    name: str

    def __call__(self, *args: object, **kwargs: object) -> NoReturn:  # by Python: static_eval
        raise KernelOnlyCall(self.name)


def _captured(value: object) -> object:
    """A global or closure variable as a compile-time value: a NumPy scalar is a constant of
    its dtype (as in cuTile); an array object (torch, NumPy, CuPy, ...) cannot be one."""
    if isinstance(value, np.generic) and value.dtype.kind in "biuf":
        from tilelang.frontend import build
        from tilelang.language import dtypes as dt

        dtype = dt.from_numpy(value.dtype)
        if dtype is not None:
            return build.constant(value.item(), dtype)
    if not isinstance(value, type) and hasattr(value, "__dlpack__"):
        kind = f"{type(value).__module__}.{type(value).__qualname__}"
        raise TileTypeError(f"Cannot create constant from value of type {kind}",
                            hint="pass the array to the kernel as an argument")
    return value


@dataclass
class Emitter:
    """Emits `tile` IR for one kernel specialization."""

    frames: list[Frame] = field(default_factory=list)
    loc: Loc | None = None
    combiner: str | None = None  # "reduction" or "scan" while a combining function is emitted
    call_sites: dict[int, tuple[Loc, ir.Location]] = field(default_factory=dict, repr=False)

    @property
    def frame(self) -> Frame:
        return self.frames[-1]

    @property
    def scope(self) -> dict[str, Any]:
        return self.frame.scope

    # ----- locations and errors ------------------------------------------------------------

    @contextlib.contextmanager
    def at(self, node: ast.AST) -> Iterator[Loc]:
        """Emit under `node`'s location; errors without a location get this one."""
        outer = self.loc
        loc = self.frame.source.loc(node, self.frame.call_site)
        self.loc = loc
        try:
            with to_mlir_location(loc, self.call_sites):
                yield loc
        except TileError as e:
            if e.loc is None:
                e.loc = loc
            raise
        except Exception as e:
            if settings.frontend_debug():
                raise
            raise TileInternalError(
                f"internal compiler error: {type(e).__name__}: {e}",
                loc,
                hint="please report this; set TILELANG_FRONTEND_DEBUG=1 for the compiler traceback",
            ) from e
        finally:
            self.loc = outer

    # ----- dispatch -------------------------------------------------------------------------

    def expr(self, node: ast.expr) -> object:
        handler = EXPRESSIONS.get(type(node))
        with self.at(node):
            if handler is None:
                raise unsupported_syntax(node)
            return handler(self, node)

    def stmt(self, node: ast.stmt) -> None:
        handler = STATEMENTS.get(type(node))
        with self.at(node):
            if handler is None:
                raise unsupported_syntax(node)
            handler(self, node)

    def exprs(self, nodes: list[ast.expr]) -> list[Any]:
        """Evaluate `nodes` in order, expanding `*tuple` items (for calls and tuple displays)."""
        out: list[Any] = []
        for node in nodes:
            if not isinstance(node, ast.Starred):
                out.append(self.expr(node))
                continue
            with self.at(node):
                value = self.expr(node.value)
                if not isinstance(value, tuple):
                    from tilelang.frontend.semantics import describe

                    raise TileTypeError(f"Expected a tuple after *, got {describe(value)}")
                out.extend(value)
        return out

    def not_in_combiner(self, what: str) -> None:
        """Reject run-time control flow and memory effects in a reduce/scan combiner: it is
        straight-line code, run once per pair of elements (cuTile's rule and messages)."""
        if self.combiner is None:
            return
        messages = {
            "if": f"Branching inside {self.combiner} body is not supported",
            "loop": f"Loops inside {self.combiner} body are not supported",
            "memory": f"Operations with memory effects are not supported inside {self.combiner} "
                      "body",
            "combining": "Nested scan/reduction is not supported",
        }
        raise TileSyntaxError(messages[what])

    def block(self, body: list[ast.stmt]) -> None:
        for i, node in enumerate(body):
            if self.frame.returned:
                return
            if HOOKS["statement"](self, node, body[i + 1:]):
                return  # the rest was emitted under a run-time guard, or cannot be reached

    # ----- names ----------------------------------------------------------------------------

    def lookup(self, name: str, *, python: bool = False) -> object:
        """The value of a name; `python=True` for Python code run while compiling (static_eval),
        which may read any global object."""
        frame = self.frame
        if name not in frame.scope and name not in frame.source.closure and \
                name in frame.source.local_names:
            # assigned somewhere in the function, so local throughout (Python's rule): read
            # before its assignment, not the global or closure variable of the same name
            raise TileSyntaxError(f"Undefined variable {name} used")
        for table in (frame.scope, frame.source.closure, frame.source.globals):
            if name in table:
                value = table[name]
                if isinstance(value, Undefined):
                    raise value.error_for(name)
                if table is not frame.scope and not python:
                    return _captured(value)
                return value
        if hasattr(builtins, name):
            return getattr(builtins, name)
        # cuTile's wording and class (a TileTypeError); still a TileNameError as Python's is
        known = [*frame.scope, *frame.source.closure, *frame.source.globals, *dir(builtins)]
        raise TileUndefinedVariableError(f"Undefined variable {name} used: name `{name}` is not "
                                         f"defined{did_you_mean(name, known)}")

    def bind(self, target: ast.expr, value: object) -> None:
        """Assign `value` to an assignment target (a name or a tuple of targets)."""
        if isinstance(target, ast.Name):
            self.scope[target.id] = value
        elif isinstance(target, ast.Tuple | ast.List):
            self._unpack(target, value)
        elif isinstance(target, ast.Starred):
            raise TileSyntaxError("starred assignment is not supported in a kernel")
        elif isinstance(target, ast.Subscript):
            HOOKS["assign_item"](self, self.expr(target.value), self.expr(target.slice), value)
        else:
            raise TileSyntaxError(
                f"cannot assign to {_describe_node(target)}: tiles and arrays are immutable",
                hint="bind a new name, or write to an array with tilelang.store",
            )

    def _unpack(self, target: ast.Tuple | ast.List, value: object) -> None:
        if any(isinstance(t, ast.Starred) for t in target.elts):
            raise TileSyntaxError("starred assignment is not supported in a kernel")
        if not isinstance(value, tuple):
            raise TileSyntaxError(
                f"cannot unpack {type(value).__name__} into {len(target.elts)} names"
            )
        if len(value) != len(target.elts):
            few = "few" if len(value) < len(target.elts) else "many"
            raise TileValueError(
                f"Too {few} values to unpack (expected {len(target.elts)}, got {len(value)})"
            )
        for t, v in zip(target.elts, value, strict=True):
            with self.at(t):
                self.bind(t, v)


def to_mlir_location(loc: Loc, sites: dict[int, tuple[Loc, ir.Location]] | None = None
                     ) -> ir.Location:
    """A FileLineColRange location (1-based columns), wrapped in call sites for helpers.
    `sites` caches the locations of call sites by identity (a deep chain of helper calls
    would otherwise be converted again for every node)."""
    end_line = loc.end_line or loc.line
    end_col = (loc.end_col if loc.end_col is not None else loc.col) + 1
    here = ir.Location.file(loc.file, loc.line, loc.col + 1, end_line, end_col)
    if loc.call_site is None:
        return here
    if sites is None:
        return ir.Location.callsite(here, [to_mlir_location(loc.call_site)])
    cached = sites.get(id(loc.call_site))
    if cached is None or cached[0] is not loc.call_site:
        cached = sites[id(loc.call_site)] = (loc.call_site,
                                             to_mlir_location(loc.call_site, sites))
    return ir.Location.callsite(here, [cached[1]])


def unsupported_syntax(node: ast.AST) -> TileSyntaxError:
    """Python syntax the front end has no handler for (cuTile's "Unsupported syntax")."""
    return TileSyntaxError(f"Unsupported syntax: {_describe_node(node)} is not supported in a "
                           "kernel")


def _describe_node(node: ast.AST) -> str:
    names = {
        ast.Lambda: "a lambda", ast.Delete: "`del`", ast.With: "`with`", ast.Try: "`try`",
        ast.Raise: "`raise`", ast.Import: "`import`", ast.ImportFrom: "`import`",
        ast.Global: "`global`", ast.Nonlocal: "`nonlocal`", ast.ClassDef: "a class definition",
        ast.FunctionDef: "a nested function definition", ast.ListComp: "a list comprehension",
        ast.DictComp: "a dict comprehension", ast.SetComp: "a set comprehension",
        ast.GeneratorExp: "a generator expression", ast.Dict: "a dict", ast.Set: "a set",
        ast.JoinedStr: "an f-string", ast.NamedExpr: "`:=`", ast.Await: "`await`",
        ast.Yield: "`yield`", ast.Starred: "`*` unpacking", ast.AsyncFor: "`async for`",
        ast.Attribute: "an attribute", ast.Subscript: "an indexed element",
    }
    return names.get(type(node), f"`{type(node).__name__}`")
