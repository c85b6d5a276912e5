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
from collections.abc import Iterable
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
# element-wise arithmetic (BINARY and UNARY: by short name)
ADD = _define("add", P | E)
SUB = _define("sub", P | E)
MUL = _define("mul", P | E)
DIV = _define("div", P | E)
FLOORDIV = _define("floordiv", P | E)
MOD = _define("mod", P | E)
POW = _define("pow", P | E)
MINIMUM = _define("minimum", P | E)
MAXIMUM = _define("maximum", P | E)
AND = _define("and", P | E)
OR = _define("or", P | E)
XOR = _define("xor", P | E)
SHL = _define("shl", P | E)
SHR = _define("shr", P | E)
ATAN2 = _define("atan2", P | E)
BINARY = {r.short: r for r in (
    ADD, SUB, MUL, DIV, FLOORDIV, MOD, POW, MINIMUM, MAXIMUM, AND, OR, XOR, SHL, SHR, ATAN2)}
NEG = _define("neg", P | E)
INVERT = _define("invert", P | E)
ABS = _define("abs", P | E)
EXP = _define("exp", P | E)
EXP2 = _define("exp2", P | E)
LOG = _define("log", P | E)
LOG2 = _define("log2", P | E)
SQRT = _define("sqrt", P | E)
RSQRT = _define("rsqrt", P | E)
SIN = _define("sin", P | E)
COS = _define("cos", P | E)
TAN = _define("tan", P | E)
SINH = _define("sinh", P | E)
COSH = _define("cosh", P | E)
TANH = _define("tanh", P | E)
FLOOR = _define("floor", P | E)
CEIL = _define("ceil", P | E)
ISNAN = _define("isnan", P | E)
UNARY = {r.short: r for r in (
    NEG, INVERT, ABS, EXP, EXP2, LOG, LOG2, SQRT, RSQRT, SIN, COS, TAN, SINH, COSH, TANH, FLOOR,
    CEIL, ISNAN)}
CMP = _define("cmp", P | E, "a comparison")
SELECT = _define("select", P | E, "a where")
CAST = _define("cast", P | E, "an astype")
BITCAST = _define("bitcast", P | E, "a bitcast")
REDUCE = _define("reduce", P | Trait.COMBINES | Trait.REGION, "a reduction")
SCAN = _define("scan", P | Trait.COMBINES | Trait.REGION, "a scan")
SLICE = _define("slice", P | Trait.ARRAY_VIEW, "an array slice")
ARRAY_SELECT = _define("array_select", P | Trait.ARRAY_VIEW, "a list element")
RAW_VIEW = _define("raw_view", P | Trait.ARRAY_VIEW, "a raw view")
ARRAY_PERMUTE = _define("array_permute", P | Trait.ARRAY_VIEW, "a permuted array view")
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


def rule_names(ops: Iterable[OpDef | str]) -> list[str]:
    """The names a layer's rule registry (`@rule(...)`, `@lowers(...)`) keys by: `tile` ops
    are given by record (`op_table.LOAD`), so a misspelt op fails at import; ops of other
    dialects ("scf.for") by name."""
    names = []
    for op in ops:
        if isinstance(op, OpDef):
            names.append(op.name)
        elif op.startswith("tile."):
            raise TypeError(f"register `{op}` by its record in op_table, not by its name")
        else:
            names.append(op)
    return names


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
