"""Error catalog: every error a user can see, with the source location it points at."""

from __future__ import annotations

import ast
import difflib
import linecache
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tilelang import pyast


@dataclass(frozen=True, slots=True)
class Loc:
    """A span of the user's source, plus the call site when it sits in an inlined helper."""

    file: str
    line: int
    col: int  # 0-based, like the ast module
    end_line: int | None = None
    end_col: int | None = None
    function: str | None = None
    call_site: Loc | None = None

    def render(self, max_frames: int = 8) -> str:
        """One frame per call, the kernel's first and this one last (as Python's tracebacks
        and cuTile's); a long chain keeps its first and last frames."""
        chain: list[Loc] = []
        loc: Loc | None = self
        while loc is not None:
            chain.append(loc)
            loc = loc.call_site
        chain.reverse()
        if len(chain) > max_frames:
            half = max_frames // 2
            hidden = len(chain) - 2 * half
            frames = [f._render_frame() for f in chain[:half]]
            frames.append(f"  ... {hidden} more call sites ...")
            frames += [f._render_frame() for f in chain[-half:]]
            return "\n".join(frames)
        return "\n".join(f._render_frame() for f in chain)

    def _render_frame(self) -> str:
        where = f'  File "{self.file}", line {self.line}, col {self.col + 1}'
        if self.end_col is not None and self.end_line in (None, self.line):
            where += f"-{self.end_col}"
        function = self.function or enclosing_function(self.file, self.line)
        if function:
            where += f", in {function}"
        text = linecache.getline(self.file, self.line).rstrip("\n")
        if not text:
            return where
        text = text.rstrip()
        return f"{where}:\n    {text}\n    {_carets(text, self.col, self._end_col(text))}"

    def _end_col(self, text: str) -> int:
        if self.end_col is not None and self.end_line in (None, self.line):
            return max(self.end_col, self.col + 1)
        return len(text.rstrip())


def enclosing_function(file: str, line: int) -> str | None:
    """The name of the innermost `def` around `line` of `file` (the kernel's or a helper's):
    locations read back from MLIR ops (errors of later stages, of the interpreter) carry no
    function name."""
    lines = linecache.getlines(file)
    if not lines:
        return None
    text = "".join(lines)
    spans = _FUNCTIONS.get(file)
    if spans is None or spans[0] != text:
        try:
            tree = pyast.parse(text)
        except (SyntaxError, ValueError):
            return None
        spans = (text, [(n.lineno, n.end_lineno or n.lineno, n.name) for n in ast.walk(tree)
                        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)])
        _FUNCTIONS[file] = spans
    around = [(first, name) for first, last, name in spans[1] if first <= line <= last]
    return max(around)[1] if around else None


_FUNCTIONS: dict[str, tuple[str, list[tuple[int, int, str]]]] = {}


def _carets(text: str, col: int, end_col: int) -> str:
    """Carets under text[col:end_col], the line shown whole (its indentation too, as cuTile)."""
    return " " * _width(text[:col]) + "^" * max(1, _width(text[col:end_col]))


def _width(s: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


class TileError(Exception):
    """Base class of every error tilelang raises about the user's program or its arguments."""

    def __init__(self, message: str, loc: Loc | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.loc = loc
        self.hint = hint

    def __str__(self) -> str:
        """The message, then the source frames (each ending its line, as cuTile's), the hint."""
        text = self.message + "\n"
        if self.loc is not None:
            text += self.loc.render() + "\n"
        if self.hint:
            text += f"  hint: {self.hint}"
        return text.rstrip("\n") if self.loc is None else text


def did_you_mean(name: str, candidates: Iterable[str], quote: str = "`") -> str:
    """". Did you mean: `load`?" (to end a message) for the candidate closest to a misspelt
    `name`, as Python suggests for attributes and names; "" when none is close."""
    names = [c for c in candidates if isinstance(c, str) and c != name and
             not (c.startswith("_") and not name.startswith("_"))]
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    return f". Did you mean: {quote}{close[0]}{quote}?" if close else ""


class TileSyntaxError(TileError):
    """Python syntax that has no meaning in a kernel (e.g. `del`, starred assignment)."""


class TileUnsupportedFeatureError(TileError):
    """Valid kernel code that this version does not support (yet)."""


class TileTypeError(TileError):
    """A value of the wrong kind or dtype: a tile where a constant is needed, bad promotion, ..."""


class TileValueError(TileError):
    """A value of the right type but a wrong value: bad axis, constant out of range, ..."""


class TileNameError(TileError):
    """A name used in a kernel is not defined, or is defined in only some branches."""


class UnsupportedCallError(TileTypeError):
    """A call of something that has no meaning in device code: a Python builtin such as
    `eval`, or a class that is not a dataclass (cuTile's class, a `TileTypeError` here too)."""


TypeCheckingError = TileTypeError  # cuTile's name of the same class


class TileUndefinedVariableError(TileNameError, TileTypeError):
    """A name read after run-time control flow that assigns it on only some paths (a
    `TileTypeError` too, as cuTile reports it)."""


class TileStaticEvalError(TileError):
    """`static_eval` / `static_assert` could not evaluate their expression at compile time."""


class TileStaticAssertionError(TileError):
    """A `static_assert` condition is false."""


class TileRecursionError(TileError):
    """Helper functions call each other too deeply (every helper is inlined)."""


class TileArgumentError(TileError, TypeError):
    """Bad arguments to a launch or compile: wrong count, CPU tensor for a GPU launch, ...

    A `TypeError` too, as cuTile's launch raises for bad arguments."""


class TileArgumentValueError(TileArgumentError, ValueError):
    """An argument of the right kind with a value its annotation rules out (an axis out of
    range, arrays of one list that differ in a dimension compiled in); also a `ValueError`."""


class TileArgumentOverflowError(TileArgumentError, OverflowError):
    """An array whose extent or stride does not fit the int32 indexing it is compiled for (no
    `IndexedWithInt64` annotation); also an `OverflowError`, as cuTile raises."""


class TileOptionError(TileTypeError, ValueError):
    """A kernel option (`@kernel(...)`, `replace_hints`) that is not one of its allowed values
    (`num_warps=3`, `occupancy=0`, a bad `ByTarget` entry); also a `ValueError`, as cuTile
    raises for its hints."""


class TileInterpreterError(TileError):
    """A failure while running a kernel on the CPU interpreter."""


class TileLaunchError(TileError):
    """The driver refused a launch (grid too large, out of resources, ...)."""


class TileInternalError(TileError):
    """A compiler bug; the message says where the IR dump is and how to reproduce it."""


class TileCompilerExecutionError(TileInternalError):
    """A backend step (MLIR pipeline, PTX assembly) failed on IR the front end accepted.

    Also built as cuTile builds it: `(return_code, stderr, compiler_flags, compiler_version)`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args and type(args[0]) is int:  # cuTile's form
            stderr = args[1] if len(args) > 1 else ""
            super().__init__(f"Return code {args[0]}\n{stderr}")
        else:
            super().__init__(*args, **kwargs)


class TileCompilerTimeoutError(TileInternalError):
    """Compiling took longer than allowed (cuTile's class; built as cuTile builds it)."""

    def __init__(self, message: str, compiler_flags: str = "",
                 compiler_version: str | None = None) -> None:
        super().__init__(message)
        self.compiler_flags = compiler_flags
        self.compiler_version = compiler_version


class TileLaunchTimeoutError(TileLaunchError):
    """A kernel run took longer than an autotuning search allows (`single_run_timeout_sec`)."""


__all__ = [
    "Loc",
    "TileArgumentError",
    "TileArgumentOverflowError",
    "TileArgumentValueError",
    "TileCompilerExecutionError",
    "TileCompilerTimeoutError",
    "TileError",
    "TileInternalError",
    "TileInterpreterError",
    "TileLaunchError",
    "TileLaunchTimeoutError",
    "TileNameError",
    "TileOptionError",
    "TileRecursionError",
    "TileSyntaxError",
    "TileTypeError",
    "TileUndefinedVariableError",
    "TileUnsupportedFeatureError",
    "TileValueError",
    "TypeCheckingError",
    "UnsupportedCallError",
]
