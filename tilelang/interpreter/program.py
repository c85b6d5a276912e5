"""Interpreter: turn a `tile`-stage function into Python closures over a register file."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import mlir.ir as ir
import numpy as np

from tilelang.dialect import directed, dtype_of, op_table, ops, rounding, semantics
from tilelang.dialect.semantics import np_dtype
from tilelang.dialect.types import is_tile_type
from tilelang.errors import TileError, TileInterpreterError, TileUnsupportedFeatureError
from tilelang.interpreter import memory
from tilelang.interpreter.writes import Write, written_arguments

Env = list[Any]
Step = Callable[[Env], None]
TERMINATORS = ("scf.yield", "scf.condition", "func.return", "gpu.yield")


@dataclass
class Block:
    """A compiled block: its steps, the slots of its arguments and of what it yields."""

    steps: list[Step]
    args: list[int]
    yields: list[int]
    condition: int | None = None  # for the `before` block of scf.while

    def run(self, env: Env) -> None:
        for step in self.steps:
            step(env)


# The first slots of every environment hold the launch's own state, written by `run` for each
# block: a compiled Program is shared by every launch (and thread) of its specialization, so it
# holds nothing of any one launch.
BID_SLOT = 0  # the block being run: (x, y, z), read by tile.bid and tile.assert
GRID_SLOT = 1  # the launch's grid: (x, y, z), read by tile.num_blocks
RESERVED_SLOTS = 2


@dataclass(frozen=True)
class Program:
    """A compiled kernel: run `entry` once per block with the arguments in its arg slots (and
    the block index and grid in BID_SLOT and GRID_SLOT); immutable, shared by launches.
    `writes`: the arguments (by number) the kernel writes to, and the first op that does."""

    entry: Block
    num_slots: int
    writes: dict[int, Write] = field(default_factory=dict)


class _Compiler:
    def __init__(self) -> None:
        self.slots: dict[ir.Value, int] = {}

    def slot(self, value: ir.Value) -> int:
        if value not in self.slots:
            self.slots[value] = RESERVED_SLOTS + len(self.slots)
        return self.slots[value]

    def block(self, block: ir.Block) -> Block:
        compiled = Block([], [self.slot(a) for a in block.arguments], [])
        for op in block.operations:
            op = op.operation
            if op.name in TERMINATORS:
                operands = list(op.operands)
                if op.name == "scf.condition":
                    compiled.condition, operands = self.slot(operands[0]), operands[1:]
                compiled.yields = [self.slot(v) for v in operands]
            else:
                compiled.steps.append(_located(op, self.op(op)))
        return compiled

    def op(self, op: ir.Operation) -> Step:
        rule = RULES.get(op.name)
        if rule is None:
            raise TileUnsupportedFeatureError(f"the interpreter cannot run `{op.name}`")
        return rule(self, op)


def compile_function(func_op: ir.Operation) -> Program:
    compiler = _Compiler()
    entry = compiler.block(func_op.regions[0].blocks[0])
    return Program(entry, RESERVED_SLOTS + len(compiler.slots), written_arguments(func_op))


def _located(op: ir.Operation, step: Step) -> Step:
    """Attach the op's source location to errors raised while it runs."""
    location = op.location

    def run(env: Env) -> None:
        try:
            step(env)
        except TileError as e:
            if e.loc is None:
                from tilelang.dialect.locations import to_loc

                e.loc = to_loc(location)
            raise

    return run


# ----- rules: one per op, each returning a closure ---------------------------------------------

Rule = Callable[[_Compiler, ir.Operation], Step]
RULES: dict[str, Rule] = {}


def rule(*ops: op_table.OpDef | str) -> Callable[[Rule], Rule]:
    """Register a rule for `ops`: `tile` ops by record (`op_table.LOAD`), others by name
    ("scf.for"); RULES stays keyed by the op's name, which the lookup reads."""
    names = op_table.rule_names(ops)

    def register(fn: Rule) -> Rule:
        for name in names:
            RULES[name] = fn
        return fn

    return register


def _io(c: _Compiler, op: ir.Operation) -> tuple[list[int], int]:
    return [c.slot(v) for v in op.operands], c.slot(op.results[0])


def _rounding(op: ir.Operation) -> str | None:
    """The op's `rounding_mode` attribute (a cast's, or a directed rounding of arithmetic)."""
    return ops.str_attr(op, "rounding_mode") if "rounding_mode" in op.attributes else None


def _result_dtype(op: ir.Operation) -> np.dtype:
    return np_dtype(dtype_of(op.results[0].type))


@rule(*op_table.BINARY.values())
def _binary(c: _Compiler, op: ir.Operation) -> Step:
    (a, b), r = _io(c, op)
    fn = directed.binary_meaning(op.name, _rounding(op), semantics.BINARY[op.name])

    def step(env: Env) -> None:
        env[r] = np.asarray(fn(env[a], env[b]))

    return step


@rule(*op_table.UNARY.values())
def _unary(c: _Compiler, op: ir.Operation) -> Step:
    (a,), r = _io(c, op)
    fn = directed.unary_meaning(op.name, _rounding(op), semantics.UNARY[op.name])
    if "flush_to_zero" in op.attributes:  # exp2's: as the GPU, results below 2**-126 are 0
        fn = semantics.flush_to_zero(fn)

    def step(env: Env) -> None:
        env[r] = np.asarray(fn(env[a]))

    return step


@rule(op_table.CMP)
def _cmp(c: _Compiler, op: ir.Operation) -> Step:
    (a, b), r = _io(c, op)
    predicate = ops.str_attr(op, "predicate")

    def step(env: Env) -> None:
        env[r] = np.asarray(semantics.compare(predicate, env[a], env[b]))

    return step


@rule(op_table.SELECT)
def _select(c: _Compiler, op: ir.Operation) -> Step:
    (cond, a, b), r = _io(c, op)

    def step(env: Env) -> None:
        env[r] = np.asarray(semantics.select(env[cond], env[a], env[b]))

    return step


@rule(op_table.CAST)
def _cast(c: _Compiler, op: ir.Operation) -> Step:
    (a,), r = _io(c, op)
    dtype = dtype_of(op.results[0].type)  # the DType: tfloat32 is held as float32
    mode = _rounding(op)

    def step(env: Env) -> None:
        env[r] = np.asarray(rounding.cast(env[a], dtype, mode))

    return step


@rule(op_table.CONSTANT)
def _constant(c: _Compiler, op: ir.Operation) -> Step:
    _, r = _io(c, op)
    dtype = dtype_of(op.results[0].type)
    value = semantics.hold(ops.constant_value(op.attributes["value"], dtype), dtype)

    def step(env: Env) -> None:
        env[r] = value

    return step


def _shape(op: ir.Operation) -> tuple[int, ...]:
    t = op.results[0].type
    return tuple(ir.RankedTensorType(t).shape) if is_tile_type(t) else ()


@rule(op_table.SPLAT, op_table.BROADCAST)
def _broadcast(c: _Compiler, op: ir.Operation) -> Step:
    (a,), r = _io(c, op)
    shape = _shape(op)

    def step(env: Env) -> None:
        env[r] = np.broadcast_to(env[a], shape)

    return step


@rule(op_table.RESHAPE)
def _reshape(c: _Compiler, op: ir.Operation) -> Step:
    (a,), r = _io(c, op)
    shape = _shape(op)

    def step(env: Env) -> None:
        env[r] = np.reshape(env[a], shape)

    return step


@rule(op_table.CONVERT_LAYOUT)
def _identity(c: _Compiler, op: ir.Operation) -> Step:
    (a,), r = _io(c, op)

    def step(env: Env) -> None:
        env[r] = env[a]

    return step


@rule(op_table.ARANGE)
def _arange(c: _Compiler, op: ir.Operation) -> Step:
    _, r = _io(c, op)
    value = np.arange(_shape(op)[0]).astype(_result_dtype(op))

    def step(env: Env) -> None:
        env[r] = value

    return step


@rule(op_table.BID, op_table.NUM_BLOCKS)
def _grid(c: _Compiler, op: ir.Operation) -> Step:
    _, r = _io(c, op)
    axis = ops.int_attr(op, "axis")
    source = BID_SLOT if op.name == "tile.bid" else GRID_SLOT

    def step(env: Env) -> None:
        env[r] = np.int32(env[source][axis])

    return step


@rule(op_table.DIM, op_table.STRIDE)
def _array_query(c: _Compiler, op: ir.Operation) -> Step:
    (a,), r = _io(c, op)
    dim = ops.int_attr(op, "dim")
    is_dim = op.name == "tile.dim"
    index_type = np_dtype(dtype_of(op.results[0].type)).type  # int32, or int64 (IndexedWithInt64)

    def step(env: Env) -> None:
        array = env[a]
        value = array.shape[dim] if is_dim else array.strides[dim] // array.itemsize
        env[r] = index_type(value)

    return step


@rule(op_table.LOAD)
def _load(c: _Compiler, op: ir.Operation) -> Step:
    (a, *idx), r = _io(c, op)
    shape, order = _shape(op), ops.array_attr(op, "order")
    padding, steps = ops.str_attr(op, "padding_mode"), _steps(op)

    def step(env: Env) -> None:
        env[r] = memory.load(env[a], [int(env[i]) for i in idx], shape, order, padding, steps)

    return step


@rule(op_table.STORE)
def _store(c: _Compiler, op: ir.Operation) -> Step:
    a, *idx, t = [c.slot(v) for v in op.operands]
    order, steps = ops.array_attr(op, "order"), _steps(op)

    def step(env: Env) -> None:
        memory.store(env[a], [int(env[i]) for i in idx], env[t], order, steps)

    return step


def _steps(op: ir.Operation) -> tuple[int, ...] | None:
    """The optional `steps` of a load or store (element distance between tiles; default: the
    tile shape)."""
    return ops.array_attr(op, "steps") if "steps" in op.attributes else None


@rule(op_table.SLICE)
def _slice(c: _Compiler, op: ir.Operation) -> Step:
    (a, start, stop), r = _io(c, op)
    axis = ops.int_attr(op, "axis")

    def step(env: Env) -> None:
        env[r] = memory.slice_view(env[a], axis, int(env[start]), int(env[stop]))

    return step


@rule(op_table.ARRAY_PERMUTE)
def _array_permute(c: _Compiler, op: ir.Operation) -> Step:
    (a,), r = _io(c, op)
    order = tuple(ops.array_attr(op, "order"))

    def step(env: Env) -> None:
        env[r] = np.transpose(env[a], order)

    return step


@rule(op_table.RAW_VIEW)
def _raw_view(c: _Compiler, op: ir.Operation) -> Step:
    (a,), r = _io(c, op)

    def step(env: Env) -> None:
        env[r] = memory.raw_view(env[a])

    return step


@rule(op_table.ARRAY_SELECT)
def _array_select(c: _Compiler, op: ir.Operation) -> Step:
    (index, *arrays), r = _io(c, op)

    def step(env: Env) -> None:
        i = int(env[index])
        if not 0 <= i < len(arrays):
            raise TileInterpreterError(
                f"list index {i} out of range for a list of {len(arrays)} arrays")
        env[r] = env[arrays[i]]

    return step


@rule("scf.if")
def _if(c: _Compiler, op: ir.Operation) -> Step:
    cond = c.slot(op.operands[0])
    then_block = c.block(op.regions[0].blocks[0])
    else_block = c.block(op.regions[1].blocks[0]) if op.regions[1].blocks else None
    results = [c.slot(v) for v in op.results]

    def step(env: Env) -> None:
        chosen = then_block if env[cond] else else_block
        if chosen is None:
            return
        chosen.run(env)
        for r, y in zip(results, chosen.yields, strict=True):
            env[r] = env[y]

    return step


@rule("scf.for")
def _for(c: _Compiler, op: ir.Operation) -> Step:
    lb, ub, st, *inits = [c.slot(v) for v in op.operands]
    body = c.block(op.regions[0].blocks[0])
    iv, carried = body.args[0], body.args[1:]
    iv_dtype = np_dtype(dtype_of(op.operands[0].type))
    results = [c.slot(v) for v in op.results]

    def step(env: Env) -> None:
        stride = int(env[st])
        if stride <= 0:
            raise TileInterpreterError(f"the step of a `for` loop is {stride} at run time; "
                                       "a run-time step must be positive")
        values = [env[i] for i in inits]
        for i in range(int(env[lb]), int(env[ub]), stride):
            env[iv] = iv_dtype.type(i)
            for s, v in zip(carried, values, strict=True):
                env[s] = v
            body.run(env)
            values = [env[y] for y in body.yields]
        for r, v in zip(results, values, strict=True):
            env[r] = v

    return step


@rule("scf.while")
def _while(c: _Compiler, op: ir.Operation) -> Step:
    inits = [c.slot(v) for v in op.operands]
    before = c.block(op.regions[0].blocks[0])
    after = c.block(op.regions[1].blocks[0])
    results = [c.slot(v) for v in op.results]
    condition = before.condition
    assert condition is not None, "the before block of scf.while ends in scf.condition"

    def step(env: Env) -> None:
        values = [env[i] for i in inits]
        while True:
            for s, v in zip(before.args, values, strict=True):
                env[s] = v
            before.run(env)
            values = [env[y] for y in before.yields]
            if not env[condition]:
                break
            for s, v in zip(after.args, values, strict=True):
                env[s] = v
            after.run(env)
            values = [env[y] for y in after.yields]
        for r, v in zip(results, values, strict=True):
            env[r] = v

    return step
