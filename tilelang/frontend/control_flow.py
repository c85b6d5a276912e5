"""Front end: run-time `if` as scf.if, merging what each branch assigns."""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from typing import Any

import mlir.ir as ir
from mlir.dialects import scf

from tilelang.errors import TileTypeError, TileValueError
from tilelang.frontend import build
from tilelang.frontend.carried import (
    Skeleton,
    describe_value,
    exact,
    fitting_leaves,
    join_branches,
    leaves,
    mlir_types,
    path_error,
    rebuild,
    same_constant,
)
from tilelang.frontend.emitter import Emitter
from tilelang.frontend.paths import FLAGS, assigned_names, assignment_line, may_have_exited
from tilelang.frontend.semantics import describe
from tilelang.frontend.values import TileValue, Undefined

MISSING = Undefined("is not defined")


def condition(value: object, what: str) -> TileValue:
    if not isinstance(value, TileValue) or value.shape:
        raise TileTypeError(
            f"the condition of {what} must be a scalar, got {describe(value)}",
            hint="reduce the tile first, or use tilelang.where for element-wise choice",
        )
    return build.bool_of(value)


@dataclass
class _Merge:
    """A name whose value differs between the branches: carried as results of the scf.if."""

    name: str
    skeleton: Skeleton
    partial: Undefined | None  # set when the name cannot be read after the `if`


def emit_if(em: Emitter, node: ast.If, cond: TileValue, enter: dict | None = None,
            enter_else: dict | None = None) -> None:
    """Emit a run-time `if`; `enter` and `enter_else` override names (what is known about the
    flags) at the start of the `then` and `else` branches."""
    em.not_in_combiner("if")
    before = em.scope
    placeholder = scf.IfOp(cond.value, [], has_else=True)
    then_scope = _emit_branch(em, node.body, {**before, **(enter or {})}, placeholder.then_block)
    else_scope = _emit_branch(em, node.orelse, {**before, **(enter_else or {})},
                              placeholder.else_block)
    em.frame.scope = merged = dict(before)
    merges = []
    for name in assigned_names(node.body + node.orelse):
        unset = False if name in FLAGS else MISSING  # a flag not set yet is clear
        t, e = then_scope.get(name, unset), else_scope.get(name, unset)
        if t is e or same_constant(t, e):
            if t is not MISSING:
                merged[name] = t
            continue
        merge = _plan(name, t, e, then_scope, else_scope, node)
        if isinstance(merge, _Merge):
            merges.append(merge)
        else:
            merged[name] = merge
    types = [t for m in merges for t in mlir_types(m.skeleton)]
    real = scf.IfOp(cond.value, types, has_else=True)
    for scope, src, dst in ((then_scope, placeholder.then_block, real.then_block),
                            (else_scope, placeholder.else_block, real.else_block)):
        for op in list(src.operations):
            dst.append(op)
        with ir.InsertionPoint(dst):
            scf.YieldOp([v for m in merges for v in _leaves(m, scope.get(m.name, MISSING))])
    placeholder.operation.erase()
    results = iter(real.results)
    for m in merges:
        value = rebuild(m.skeleton, results)
        merged[m.name] = value if m.partial is None else replace(m.partial, value=value)


def _plan(name: str, t: Any, e: Any, then_scope: dict, else_scope: dict,
          node: ast.If) -> object:
    """How `name` leaves the `if`: a _Merge, or the value (maybe Undefined) it has after."""
    line = node.lineno
    t_defined, e_defined = not isinstance(t, Undefined), not isinstance(e, Undefined)
    if t_defined and e_defined:
        try:
            return _Merge(name, join_branches(name, t, e), None)
        except (TileTypeError, TileValueError) as error:
            # An error if read afterwards; the branch that left (if one did) keeps its value,
            # which may leave a loop by `break` or be returned.
            message = error.message if isinstance(error, TileValueError) else \
                _conflict_message(name, t, e, node)
            conflict = Undefined(f"{message} (at the `if` on line {line})", error=TileTypeError)
            kept = _left_only(t, e, then_scope, else_scope)
            return conflict if kept is None else _Merge(name, exact(kept), conflict)
    if not t_defined and not e_defined:
        carried = [u.value for u in (t, e) if u.value is not None]
        undefined = replace(t if t is not MISSING else e, value=None)
        return _carry(name, carried, undefined)
    value, scope, other = (t, then_scope, e) if t_defined else (e, else_scope, t)
    undefined = Undefined(f"is only assigned on some paths through the `if` at line {line}")
    if other.value is None and not may_have_exited(scope):
        return undefined  # only the paths that stay have it: nobody can read it
    return _carry(name, [value] + ([other.value] if other.value is not None else []), undefined)


def _conflict_message(name: str, t: object, e: object, node: ast.If) -> str:
    """cuTile's message: the `else` value first, each with the line that assigns it (the `if`'s
    own line for a value from before it)."""
    lines = [assignment_line(body, name) or node.lineno for body in (node.orelse, node.body)]
    return path_error(name, f"{describe_value(e)} (line {lines[0]})",
                      f"{describe_value(t)} (line {lines[1]})").message


def _carry(name: str, values: list[Any], undefined: Undefined) -> object:
    """Carry the values a name has on the paths that define it; reading it stays an error."""
    if not values:
        return undefined
    try:
        skeleton = exact(values[0]) if len(values) == 1 else join_branches(name, *values)
    except (TileTypeError, TileValueError):
        return undefined
    return _Merge(name, skeleton, undefined)


def _leaves(merge: _Merge, value: object) -> list[ir.Value]:
    """The branch's leaves of a merged name (placeholders where a partial one is undefined)."""
    if merge.partial is not None:
        return fitting_leaves(merge.name, merge.skeleton, value)
    return leaves(merge.skeleton, value)


def _left_only(t: object, e: object, then_scope: dict, else_scope: dict) -> object:
    """The value of the one branch that may have left its block, if only one did."""
    left = [v for v, s in ((t, then_scope), (e, else_scope)) if may_have_exited(s)]
    return left[0] if len(left) == 1 else None


def _emit_branch(em: Emitter, body: list[ast.stmt], start: dict, block: ir.Block) -> dict:
    em.frame.scope = dict(start)
    with ir.InsertionPoint(block), dynamic(em):
        em.block(body)
    return em.frame.scope


class dynamic:
    """Marks the emission of a run-time region (a `return` there is carried out of it)."""

    def __init__(self, em: Emitter):
        self.em = em

    def __enter__(self) -> None:
        self.em.frame.dynamic_depth += 1

    def __exit__(self, *exc: object) -> None:
        self.em.frame.dynamic_depth -= 1


__all__ = ["condition", "dynamic", "emit_if"]
