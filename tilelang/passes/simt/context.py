"""Passes (simt): the lowering context: value map, thread indices, layout coordinates."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mlir.ir as ir
from mlir.dialects import arith, gpu

from tilelang.dialect import op_table
from tilelang.errors import TileCompilerExecutionError
from tilelang.layout import LinearLayout
from tilelang.passes.simt.values import ArrayArgs, Distributed, Lowered, i32, i64

Rule = Callable[["Lowering", ir.Operation], None]
RULES: dict[str, Rule] = {}


def lowers(*ops: op_table.OpDef | str) -> Callable[[Rule], Rule]:
    """Register a rule for `ops`: `tile` ops by record (`op_table.LOAD`), others by name
    ("scf.for"); RULES stays keyed by the op's name, which the lookup reads."""
    names = op_table.rule_names(ops)

    def register(fn: Rule) -> Rule:
        for name in names:
            RULES[name] = fn
        return fn

    return register


class Lowering:
    """Maps tile-stage values to their distributed form while a new gpu.func body is built."""

    def __init__(self, num_warps: int, chip: str = "sm_90"):
        self.num_warps = num_warps
        self.chip = chip
        self.uses_wgmma = False  # the kernel needs the arch-specific target (sm_90a)
        self.tma = False  # matrix-product loops may copy with TMA (simt/tma.py)
        self.specialized: Any = None  # simt/warp_specialize.Specialized: a producer warp fills
        # the TMA rings
        self.entry: ir.Block | None = None  # the gpu.func's entry (TMA maps add parameters)
        self.func: gpu.GPUFuncOp | None = None  # the gpu.func being built
        self.tensor_maps: list[Any] = []  # simt/tma.TensorMap, one per added parameter
        self.tensor_map_params: list[ir.Value] = []
        self.values: dict[ir.Value, Lowered] = {}
        self.shared_bytes = 0  # largest shared-memory buffer a conversion needs
        self.shared_location: ir.Location | None = None  # ... and the op that needs it
        self.barrier_before: set[ir.Operation] = set()  # memory accesses to order (see below)
        self._thread: dict[str, ir.Value] = {}
        self._coords: dict[tuple[LinearLayout, int], ir.Value] = {}

    # ----- values -----------------------------------------------------------------------------

    def get(self, value: ir.Value) -> Lowered:
        try:
            return self.values[value]
        except KeyError:
            raise TileCompilerExecutionError(f"value used before it was lowered: {value}") from None

    def tile(self, value: ir.Value) -> Distributed:
        found = self.get(value)
        assert isinstance(found, Distributed), f"expected a tile, got {found!r}"
        return found

    def array(self, value: ir.Value) -> ArrayArgs:
        found = self.get(value)
        assert isinstance(found, ArrayArgs)
        return found

    def set(self, value: ir.Value, lowered: Lowered) -> None:
        self.values[value] = lowered

    def lower_block(self, block: ir.Block) -> list[ir.Operation]:
        """Lower every op of `block` except its terminator, which is returned for the caller."""
        terminators = []
        for op in block.operations:
            op = op.operation
            if op.name in ("scf.yield", "scf.condition", "func.return", "gpu.yield"):
                terminators.append(op)
                continue
            rule = RULES.get(op.name)
            if rule is None:
                raise TileCompilerExecutionError(f"no GPU lowering for `{op.name}`")
            with op.location:
                rule(self, op)
        return terminators

    def need_shared(self, size: int) -> None:
        """Record a conversion's buffer size (the buffer is shared by all conversions)."""
        if size > self.shared_bytes:
            self.shared_bytes = size
            self.shared_location = ir.Location.current

    def order_access(self, op: ir.Operation) -> None:
        """A block barrier before `op` when an earlier access to its array by other threads
        may conflict with it (see ordered_accesses)."""
        if op in self.barrier_before:
            gpu.barrier()

    # ----- thread indices and layout coordinates ----------------------------------------------

    def init_thread(self) -> None:
        """Compute lane and warp at the start of the kernel (all later code may use them)."""
        tid = arith.index_cast(i32(), gpu.thread_id(gpu.Dimension.x))
        self._thread["lane"] = arith.andi(tid, const(i32(), 31))
        self._thread["warp"] = arith.shrui(tid, const(i32(), 5))
        # Per-layout thread coordinates are inserted before this marker, at the kernel's start,
        # so they dominate every use wherever they are first needed (canonicalize drops it).
        self._prologue_end = const(i32(), 0).owner

    def thread_index(self, in_dim: str) -> ir.Value:
        return self._thread[in_dim]

    def thread_coord(self, layout: LinearLayout, dim: int) -> ir.Value:
        """This thread's part of the coordinate along `dim` (XOR of its lane and warp bases),
        as i64; register r's coordinate is register_coord(r) XOR this."""
        key = (layout, dim)
        if key not in self._coords:
            with ir.InsertionPoint(self._prologue_end):
                self._coords[key] = self._emit_thread_coord(layout, dim)
        return self._coords[key]

    def _emit_thread_coord(self, layout: LinearLayout, dim: int) -> ir.Value:
        acc: ir.Value | None = None
        for in_dim in ("lane", "warp"):
            index = self.thread_index(in_dim)
            for bit, basis in enumerate(layout.bases[in_dim]):
                if basis[dim] == 0:
                    continue
                # ((index >> bit) & 1) * basis, as a select to stay cheap for any basis.
                set_bit = arith.andi(arith.shrui(index, const(i32(), bit)), const(i32(), 1))
                is_set = arith.cmpi(arith.CmpIPredicate.ne, set_bit, const(i32(), 0))
                term = arith.select(is_set, const(i64(), basis[dim]), const(i64(), 0))
                acc = term if acc is None else arith.xori(acc, term)
        return acc if acc is not None else const(i64(), 0)

    def owner_predicate(self, layout: LinearLayout) -> ir.Value | None:
        """i1 true for threads that own their elements (None: every thread does)."""
        masks = layout.owner_masks()
        pred = None
        for in_dim in ("lane", "warp"):
            if masks[in_dim]:
                bits = arith.andi(self.thread_index(in_dim), const(i32(), masks[in_dim]))
                ok = arith.cmpi(arith.CmpIPredicate.eq, bits, const(i32(), 0))
                pred = ok if pred is None else arith.andi(pred, ok)
        return pred


def when(pred: ir.Value | None, emit: Callable[..., object]) -> None:
    # emit is called with no arguments; `...` admits lambdas that bind loop values as defaults
    """Run `emit` under `scf.if pred` (or unconditionally when pred is None)."""
    from mlir.dialects import scf

    if pred is None:
        emit()
        return
    branch = scf.IfOp(pred, [], has_else=False)
    with ir.InsertionPoint(branch.then_block):
        emit()
        scf.YieldOp([])


def const(t: ir.Type, value: int | float) -> ir.Value:
    """A scalar arith.constant of integer or float type `t`."""
    if isinstance(t, ir.IntegerType):
        bits = t.width
        v = int(value) & ((1 << bits) - 1)
        if bits > 1 and v >= 1 << (bits - 1):
            v -= 1 << bits
        return arith.constant(t, v)
    return arith.constant(t, float(value))


def register_coords(layout: LinearLayout, register: int) -> tuple[int, ...]:
    """The register part of register `register`'s coordinate (lane = warp = 0)."""
    return layout.apply(register, 0, 0)


def disjoint_bits(layout: LinearLayout, dim: int) -> bool:
    """Whether register bases and thread (lane/warp) bases use different coordinate bits along
    `dim`, so that XOR of the two parts is plain addition."""
    reg = 0
    for basis in layout.bases["register"]:
        reg |= basis[dim]
    thread = 0
    for in_dim in ("lane", "warp"):
        for basis in layout.bases[in_dim]:
            thread |= basis[dim]
    return reg & thread == 0


ACCESSES = ("tile.load", "tile.store", "tile.gather", "tile.scatter", "tile.atomic_rmw",
            "tile.atomic_cas")  # ops whose operand 0 is the array they access


def ordered_accesses(func: ir.Operation) -> set[ir.Operation]:
    """Loads and stores that need a barrier before them.

    A block's accesses to one array happen in program order (as cuTile orders them), but a
    store and a later access of the same element are usually made by different threads. So for
    every array that is stored to and accessed more than once, each access gets a barrier
    except the first one in program order, when that one is not inside a loop.
    """
    accesses: dict[ir.Value, list[ir.Operation]] = {}
    stored: set[ir.Value] = set()

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name in ACCESSES:
            for array in _root_arrays(op.operands[0]):
                accesses.setdefault(array, []).append(op)
                if op.name not in ("tile.load", "tile.gather"):
                    stored.add(array)
        return ir.WalkResult.ADVANCE

    func.walk(visit)
    needed: set[ir.Operation] = set()
    for array, ops in accesses.items():
        if array not in stored or len(ops) < 2:
            continue
        first = ops[0]
        needed.update(ops[1:])
        if _inside_loop(first):
            needed.add(first)
    return needed


def _root_arrays(value: ir.Value) -> list[ir.Value]:
    """The kernel arguments a (possibly sliced or selected) array value may view: accesses
    through slices of one array are ordered like accesses to the array itself, and accesses
    through a `tile.array_select` like accesses to each array it may pick."""
    while isinstance(value.owner, ir.OpView | ir.Operation) and \
            value.owner.operation.name in ("tile.slice", "tile.raw_view"):
        value = value.owner.operation.operands[0]
    if isinstance(value.owner, ir.OpView | ir.Operation) and \
            value.owner.operation.name == "tile.array_select":
        arrays = list(value.owner.operation.operands)[1:]
        return list(dict.fromkeys(r for a in arrays for r in _root_arrays(a)))
    if _chosen_at_run_time(value):  # carried through scf: it may be any array argument
        return _array_arguments(value)
    return [value]


def _chosen_at_run_time(value: ir.Value) -> bool:
    """An array that is a result or block argument of an scf op (an array variable that
    differs between the paths through run-time control flow)."""
    owner = value.owner
    if isinstance(owner, ir.OpView | ir.Operation):
        return owner.operation.name.startswith("scf.")
    return owner.owner.operation.name != "func.func"


def _array_arguments(value: ir.Value) -> list[ir.Value]:
    owner = value.owner
    op = owner.operation if isinstance(owner, ir.OpView | ir.Operation) else owner.owner
    while op.operation.name != "func.func":
        op = op.parent
    return [a for a in op.regions[0].blocks[0].arguments
            if str(a.type).startswith("!tile.array")]


def _inside_loop(op: ir.Operation) -> bool:
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        if parent.name in ("scf.for", "scf.while"):
            return True
        parent = parent.parent
    return False
