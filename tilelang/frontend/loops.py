"""Front end: run-time `for` and `while` loops as scf.for / scf.while with carried variables.

Variables defined before a loop and assigned in it are carried from one iteration to the next.
A loop that can end early (`break`, or `return` from a `while`) becomes an scf.while that also
carries its flags and runs while they are clear; a `for` loop then carries its counter too.
After the loop a name holds what it holds on every way out of the loop: the normal exit and
each `break` (a name the same constant on all of them stays that constant). The types carried
are found by emitting the body again until they settle.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mlir.ir as ir
from mlir.dialects import scf

from tilelang.errors import TileTypeError, TileUnsupportedFeatureError, TileValueError
from tilelang.frontend import build, operators
from tilelang.frontend.carried import (
    CarriedType,
    Skeleton,
    exact,
    fitting_leaves,
    initial,
    is_static,
    join,
    mlir_types,
    pin_constants,
    rebuild,
    same_constant,
)
from tilelang.frontend.control_flow import condition, dynamic
from tilelang.frontend.emitter import Emitter
from tilelang.frontend.paths import (
    BREAK,
    CONTINUE,
    RESULT,
    RETURN,
    LoopExits,
    assigned_names,
    exit_words,
)
from tilelang.frontend.semantics import describe
from tilelang.frontend.values import TileValue, Undefined
from tilelang.language import dtypes as dt

MAX_TYPE_ROUNDS = 6
COUNTER = " counter"  # the iteration counter a `for` loop carries in its scf.while form


@dataclass
class Header:
    """What differs between loop kinds: how the loop starts, tests and steps."""

    kind: str  # "for" or "while"
    target: str | None = None  # the `for` loop variable
    bounds: tuple[ir.Value, ir.Value, ir.Value] | None = None  # `for`: lb, ub, step (i32/i64)
    counter_dtype: Any = None
    bind: Callable[[TileValue], Any] | None = None  # `for`: counter -> the loop variable's value
    test: ast.expr | None = None  # `while`: the condition
    runtime_step: bool = False  # `for`: the step is known only at run time (of either sign)

    def range(self) -> tuple[ir.Value, ir.Value, ir.Value]:
        """A `for` loop's bounds: lb, ub, step."""
        assert self.bounds is not None, "only a `for` loop has bounds"
        return self.bounds

    def bind_target(self, scope: dict[str, Any], counter: TileValue | None) -> None:
        """Set a `for` loop's variable in `scope` from the loop's counter."""
        assert self.target is not None and self.bind is not None and counter is not None
        scope[self.target] = self.bind(counter)

    def condition(self) -> ast.expr:
        """A `while` loop's test."""
        assert self.test is not None, "only a `while` loop has a test"
        return self.test


@dataclass
class _Round:
    """One emission of the loop: the op, the scope at the end of the body and its exits."""

    loop: ir.OpView
    end: dict[str, Any]
    exits: LoopExits
    returns: list[Any]
    normal_exit: bool
    block: ir.Block  # the body, to be ended by its scf.yield
    next_counter: list[ir.Value]  # what a `for` loop in scf.while form yields first


def emit_loop(em: Emitter, node: ast.For | ast.While, header: Header) -> None:
    em.not_in_combiner("loop")
    before = dict(em.scope)
    words = exit_words(node.body)
    early = BREAK in words or RETURN in words
    body_names = [n for n in assigned_names(node.body) if n != header.target]
    slots = _initial_slots(before, body_names, early)
    for round_number in range(MAX_TYPE_ROUNDS):
        state = _emit_round(em, node, header, before, slots, early)
        new_slots = _settle(state, before, slots, first=round_number == 0)
        if new_slots == slots:
            with ir.InsertionPoint(state.block):
                scf.YieldOp(state.next_counter + [
                    v for name, skel in slots
                    for v in fitting_leaves(name, skel, _end_value(state, name))])
            em.frame.returns.extend(state.returns)
            break
        state.loop.operation.erase()
        slots = new_slots
    else:
        raise TileTypeError("the types of loop-carried variables do not settle")
    em.frame.scope = _after(state, before, body_names, slots, header, node.lineno)


# ----- carried slots ---------------------------------------------------------------------------


def _initial_slots(before: dict, names: list[str], early: bool) -> list[tuple[str, Skeleton]]:
    """Names defined before the loop and assigned in it, and the flags that end it early."""
    slots: list[tuple[str, Skeleton]] = []
    for name in names:
        if name in (BREAK, RETURN) and early:
            slots.append((name, CarriedType(dt.bool_, ())))  # set at run time, in general
        elif name not in (BREAK, CONTINUE, RETURN, RESULT):
            value = before.get(name)
            if value is not None and not isinstance(value, Undefined):
                slots.append((name, initial(value)))
    return slots


def _settle(state: _Round, before: dict, slots: list, first: bool) -> list:
    """The slots the next round needs: every slot widened to hold its value at the end of the
    body, and the names that leave the loop by `break` (or the value returned) only. After the
    first round, loose constants the body leaves unchanged stop being carried."""
    out = []
    for name, skel in slots:
        value = _end_value(state, name)
        if isinstance(value, Undefined):
            if value.value is None:
                if value.error is not None and name != RESULT:
                    raise value.error(value.reason)
                out.append((name, skel))  # undefined on the paths that go round again
                continue
            value = value.value
        widened = join(name, skel, value)
        if first and not name.startswith(" "):
            widened = pin_constants(widened, before.get(name), value)
        out.append((name, widened))
    carried = {name for name, _ in out}
    return out + _exit_only_slots(state, before, carried)


def _end_value(state: _Round, name: str) -> object:
    return state.end.get(name, Undefined("is not defined"))


def _exit_only_slots(state: _Round, before: dict, carried: set[str]) -> list:
    """Names not defined before the loop that every way out of it defines (only `break`s, in
    a loop that cannot end by its condition), and the value of its `return`s."""
    slots = []
    if not state.normal_exit and state.exits.breaks:
        snaps = state.exits.breaks
        for name in snaps[0]:
            if name in carried or name.startswith(" ") or (name in before and \
                    not isinstance(before[name], Undefined)):
                continue
            values = [snap.get(name) for snap in snaps]
            if any(v is None or isinstance(v, Undefined) for v in values):
                continue
            if is_static(values[0]) and all(same_constant(values[0], v) for v in values):
                continue
            skel = _join_all(name, values)
            if skel is not None:
                slots.append((name, skel))
    returns = state.returns
    if returns and RESULT not in carried and not (
            is_static(returns[0]) and all(same_constant(returns[0], r) for r in returns)):
        skel = _join_all("return value", returns)
        if skel is not None:
            slots.append((RESULT, skel))
    return slots


def _join_all(name: str, values: list[Any]) -> Skeleton | None:
    try:
        skel = exact(values[0])
        for v in values[1:]:
            skel = join(name, skel, v)
        return skel
    except (TileTypeError, TileValueError):
        return None  # an error when read after the loop (or when returned)


# ----- one emission of the loop ----------------------------------------------------------------


def _emit_round(em: Emitter, node: ast.For | ast.While, header: Header, before: dict,
                slots: list, early: bool) -> _Round:
    frame = em.frame
    first_return = len(frame.returns)
    exits = LoopExits(header.kind)
    inits = [v for name, skel in slots for v in fitting_leaves(name, skel, before.get(name))]
    types = [t for _, skel in slots for t in mlir_types(skel)]
    counter: TileValue | None
    if header.kind == "for" and not early:
        loop = scf.ForOp(*header.range(), inits)
        block, args = loop.body, list(loop.body.arguments)[1:]
        counter = TileValue(loop.induction_variable, header.counter_dtype, ())
        normal_exit = True
    else:
        counted = header.kind == "for"
        if counted:  # scf.while carries the counter first
            lb = header.range()[0]
            inits, types = [lb, *inits], [lb.type, *types]
        loop = scf.WhileOp(types, inits)
        normal_exit = _emit_condition(em, loop, header, before, slots, types)
        block = loop.after.blocks.append(*types)
        args = list(block.arguments)
        counter = TileValue(args.pop(0), header.counter_dtype, ()) if counted else None
    frame.scope = scope = _bind_slots(before, slots, args)
    scope.update({BREAK: False, CONTINUE: False, RETURN: False})
    frame.loops.append(exits)
    with ir.InsertionPoint(block), dynamic(em):
        if header.kind == "for":
            header.bind_target(scope, counter)
        em.block(node.body)
        next_counter = []
        if header.kind == "for" and early:
            assert counter is not None, "scf.while carries a `for` loop's counter"
            step = TileValue(header.range()[2], header.counter_dtype, ())
            next_counter = [build.elementwise("add", [counter, step]).value]
    frame.loops.pop()
    returns = frame.returns[first_return:]
    del frame.returns[first_return:]  # kept only from the round that settles
    return _Round(loop, frame.scope, exits, returns, normal_exit, block, next_counter)


def _bind_slots(before: dict, slots: list, args: list[ir.Value]) -> dict:
    scope = dict(before)
    it = iter(args)
    for name, skel in slots:
        value = rebuild(skel, it)
        scope[name] = value if name != RESULT else Undefined("is the value returned", value)
    return scope


def _emit_condition(em: Emitter, loop: scf.WhileOp, header: Header, before: dict, slots: list,
                    types: list[ir.Type]) -> bool:
    """The `before` region: go round while no flag is set and the loop's own test holds.
    Returns whether the loop can end by its test."""
    block = loop.before.blocks.append(*types)
    args = list(block.arguments)
    outer = em.frame.scope
    em.frame.scope = scope = _bind_slots(before, slots, args[1:] if header.kind == "for"
                                         else args)
    try:
        with ir.InsertionPoint(block):
            left = None
            for flag in (scope.get(BREAK), scope.get(RETURN)):
                if isinstance(flag, TileValue):
                    left = flag if left is None else build.elementwise("or", [left, flag])
            stay = None if left is None else operators.logical_not(left)
            if header.kind == "for":
                test, normal_exit = _counter_test(header, TileValue(args[0],
                                                                    header.counter_dtype, ())), True
                if stay is not None:
                    test = build.elementwise("and", [stay, test])
            else:
                test, normal_exit = _while_test(em, header, stay)
            scf.ConditionOp(test.value, args)
    finally:
        em.frame.scope = outer
    return normal_exit


def _counter_test(header: Header, counter: TileValue) -> TileValue:
    """Whether a `for` loop in scf.while form goes round again: counter < stop, or, with a
    run-time step, counter > stop for a negative one (as Python's range; a zero step never)."""
    ub = TileValue(header.range()[1], header.counter_dtype, ())
    below = operators.compare("less", counter, ub)
    if not header.runtime_step:
        return below
    step = TileValue(header.range()[2], header.counter_dtype, ())
    up = build.elementwise("and", [operators.compare("greater", step, 0), below])
    down = build.elementwise("and", [operators.compare("less", step, 0),
                                     operators.compare("greater", counter, ub)])
    return build.elementwise("or", [up, down])


def _while_test(em: Emitter, header: Header, stay: TileValue | None) -> tuple[TileValue, bool]:
    """The test of a `while` loop, evaluated only while no flag is set (it may read memory);
    and whether it can be false (it is not when it is a true constant)."""
    if stay is None:
        value = _user_test(em, header)
    else:
        branch = scf.IfOp(stay.value, [ir.IntegerType.get_signless(1)], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            value = _user_test(em, header)
        if isinstance(value, TileValue):
            with ir.InsertionPoint(branch.then_block):
                scf.YieldOp([value.value])
            with ir.InsertionPoint(branch.else_block):
                scf.YieldOp([build.constant(False, dt.bool_).value])
            return TileValue(branch.results[0], dt.bool_, ()), True
        branch.operation.erase()  # a constant test: the flags alone decide
    if isinstance(value, TileValue):
        return value, True
    if not value:
        return build.constant(False, dt.bool_), True
    return (stay if stay is not None else build.constant(True, dt.bool_)), False


def _user_test(em: Emitter, header: Header) -> object:
    test = header.condition()
    with em.at(test):
        value = em.expr(test)
        return condition(value, "a `while` loop") if isinstance(value, TileValue) else value


# ----- after the loop --------------------------------------------------------------------------


def _after(state: _Round, before: dict, body_names: list[str], slots: list, header: Header,
           line: int) -> dict:
    """The scope after the loop: each name as it is on every way out of the loop."""
    results = list(state.loop.results)[len(state.next_counter):]
    it = iter(results)
    carried = {name: rebuild(skel, it) for name, skel in slots}
    after = dict(before)
    breaks = state.exits.breaks
    for name in dict.fromkeys(body_names + [n for n, _ in slots]):
        if name in (BREAK, CONTINUE):
            continue  # this loop's own: clear again after it
        if name == RETURN:
            after[RETURN] = True if not breaks and not state.normal_exit else \
                carried.get(RETURN, before.get(RETURN, False))
        elif name == RESULT:
            after[RESULT] = Undefined("is the value returned", carried.get(RESULT))
        else:
            after[name] = _leaving_value(name, breaks, state.normal_exit, carried, before, line)
    if header.target is not None:
        after[header.target] = Undefined(
            "is a loop variable; its value after the loop is not available")
    return after


def _leaving_value(name: str, breaks: list[dict], normal_exit: bool, carried: dict,
                   before: dict, line: int) -> object:
    """A name's value after the loop, from its values at the `break`s and the normal exit."""
    missing = Undefined("is not defined")
    exits = [snap.get(name, missing) for snap in breaks]
    if normal_exit:
        exits.append(carried[name] if name in carried else before.get(name, missing))
    if not exits:  # the loop never ends but by `return`: nothing after it runs
        return before.get(name, missing)
    if any(isinstance(v, Undefined) for v in exits):
        defined_before = name in before and not isinstance(before[name], Undefined)
        return Undefined("is assigned inside a loop body and not defined before it"
                         if not defined_before else
                         f"is not defined on every way out of the loop at line {line}")
    if is_static(exits[0]) and all(same_constant(exits[0], v) for v in exits):
        return exits[0]
    if name in carried:
        return carried[name]
    try:
        skel = exact(exits[0])
        for v in exits[1:]:
            skel = join(name, skel, v)
    except TileTypeError as error:
        return Undefined(f"{error.message} (leaving the loop at line {line})",
                         error=TileTypeError)
    raise TileUnsupportedFeatureError(f"`{name}` cannot be carried out of the loop")


# ----- for and while ---------------------------------------------------------------------------


def emit_for(em: Emitter, node: ast.For, bounds: tuple[Any, Any, Any]) -> None:
    """Emit `for target in range(...)` over `bounds` (start, stop, step from range_bounds)."""
    start, stop, step = bounds
    if not isinstance(node.target, ast.Name):
        raise TileUnsupportedFeatureError("the target of a `for` loop must be a single name")
    wide = any(isinstance(v, TileValue) and v.dtype is dt.int64 for v in (start, stop, step))
    iv_dtype = dt.int64 if wide else dt.int32
    lb, ub, st = (build.to_tile(v, iv_dtype).value for v in (start, stop, step))
    header = Header("for", node.target.id, (lb, ub, st), iv_dtype, lambda counter: counter,
                    runtime_step=isinstance(step, TileValue))
    emit_loop(em, node, header)


def emit_while(em: Emitter, node: ast.While) -> None:
    emit_loop(em, node, Header("while", test=node.test))


def range_bounds(args: tuple[Any, ...]) -> tuple[Any, Any, Any]:
    if not 1 <= len(args) <= 3:
        raise TileTypeError(f"range() takes 1 to 3 arguments, got {len(args)}")
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
    for v in (start, stop, step):  # signed integer scalars (cuTile's messages)
        if isinstance(v, int) and not isinstance(v, bool):
            continue
        if isinstance(v, TileValue) and not v.shape:
            if v.dtype.is_integer and v.dtype.is_signed:
                continue
            raise TileTypeError(f"Expected a signed integer scalar, but got {v.dtype.name}")
        if isinstance(v, float | bool):
            raise TileTypeError(f"Expected a signed integer scalar, but got {describe(v)}")
        raise TileTypeError(f"Expected a scalar value, but given value has type {describe(v)}")
    if isinstance(step, int) and step <= 0:  # cuTile's rule (a run-time step may be negative)
        raise TileTypeError(f"Step must be positive, got {step}")
    return start, stop, step
