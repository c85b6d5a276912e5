"""Shared helpers of the front-end tests, exposed through the `fe` fixture.

(conftest modules cannot be imported by name, as several test folders have one.)

Kernels are defined inside the tests; NumPy arrays stand in for device arrays, and every
compilation stops after the `tile` stage, so this tier never needs a GPU.
"""

from __future__ import annotations

import inspect
import re
import sys
import traceback
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct
from tilelang.errors import Loc, TileError

PACKAGE_DIR = str(Path(ct.__file__).parent) + "/"
FRONTEND_DIR = PACKAGE_DIR + "frontend"


def array(dtype: Any = np.float32, shape: tuple[int, ...] = (64,)) -> np.ndarray:
    """A host array standing in for a device array of `dtype` ('bfloat16' allowed)."""
    np_dtype = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)
    return np.zeros(shape, np_dtype)


def compile_tile(kernel: Any, *args: Any) -> ct.CompiledKernel:
    return ct.compile(kernel, args, stop_after="tile")


def tile_ir(kernel: Any, *args: Any) -> str:
    """The generic-form `tile` IR of `kernel` for `args` (no locations)."""
    return compile_tile(kernel, *args).asm["tile"]


Span = str | tuple[str, str]  # source text, or (a unique line's text, the text within it)


def signatures(ir: str, op: str) -> list[str]:
    """The type signatures (`(i32, i32) -> i32`) of every `op` ("tile.add") in generic-form IR;
    a cheap check for table-driven tests, where one filecheck run per case would be slow."""
    return re.findall(rf'"{re.escape(op)}"\(.*?\).*? : (\(.*\) -> .*)$', ir, re.M)


def span(fn: Any, at: Span) -> tuple[int, int, str]:
    """(line, 0-based col, text) of `at` in `fn`'s source: a text found on exactly one line
    (or that is a whole line), or (context, text) for `text` within the unique `context`."""
    context, text = at if isinstance(at, tuple) else (at, at)
    lines, start = inspect.getsourcelines(fn)
    hits = [i for i, line in enumerate(lines) if context in line]
    if len(hits) > 1:
        hits = [i for i in hits if lines[i].strip() == context]
    assert len(hits) == 1, f"{context!r} is on {len(hits)} lines of {fn.__name__}"
    line = lines[hits[0]]
    return start + hits[0], line.index(context) + context.index(text), text


def check_loc(loc: Loc | None, fn: Any, at: Span) -> None:
    """`loc` starts where `at` does in `fn`'s source (and ends with it on a one-line span).
    Errors' locations name their function; those read back from MLIR ops do not."""
    assert loc is not None, "no source location"
    line, col, at = span(fn, at)
    assert (loc.file, loc.line, loc.col) == (inspect.getsourcefile(fn), line, col), loc
    assert loc.function in (None, fn.__name__), loc
    if loc.end_line == loc.line:
        assert loc.end_col == col + len(at), f"span ends at col {loc.end_col}: {loc}"


def check_rendering(err: TileError) -> None:
    """str(err): the message, then per frame `File ..., line N, col a-b` + the whole source line
    + carets; the kernel's frame first, the innermost call last."""
    text = str(err).splitlines()
    assert text[0] == err.message.splitlines()[0]
    loc, positions = err.loc, []
    while loc is not None:
        where = f'  File "{loc.file}", line {loc.line}, col {loc.col + 1}'
        i = next(i for i, t in enumerate(text) if t.startswith(where) and i not in positions)
        positions.append(i)
        source = Path(loc.file).read_text().splitlines()[loc.line - 1].rstrip()
        assert text[i + 1] == "    " + source
        end = loc.end_col if loc.end_line == loc.line else len(source)
        assert text[i + 2] == "    " + " " * loc.col + "^" * (end - loc.col)
        loc = loc.call_site
    assert positions == sorted(positions, reverse=True), "frames are not outermost first"
    if err.hint:
        assert text[-1] == f"  hint: {err.hint}"


def check_traceback(err: BaseException, caller: str | None = None) -> None:
    """Only the user's frames: no frame of tilelang leaks, not even the public entry point's
    (the traceback ends in `caller`, the function that called it, when given)."""
    frames = traceback.extract_tb(err.__traceback__)
    if sys.version_info >= (3, 11):  # before, the entry point's frame stays (tracebacks.py)
        assert not any(f.filename.startswith(PACKAGE_DIR) for f in frames), frames
        if caller is not None:
            assert frames[-1].name == caller, [f.name for f in frames]
    assert not any(f.filename.startswith(FRONTEND_DIR) for f in frames)
    assert err.__cause__ is None and err.__suppress_context__
    printed = "".join(traceback.format_exception(err))
    assert FRONTEND_DIR not in printed, printed


def expect_error(
    kernel: Any, args: tuple[Any, ...], cls: type[TileError], match: str, at: Span,
    *, helper: Any = None, call_at: Span | None = None, caller: Any = None,
) -> TileError:
    """Compile `kernel`, expecting `cls` whose message contains `match`, located at the source
    text `at` (in `helper` when given, whose call site is `call_at` in `caller` or `kernel`)."""
    with pytest.raises(cls) as info:
        compile_tile(kernel, *args)
    err = info.value
    assert type(err) is cls, f"{type(err).__name__}: {err}"
    assert match in err.message, err.message
    fn = helper or kernel.fn
    check_loc(err.loc, fn, at)
    assert err.loc.function == fn.__name__  # type: ignore[union-attr]
    if call_at is not None:
        check_loc(err.loc.call_site, caller or kernel.fn, call_at)  # type: ignore[union-attr]
    else:
        assert err.loc.call_site is None  # type: ignore[union-attr]
    check_rendering(err)
    check_traceback(err, "compile_tile")
    return err


@ct.kernel
def _healthy(a, b, BLOCK: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(b, (i,), ct.load(a, (i,), (BLOCK,)) * 2.0 + 1)


def check_healthy() -> None:
    """A correct kernel still compiles (no state is left behind by a failed compilation)."""
    ir = tile_ir(_healthy, array(), array(), 16)
    assert '"tile.mul"' in ir and '"tile.store"' in ir, ir


@pytest.fixture
def fe() -> SimpleNamespace:
    return SimpleNamespace(
        array=array, compile=compile_tile, tile_ir=tile_ir, signatures=signatures, span=span,
        check_loc=check_loc, check_rendering=check_rendering, check_traceback=check_traceback,
        expect_error=expect_error, check_healthy=check_healthy,
    )


@pytest.fixture(autouse=True)
def _still_healthy(request: pytest.FixtureRequest):
    """After each error test, a correct kernel still compiles: errors leave the process sound."""
    is_error_test = request.module.__name__.split(".")[-1].startswith("test_errors_")
    fe = request.getfixturevalue("fe") if is_error_test else None
    yield
    if fe is not None:
        fe.check_healthy()
