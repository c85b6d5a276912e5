"""Passes (simt): the lowering context: value map, thread indices, layout coordinates."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mlir.ir as ir
from mlir.dialects import arith, gpu

from tilelang.dialect import op_table
from tilelang.errors import TileCompilerExecutionError
from tilelang.layout import LinearLayout
from tilelang.passes.order_accesses import BARRIER_ATTR
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

    def order_access(self, op: ir.Operation) -> bool:
        """A block barrier before `op` when tile-order-accesses marked it (an earlier access to
        its array by other threads may conflict with it: passes/order_accesses.py); whether
        it placed one."""
        if BARRIER_ATTR in op.attributes:
            gpu.barrier()
            return True
        return False

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
