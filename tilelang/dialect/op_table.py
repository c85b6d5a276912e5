"""Dialect: one record per `tile` op (its name and traits), checked against the IRDL file.

Passes ask a record's traits (`has_trait(op, Trait.WRITES)`) instead of keeping lists of op
names; the front end, the interpreter (`interpreter/program.py: RULES`) and the GPU lowering
(`passes/simt/context.py: RULES`) each hold one rule per record, and
tests/dialect/test_op_table.py fails when an IRDL op lacks a record or a record lacks a rule.
Adding an op: its IRDL entry (dialect/tile.irdl.mlir), its record here, one rule per layer
(docs/compiler.md, "Adding an op").
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import mlir.ir as ir


class Trait(enum.Flag):
    """What passes may assume about an op (MLIR's traits and memory effects, in one flag)."""

    NONE = 0
    PURE = enum.auto()  # no memory access, no output: removed when unused, merged, moved
    READS = enum.auto()  # reads array memory: not moved or merged across writes
    WRITES = enum.auto()  # writes array memory
    OUTPUT = enum.auto()  # prints, asserts, grid dependency control: never removed, merged or
    # reordered
    ELEMENTWISE = enum.auto()  # result element i is a function of operand elements i alone
    COMBINES = enum.auto()  # combines elements along axes with its region (reduce, scan)
    REGION = enum.auto()  # has a region (the combiner)
    SHAPE = enum.auto()  # moves or repeats elements, computes nothing (reshape, permute, ...)
    SUBTILE = enum.auto()  # works on a sub-tile of a tile (cat, extract, insert)
    ARRAY_VIEW = enum.auto()  # makes a view of an array argument (slice, raw_view, ...)
    GRID = enum.auto()  # asks where the block is (bid, num_blocks)


@dataclass(frozen=True)
class OpDef:
    """A `tile` op: `name` is its full name ("tile.add"), `what` a noun phrase for messages."""

    name: str
    traits: Trait
    what: str

    @property
    def short(self) -> str:
        return self.name.removeprefix("tile.")

    def has(self, trait: Trait) -> bool:
        return bool(self.traits & trait)


OPS: dict[str, OpDef] = {}


def _define(short: str, traits: Trait, what: str = "") -> OpDef:
    record = OpDef(f"tile.{short}", traits, what or f"a {short}")
    OPS[record.name] = record
    return record


P, E = Trait.PURE, Trait.ELEMENTWISE

BID = _define("bid", P | Trait.GRID, "the block index")
NUM_BLOCKS = _define("num_blocks", P | Trait.GRID, "the grid size")
DIM = _define("dim", P, "an array extent")
STRIDE = _define("stride", P, "an array stride")
LOAD = _define("load", Trait.READS, "a load")
STORE = _define("store", Trait.WRITES, "a store")
CONSTANT = _define("constant", P, "a constant")
SPLAT = _define("splat", P | Trait.SHAPE, "a splat")
ARANGE = _define("arange", P, "an arange")
BROADCAST = _define("broadcast", P | Trait.SHAPE, "a broadcast")
RESHAPE = _define("reshape", P | Trait.SHAPE, "a reshape")
CONVERT_LAYOUT = _define("convert_layout", P | Trait.SHAPE, "a layout conversion")
BINARY = {short: _define(short, P | E) for short in (
    "add", "sub", "mul", "div", "floordiv", "mod", "pow", "minimum", "maximum", "and", "or",
    "xor", "shl", "shr", "atan2")}
UNARY = {short: _define(short, P | E) for short in (
    "neg", "invert", "abs", "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "tan",
    "sinh", "cosh", "tanh", "floor", "ceil", "isnan")}
CMP = _define("cmp", P | E, "a comparison")
SELECT = _define("select", P | E, "a where")
CAST = _define("cast", P | E, "an astype")
BITCAST = _define("bitcast", P | E, "a bitcast")
REDUCE = _define("reduce", P | Trait.COMBINES | Trait.REGION, "a reduction")
SCAN = _define("scan", P | Trait.COMBINES | Trait.REGION, "a scan")
SLICE = _define("slice", P | Trait.ARRAY_VIEW, "an array slice")
ARRAY_SELECT = _define("array_select", P | Trait.ARRAY_VIEW, "a list element")
RAW_VIEW = _define("raw_view", P | Trait.ARRAY_VIEW, "a raw view")
GATHER = _define("gather", Trait.READS, "a gather")
SCATTER = _define("scatter", Trait.WRITES, "a scatter")
ATOMIC_RMW = _define("atomic_rmw", Trait.READS | Trait.WRITES, "an atomic update")
ATOMIC_CAS = _define("atomic_cas", Trait.READS | Trait.WRITES, "an atomic compare-and-swap")
PERMUTE = _define("permute", P | Trait.SHAPE, "a permute")
CAT = _define("cat", P | Trait.SUBTILE, "a cat")
EXTRACT = _define("extract", P | Trait.SUBTILE, "an extract")
INSERT = _define("insert", P | Trait.SUBTILE, "an insert")
MMA = _define("mma", P, "a matrix product")
ASSUME_DIV_BY = _define("assume_div_by", P, "an assume_divisible_by")
# ordering points of programmatic dependent launch: kept in place as output is
GRID_DEPENDENCY_WAIT = _define("grid_dependency_control_wait", Trait.OUTPUT,
                               "a grid_dependency_control_wait")
GRID_DEPENDENCY_LAUNCH = _define("grid_dependency_control_launch_dependents", Trait.OUTPUT,
                                 "a grid_dependency_control_launch_dependents")
PRINT = _define("print", Trait.OUTPUT, "a print")
ASSERT = _define("assert", Trait.OUTPUT, "an assert")

# what passes must keep in place: writes and output; reads only relative to writes
EFFECTS = Trait.READS | Trait.WRITES | Trait.OUTPUT


def op_def(op: ir.Operation | ir.OpView | str) -> OpDef | None:
    """The record of `op` (an operation, an op view or a name), or None for other dialects."""
    name = op if isinstance(op, str) else op.operation.name
    return OPS.get(name)


def has_trait(op: ir.Operation | ir.OpView | str, trait: Trait) -> bool:
    """Whether `op` is a `tile` op with (any of) `trait`."""
    record = op_def(op)
    return record is not None and record.has(trait)


def names_with(trait: Trait) -> tuple[str, ...]:
    """The full names of the ops with (any of) `trait`, in definition order."""
    return tuple(name for name, record in OPS.items() if record.has(trait))
