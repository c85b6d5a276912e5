"""Front end: fetch and parse a kernel's Python source, keeping the user's lines and columns."""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import hashlib
import inspect
import linecache
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from tilelang import pyast
from tilelang.errors import Loc, TileSyntaxError


@dataclass(frozen=True, eq=False)
class FunctionSource:
    """A parsed function: its AST with true line/column numbers, and where names resolve."""

    fn: Any
    name: str
    filename: str
    text: str
    tree: ast.FunctionDef
    globals: dict[str, Any]
    closure: Mapping[str, Any] = field(default_factory=dict)
    own_names: frozenset[str] | None = None  # a comprehension's: its targets' names

    @cached_property
    def local_names(self) -> frozenset[str]:
        """The function's local variables as Python compiles them (parameters and every name
        it assigns; not those of its comprehensions, lambdas or nested functions)."""
        if self.own_names is not None:
            return self.own_names
        code = getattr(self.fn, "__code__", None)
        return frozenset(code.co_varnames + code.co_cellvars) if code else frozenset()

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()[:16]

    def loc(self, node: ast.AST, call_site: Loc | None = None) -> Loc:
        return Loc(
            self.filename,
            getattr(node, "lineno", self.tree.lineno),
            getattr(node, "col_offset", 0),
            getattr(node, "end_lineno", None),
            getattr(node, "end_col_offset", None),
            self.name,
            call_site,
        )


def _kept_on(fn: Any, name: str, make: Callable[[Any], Any]) -> Any:
    """`make(fn)`, computed once per function and kept in the function's own `__dict__`, so it
    goes when the function does. A module-level cache (functools.cache) kept every function it
    saw alive, and with it the kernels its globals name and all they compiled: kernels made at
    run time (in a loop, by a fuzzer) were never freed. The entry names the function and code it
    was made for: functools.wraps copies `__dict__` into wrappers, and `__code__` can be
    replaced."""
    kept = getattr(fn, "__dict__", None)
    if type(kept) is not dict:  # a code object, a builtin: nothing to keep it on
        return make(fn)
    key = (id(fn), getattr(fn, "__code__", None))
    entry = kept.get(name)
    if entry is not None and entry[0] == key:
        return entry[1]
    value = make(fn)
    kept[name] = (key, value)
    return value


def function_text(fn: Any) -> tuple[str, str, int]:
    """The text of `fn`'s definition, its file and its first line; TileSyntaxError if the
    source is unavailable. The fingerprint needs only this; parse_function parses it."""
    return _kept_on(fn, "_tilelang_function_text", _function_text)


def _function_text(fn: Any) -> tuple[str, str, int]:
    # The source of the function's own code: getsourcelines(fn) would follow `__wrapped__`
    # to the function a decorator wraps (functools.wraps) and compile that one instead. Asked
    # of the function, not its code object: for a code object inspect looks for the module
    # by scanning every loaded one (tens of ms in a process that has imported torch).
    code = getattr(fn, "__code__", fn)
    fast = _definition_lines(fn, code)
    if fast is not None:
        return fast
    return _tokenized_text(fn, code)


def _tokenized_text(fn: Any, code: Any) -> tuple[str, str, int]:
    """function_text through inspect: its tokenizer finds where the definition ends."""
    of = fn if inspect.isfunction(fn) else code
    try:
        lines, first = inspect.findsource(of)
        lines, start = inspect.getblock(lines[first:]), first + 1
        filename = inspect.getsourcefile(of) or inspect.getfile(of)
    except (OSError, TypeError) as e:
        raise TileSyntaxError(
            f"cannot read the source of {getattr(fn, '__qualname__', fn)!r}: {e}",
            hint="kernels and helpers must be defined in a file, not at a prompt",
        ) from None
    return "".join(lines), filename, start


def _definition_lines(fn: Any, code: Any) -> tuple[str, str, int] | None:
    """function_text without the tokenizer (pure Python before 3.12, and compiling its regular
    expressions took ~1.5 ms of a disk-cache hit): the definition runs from its first line
    (the first decorator's, as the code object records it) to the last line its code or any
    nested code spans, and on through the lines indented deeper than the `def` (a trailing
    `pass`, a docstring, comments), as inspect.getblock would find. None where that cannot be
    told (no source lines, no end positions, a lambda): the caller asks inspect."""
    filename = getattr(code, "co_filename", "")
    lines = linecache.getlines(filename, getattr(fn, "__globals__", None))
    first = getattr(code, "co_firstlineno", 0) - 1
    if not lines or not 0 <= first < len(lines):
        return None
    head = lines[first].lstrip()
    if not head.startswith(("def ", "async def ", "@")):
        return None
    end = _last_line(code)
    if end is None or not first < end <= len(lines):
        return None
    indent = len(lines[first]) - len(head)
    last = end  # lines[first:last] is the definition so far
    for i in range(end, len(lines)):
        text = lines[i].lstrip()
        if not text.strip():
            continue
        if len(lines[i]) - len(text) <= indent:
            break
        last = i + 1
    if not any(line.startswith(("def ", "async def "), indent) for line in lines[first:last]):
        return None  # code whose positions are not this file's (a generated wrapper)
    return "".join(lines[first:last]), filename, first + 1


def _last_line(code: Any) -> int | None:
    """The last source line the code object's instructions (or its nested code's) span."""
    positions = getattr(code, "co_positions", None)  # Python 3.11+
    ends = [end for _, end, _, _ in positions() if end is not None] if positions else []
    if not ends:
        return None
    nested = [_last_line(c) for c in code.co_consts if hasattr(c, "co_positions")]
    return max(ends + [n for n in nested if n is not None])


def parse_function(fn: Any) -> FunctionSource:
    """Parse `fn`; raise TileSyntaxError if its source is unavailable or not a plain function."""
    return _kept_on(fn, "_tilelang_function_source", _parse_function)


def _parse_function(fn: Any) -> FunctionSource:
    text, filename, start = function_text(fn)
    try:
        try:
            fdef = _parse_def(text, filename, start)
        except SyntaxError:  # where the definition ends fooled _definition_lines: ask inspect
            text, filename, start = _tokenized_text(fn, getattr(fn, "__code__", fn))
            fdef = _parse_def(text, filename, start)
    except SyntaxError:  # e.g. a lambda: its lines are not a statement of their own
        raise TileSyntaxError(
            f"cannot parse the source of {getattr(fn, '__qualname__', fn)!r}",
            hint="kernels and helpers must be functions defined with `def` (not lambdas)",
        ) from None
    if not isinstance(fdef, ast.FunctionDef):
        raise TileSyntaxError(f"{fn!r} is not defined with a plain `def`")
    linecache.checkcache(filename)
    return FunctionSource(fn, fn.__name__, filename, text, fdef, fn.__globals__, _closure(fn))


def kernel_source(fn: Any) -> FunctionSource:
    """A kernel's source: a decorator between `@kernel` and the `def` is looked through (its
    parameters are the decorated function's); helpers compile their own code, wrappers too."""
    return parse_function(inspect.unwrap(fn))


def _parse_def(text: str, filename: str, start: int) -> ast.stmt:
    """Parse a def; an indented one (nested, or a method) is parsed inside `if True:` so its
    columns stay the file's own, where dedenting would shift them."""
    if text[:1].isspace():
        module = pyast.parse("if True:\n" + text, filename=filename)
        ast.increment_lineno(module, start - 2)
        return module.body[0].body[0]  # type: ignore[attr-defined]
    module = pyast.parse(text, filename=filename)
    ast.increment_lineno(module, start - 1)
    return module.body[0]


def _closure(fn: Any) -> dict[str, Any]:
    cells = fn.__closure__ or ()
    out = {}
    for name, cell in zip(fn.__code__.co_freevars, cells, strict=True):
        with contextlib.suppress(ValueError):  # empty: the name is assigned later outside
            out[name] = cell.cell_contents
    return out


def fingerprint(fn: Any) -> str:
    """A hash of what compiling `fn` depends on besides its arguments: its source and, followed
    through helper functions, the values of the globals and closure variables it names.

    Keys the on-disk cache, so two kernels from one source with different captured constants
    (closures, module-level BLOCK sizes) never share a binary.
    """
    h = hashlib.sha256()
    _feed_function(fn, h, set())
    return h.hexdigest()[:32]


def _feed_function(fn: Any, h: Any, seen: set[int]) -> None:
    if id(fn) in seen:
        return
    seen.add(id(fn))
    h.update(function_text(fn)[0].encode())
    names = _code_names(fn.__code__)
    for name in sorted(names):
        if name in fn.__globals__:
            _feed_value(name, fn.__globals__[name], h, seen)
    for name, value in sorted(_closure(fn).items()):
        _feed_value(name, value, h, seen)


def _code_names(code: Any) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _code_names(const)
    return names


def _feed_value(name: str, value: Any, h: Any, seen: set[int]) -> None:
    import enum
    import types

    inner = getattr(value, "fn", None) if getattr(value, "__tilelang_kernel__", False) else None
    if isinstance(value, types.FunctionType) or inner is not None:
        _feed_function(inner or value, h, seen)
        return
    if dataclasses.is_dataclass(value):  # its methods compile into the kernel too
        for cls in (value if isinstance(value, type) else type(value)).__mro__:
            for _, member in sorted(vars(cls).items()):
                fn = member.fget if isinstance(member, property) else member
                if isinstance(fn, types.FunctionType):
                    with contextlib.suppress(TileSyntaxError):  # generated ones have no source
                        _feed_function(fn, h, seen)
    if isinstance(value, bool | int | float | str | bytes | tuple | type(None) | enum.Enum):
        h.update(f"{name}={type(value).__name__}:{value!r}".encode())
    elif isinstance(value, types.ModuleType):
        h.update(f"{name}=module:{value.__name__}".encode())
    else:
        h.update(f"{name}={type(value).__module__}.{type(value).__qualname__}:{value!r}".encode())
