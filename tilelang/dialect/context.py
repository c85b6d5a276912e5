"""Dialect: MLIR contexts with the `tile` dialect loaded exactly once each."""

from __future__ import annotations

import re
import sys
import types
import weakref
from functools import cache
from pathlib import Path

import mlir.ir as ir
from mlir.dialects import irdl

_HERE = Path(__file__).resolve().parent
# A plain checkout keeps the dialect at the top level; an installed wheel carries a copy here.
_CANDIDATES = (_HERE.parent.parent / "dialect" / "tile.irdl.mlir", _HERE / "tile.irdl.mlir")
DIALECT_FILE = next((p for p in _CANDIDATES if p.exists()), _CANDIDATES[0])

# Each time the bindings wrap an op of a dialect, they import `mlir.dialects.<namespace>` for its
# op classes unless that import succeeded before; a failed one is retried every time (thousands
# of failed imports per compile, ~20% of a small kernel's). An empty module stands in for the
# `tile` dialect's: IRDL ops have no Python classes and stay generic OpViews either way.
sys.modules.setdefault("mlir.dialects.tile", types.ModuleType("mlir.dialects.tile"))

# Loading an IRDL dialect twice into one context aborts the process in the MLIR 22 bindings (a
# fatal error in C++, not an exception): remember which contexts have it.
_loaded: weakref.WeakSet[ir.Context] = weakref.WeakSet()


@cache
def dialect_source() -> str:
    return DIALECT_FILE.read_text()


@cache
def op_names() -> tuple[str, ...]:
    """Every op of the dialect, as `tile.<name>`, read from the IRDL file (the source of truth)."""
    return tuple(f"tile.{n}" for n in re.findall(r"irdl\.operation @(\w+)", dialect_source()))


def load_dialect(ctx: ir.Context) -> None:
    """Load the `tile` dialect into `ctx` unless it is there already."""
    if ctx in _loaded:
        return
    with ctx, ir.Location.unknown():
        irdl.load_dialects(ir.Module.parse(dialect_source()))
    _loaded.add(ctx)


def make_context() -> ir.Context:
    """A fresh context with the dialect loaded and error diagnostics turned into exceptions.

    With the MLIR 22 bindings, an error diagnostic emitted by a pass that still succeeds aborts
    the process unless a Python handler takes it; the handler records them so the caller can
    raise.
    """
    ctx = ir.Context()
    # single-threaded: a kernel's module has one function, so MLIR's thread pool parallelizes
    # nothing (the sample attention kernel compiled in 0.85 s against 0.89-0.93 with it, two
    # cores), and freeing a context whose pool ran, in a fork of the process, waits forever
    # for threads the fork did not copy (tune/compile_worker.py)
    ctx.enable_multithreading(False)
    ctx.emit_error_diagnostics = True
    ctx.allow_unregistered_dialects = False
    load_dialect(ctx)
    return ctx
