"""Front end: run-time `if`, `for` and `while` as scf ops with carried variables."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

import mlir.ir as ir
from mlir.dialects import scf

from tilelang.dialect import tensor_type
from tilelang.errors import TileTypeError, TileUnsupportedFeatureError, TileValueError
from tilelang.frontend import build, operators
from tilelang.frontend.carried import (
    CarriedType,
    assigned_names,
    can_carry,
    coerce,
    initial_type,
    join,
)
from tilelang.frontend.emitter import Emitter
from tilelang.frontend.semantics import describe
from tilelang.frontend.values import TileValue, Undefined
from tilelang.language import dtypes as dt

MAX_TYPE_ROUNDS = 4


def condition(value: Any, what: str) -> TileValue:
    if not isinstance(value, TileValue) or value.shape:
        raise TileTypeError(
            f"the condition of {what} must be a scalar, got {describe(value)}",
            hint="reduce the tile first, or use tilelang.where for element-wise choice",
        )
    return build.bool_of(value)


# ----- if --------------------------------------------------------------------------------------


def emit_if(em: Emitter, node: ast.If, cond: TileValue) -> None:
    em.not_in_combiner("if")
    before = em.scope
    placeholder = scf.IfOp(cond.value, [], has_else=True)
    then_scope = _emit_branch(em, node.body, before, placeholder.then_block)
    else_scope = _emit_branch(em, node.orelse, before, placeholder.else_block)
    em.frame.scope = merged = dict(before)
    names, types = [], []
    for name in assigned_names(node.body + node.orelse):
        t, e = then_scope.get(name), else_scope.get(name)
        if t is e or _same_constant(t, e):
            if t is not None:
                merged[name] = t
        elif t is None or e is None or isinstance(t, Undefined) or isinstance(e, Undefined):
            merged[name] = Undefined(f"is only assigned on some paths through the `if` at line "
                                     f"{node.lineno}")
        else:
            names.append(name)
            types.append(_join_branches(name, t, e))
    real = scf.IfOp(cond.value, [tensor_type(t.shape, t.dtype) for t in types], has_else=True)
    for scope, src, dst in ((then_scope, placeholder.then_block, real.then_block),
                            (else_scope, placeholder.else_block, real.else_block)):
        for op in list(src.operations):
            dst.append(op)
        with ir.InsertionPoint(dst):
            scf.YieldOp([coerce(scope[n], t).value for n, t in zip(names, types, strict=True)])
    placeholder.operation.erase()
    for i, (name, t) in enumerate(zip(names, types, strict=True)):
        merged[name] = TileValue(real.results[i], t.dtype, t.shape)


def _join_branches(name: str, then_value: Any, else_value: Any) -> CarriedType:
    """The type both branches' values fit in; the branches are peers, so try both orders."""
    for value in (then_value, else_value):
        if not can_carry(value):  # an array, a tuple, a function: chosen at run time
            raise TileTypeError(
                f"`{name}` is {describe(value)} in one branch of a run-time `if` and something "
                "else in the other; only tiles and numbers can differ between the branches",
                hint="decide it with a compile-time condition, or assign it before the `if`",
            )
    try:
        return join(name, initial_type(then_value), else_value)
    except (TileTypeError, TileValueError):
        return join(name, initial_type(else_value), then_value)


def _same_constant(a: Any, b: Any) -> bool:
    return type(a) is type(b) and not isinstance(a, TileValue) and _eq(a, b)


def _eq(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return False


def _emit_branch(em: Emitter, body: list[ast.stmt], before: dict, block: ir.Block) -> dict:
    em.frame.scope = dict(before)
    with ir.InsertionPoint(block), _dynamic(em):
        em.block(body)
    return em.frame.scope


class _dynamic:
    """Marks the emission of a run-time region (where `return` is not supported)."""

    def __init__(self, em: Emitter, loop: bool = False):
        self.em, self.loop = em, loop

    def __enter__(self) -> None:
        self.em.frame.dynamic_depth += 1
        self.em.frame.loop_depth += self.loop

    def __exit__(self, *exc: object) -> None:
        self.em.frame.dynamic_depth -= 1
        self.em.frame.loop_depth -= self.loop


# ----- loops -----------------------------------------------------------------------------------


def carried_names(em: Emitter, body: list[ast.stmt], exclude: set[str]) -> list[str]:
    """Variables defined before a loop and assigned in its body."""
    names = []
    for name in assigned_names(body):
        value = em.scope.get(name)
        if name in exclude or value is None or isinstance(value, Undefined):
            continue
        names.append(name)
    return names


def emit_loop(
    em: Emitter, body: list[ast.stmt], names: list[str],
    build_loop: Callable[[list[TileValue], list[CarriedType]], tuple[ir.Block, ir.OpView]],
    bind_extra: Callable[[dict], None], finish: Callable[[list[ir.Value]], None],
) -> ir.OpView:
    """Emit a loop, re-emitting its body until the carried variables' types are stable."""
    before = em.scope
    static = [n for n in names if not can_carry(before[n])]
    names = [n for n in names if can_carry(before[n])]
    types = [initial_type(before[n]) for n in names]
    for _ in range(MAX_TYPE_ROUNDS):
        inits = [coerce(before[n], t) for n, t in zip(names, types, strict=True)]
        block, loop = build_loop(inits, types)
        em.frame.scope = scope = dict(before)
        args = list(block.arguments)[-len(names):] if names else []
        for name, t, arg in zip(names, types, args, strict=True):
            scope[name] = TileValue(arg, t.dtype, t.shape)
        with ir.InsertionPoint(block), _dynamic(em, loop=True):
            bind_extra(scope)
            em.block(body)
            scope = em.frame.scope  # a nested `if` or loop replaces the scope dict
            new_types = [join(n, t, scope[n]) for n, t in zip(names, types, strict=True)]
            if new_types == types:
                _check_static(static, before, scope)
                finish([coerce(scope[n], t).value for n, t in zip(names, types, strict=True)])
                break
        loop.operation.erase()
        types = new_types
    else:
        raise TileTypeError("the types of loop-carried variables do not settle")
    em.frame.scope = after = dict(before)
    for name in assigned_names(body):
        if name not in names and name not in static:
            after[name] = Undefined("is assigned inside a loop body and not defined before it")
    for i, (name, t) in enumerate(zip(names, types, strict=True)):
        after[name] = TileValue(loop.results[i], t.dtype, t.shape)
    return loop


def _check_static(static: list[str], before: dict, scope: dict) -> None:
    for name in static:
        if scope[name] is not before[name] and not _same_constant(scope[name], before[name]):
            raise TileTypeError(
                f"`{name}` is {describe(before[name])} and changes inside the loop; only tiles "
                "and numbers can change inside a loop"
            )


def range_bounds(args: tuple[Any, ...]) -> tuple[Any, Any, Any]:
    if not 1 <= len(args) <= 3:
        raise TileTypeError(f"range() takes 1 to 3 arguments, got {len(args)}")
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
    for v in (start, stop, step):
        ok = (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, TileValue) and \
            not v.shape and v.dtype.is_integer and v.dtype.is_signed)
        if not ok:
            raise TileTypeError(
                f"range() arguments must be signed integer scalars, got {describe(v)}"
            )
    if step == 0:
        raise TileValueError("range() step must not be zero")
    return start, stop, step


def emit_for(em: Emitter, node: ast.For, bounds: tuple[Any, Any, Any]) -> None:
    """Emit `for target in range(...)` over `bounds` (start, stop, step from range_bounds)."""
    em.not_in_combiner("loop")
    start, stop, step = bounds
    if not isinstance(node.target, ast.Name):
        raise TileUnsupportedFeatureError("the target of a `for` loop must be a single name")
    wide = any(isinstance(v, TileValue) and v.dtype is dt.int64 for v in (start, stop, step))
    iv_dtype = dt.int64 if wide else dt.int32
    remap = isinstance(step, int) and step < 0  # run k = 0, 1, ... and use start + k * step
    if remap:
        count = operators.binary("floordiv", operators.binary("sub", start, stop), -step)
        count = operators.binary("add", count, 1)  # ceil((start - stop) / -step) ...
        exact = operators.binary("mod", operators.binary("sub", start, stop), -step)
        count = operators.where(operators.compare("equal", exact, 0),
                                operators.binary("sub", count, 1), count)
        bounds = (0, operators.binary("maximum", count, 0), 1)  # ... and never negative
    else:
        bounds = (start, stop, step)
    lb, ub, st = (build.to_tile(v, iv_dtype).value for v in bounds)
    target = node.target.id
    loops: list[Any] = []

    def build_loop(inits, types):
        loops[:] = [scf.ForOp(lb, ub, st, [v.value for v in inits])]
        return loops[0].body, loops[0]

    def bind_iv(scope):
        iv = TileValue(loops[0].induction_variable, iv_dtype, ())
        if remap:
            iv = operators.binary("add", start, operators.binary("mul", iv, step))
        scope[target] = iv

    names = carried_names(em, node.body, {target})
    emit_loop(em, node.body, names, build_loop, bind_iv, lambda vs: scf.YieldOp(vs))
    em.scope[target] = Undefined("is a loop variable; its value after the loop is not available")


def emit_while(em: Emitter, node: ast.While) -> None:
    em.not_in_combiner("loop")
    names = carried_names(em, node.body, set())
    state: dict[str, Any] = {}

    def build_loop(inits, types):
        mlir_types = [tensor_type(t.shape, t.dtype) for t in types]
        loop = scf.WhileOp(mlir_types, [v.value for v in inits])
        before_block = loop.before.blocks.append(*mlir_types)
        em.frame.scope = scope = dict(state["outer"])
        for name, t, arg in zip(names, types, before_block.arguments, strict=True):
            scope[name] = TileValue(arg, t.dtype, t.shape)
        with ir.InsertionPoint(before_block):
            with em.at(node.test):
                cond = condition(em.expr(node.test), "a `while` loop")
            scf.ConditionOp(cond.value, list(before_block.arguments))
        return loop.after.blocks.append(*mlir_types), loop

    state["outer"] = em.scope
    emit_loop(em, node.body, names, build_loop, lambda scope: None, lambda vs: scf.YieldOp(vs))
