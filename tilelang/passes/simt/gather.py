"""Passes (simt): tile.gather, tile.scatter and the atomics, one element per register.

Every register computes its element's offset from its index registers and the array strides
(64 bits) and a predicate: index in bounds (one unsigned compare per dimension, so negative
indices fail too), the mask, and "not a padding element" for shapes that are not powers of two.
A 0-d array has no index tiles: every element's offset is 0 (the op's shape comes from its other
tile operands).

Runs: when a gather of 8- or 16-bit elements has a last index `start + arange(K)` along the
last axis and the others hold one value all along it (passes/index_runs.py: a row gather, an
embedding lookup), the registers a thread holds one after another along that axis (the
layout's first register bases) address consecutive elements of one row. Such a run of up to
16 bytes is read by one vector load when the whole run lies inside the array (a test of its
row and its first and last columns), element by element otherwise. The run's start must be
known to be aligned: `start` a multiple of the run's length (the array's base and row
strides are, by its alignment fact), and every other layout basis a multiple of it along the
last axis. Wider elements are read element by element (run_width says why).
Scatters store element by element (lower_scatter says why).

A layout may hold copies of an element (small tiles on many threads). Scatters and atomics are
issued by the owner slot of each element only (owned registers of owner threads), so each
element is written, and each atomic performed, exactly once. The old values an atomic returns
then exist in the owner slots only: when the result is used they are spread to every copy
(registers copied inside a thread; through shared memory when copies sit in other threads).

Atomics are relaxed `atomicrmw` / `cmpxchg` operations bracketed by `fence`s at the requested
scope: a release fence before the op's atomics (RELEASE, ACQ_REL) and an acquire fence after
them (ACQUIRE, ACQ_REL). LLVM's NVPTX backend ignores the ordering of `atomicrmw` itself, so the
fences are what implement the ordering; they cover the tile op as a whole. A block is one
program in cuTile's model, so at device or system scope a release also publishes what the
block's other threads wrote before (a block barrier first: the issuing threads' fence then
carries those writes, being cumulative), and an acquire also covers what the other threads read
after (a block barrier after the fence): the split-K "last block adds the partials" pattern.
"""

from __future__ import annotations

from collections.abc import Callable

import mlir.ir as ir
from mlir.dialects import arith, gpu, llvm, scf, vector

from tilelang.dialect import op_table, ops
from tilelang.layout import LinearLayout, owned_registers, padded_shape
from tilelang.passes.index_runs import multiple_of, run_start, uniform_along_last
from tilelang.passes.ir_utils import uniform_constant
from tilelang.passes.simt.addressing import SHARED_SYMBOL, gep, to_memory, to_register
from tilelang.passes.simt.context import Lowering, const, lowers, when
from tilelang.passes.simt.shapes import coordinate
from tilelang.passes.simt.values import (
    ArrayArgs,
    Distributed,
    i64,
    memory_type,
    scalar_type,
)

ORDERING = llvm.AtomicOrdering
SCOPES = {"block": "block", "device": "device", "sys": None}  # None: LLVM's system scope
RMW_INT = {"xchg": "xchg", "add": "add", "and": "_and", "or": "_or", "xor": "_xor"}
RMW_SIGNED = {"max": "max", "min": "min"}
RMW_UNSIGNED = {"max": "umax", "min": "umin"}
RMW_FLOAT = {"xchg": "xchg", "add": "fadd"}


class _Indexed:
    """The array, index tiles and flags of one gather / scatter / atomic."""

    def __init__(self, lw: Lowering, op: ir.Operation, extra: int):
        operands = list(op.operands)
        self.lw = lw
        self.array: ArrayArgs = lw.array(operands[0])
        self.indices = [lw.tile(v) for v in operands[1:len(operands) - extra]]
        self.extra = [lw.tile(v) for v in operands[len(operands) - extra:]]
        shaped = (self.indices or self.extra)[0]  # a 0-d array has no index tiles
        self.layout: LinearLayout = shaped.layout
        self.shape = shaped.shape
        self.check = bool(ops.int_attr(op, "check_bounds"))
        self.mem = memory_type(self.array.dtype)

    def element(self, r: int, mask: Distributed | None = None) -> tuple[ir.Value | None, ir.Value]:
        """(predicate or None for always, element offset) of register `r`."""
        ok = self._valid(r)
        offset = None
        for k, index in enumerate(self.indices):
            wide = index.regs[r]
            if wide.type != i64():
                wide = arith.extsi(i64(), wide)  # index tiles are signed (int32 or int64)
            if self.check:
                ok = _and(ok, arith.cmpi(arith.CmpIPredicate.ult, wide, self.array.shape[k]))
            term = wide if self.array.unit_stride[k] else arith.muli(wide, self.array.strides[k])
            offset = term if offset is None else arith.addi(offset, term)
        if mask is not None:
            ok = _and(ok, mask.regs[r])
        return ok, const(i64(), 0) if offset is None else offset

    def run_inside(self, first: int, width: int) -> ir.Value:
        """Whether the run of `width` elements from register `first` lies inside the array
        (always, without bounds checks): its other indices in range, its columns from 0
        to the last dimension's end."""
        if not self.check:
            return arith.constant(ir.IntegerType.get_signless(1), 1)
        ok = None
        for k, index in enumerate(self.indices):
            wide = index.regs[first]
            if wide.type != i64():
                wide = arith.extsi(i64(), wide)
            if k < len(self.indices) - 1:
                ok = _and(ok, arith.cmpi(arith.CmpIPredicate.ult, wide, self.array.shape[k]))
                continue
            ok = _and(ok, arith.cmpi(arith.CmpIPredicate.sge, wide, const(i64(), 0)))
            end = arith.addi(wide, const(i64(), width))
            ok = _and(ok, arith.cmpi(arith.CmpIPredicate.sle, end, self.array.shape[k]))
        assert ok is not None, "a run has indices"
        return ok

    def _valid(self, r: int) -> ir.Value | None:
        """Register `r` holds a real element, not padding of a non-power-of-two shape."""
        ok = None
        for d, size in enumerate(self.shape):
            if size != padded_shape(self.shape)[d]:
                c = coordinate(self.lw, self.layout, r, d)
                ok = _and(ok, arith.cmpi(arith.CmpIPredicate.slt, c, const(i64(), size)))
        return ok

    def pointer(self, offset: ir.Value) -> ir.Value:
        return gep(self.array.ptr, offset, self.mem)


def _and(a: ir.Value | None, b: ir.Value) -> ir.Value:
    return b if a is None else arith.andi(a, b)


def _guarded(ok: ir.Value | None, t: ir.Type, then: Callable[..., ir.Value],
             otherwise: Callable[..., ir.Value]) -> ir.Value:
    """`then()` where `ok` holds, else `otherwise()` (both of type `t`; called with no arguments,
    `...` admits lambdas that bind loop values as defaults)."""
    if ok is None:
        return then()
    branch = scf.IfOp(ok, [t], has_else=True)
    with ir.InsertionPoint(branch.then_block):
        scf.YieldOp([then()])
    with ir.InsertionPoint(branch.else_block):
        scf.YieldOp([otherwise()])
    return branch.results[0]


# ----- gather and scatter ----------------------------------------------------------------------


@lowers(op_table.GATHER)
def lower_gather(lw: Lowering, op: ir.Operation) -> None:
    lw.order_access(op)
    g = _Indexed(lw, op, extra=2)
    mask, padding = g.extra
    dtype = g.array.dtype

    def element(r: int) -> ir.Value:
        ok, offset = g.element(r, mask)
        return _guarded(ok, g.mem, lambda: llvm.load(g.mem, g.pointer(offset)),
                        lambda: to_memory(padding.regs[r], dtype))

    width = run_width(op, g)
    values: list[ir.Value] = []
    for first in range(0, g.layout.num_registers, width):
        if width == 1:
            values.append(element(first))
            continue
        run = ir.VectorType.get([width], g.mem)

        def by_element(first: int = first, run: ir.Type = run) -> ir.Value:
            return vector.from_elements(run, [element(first + j) for j in range(width)])

        def whole(first: int = first, run: ir.Type = run) -> ir.Value:
            return llvm.load(run, g.pointer(g.element(first)[1]),
                             alignment=width * dtype.itemsize)

        loaded = _guarded(g.run_inside(first, width), run, whole, by_element)
        values += [vector.extract(loaded, static_position=[j], dynamic_position=[])
                   for j in range(width)]
    regs = [to_register(v, dtype) for v in values]
    lw.set(op.results[0], Distributed(tuple(regs), g.layout, dtype, g.shape))


@lowers(op_table.SCATTER)
def lower_scatter(lw: Lowering, op: ir.Operation) -> None:
    """Element by element, each owned element under its own test (runs are not stored as
    vectors: in cuTile's MoE down product, whose scattered rows are mostly padding, the
    accumulator's 4-byte runs, each tested as a whole and else stored element by element,
    ran 353 us against 290)."""
    lw.order_access(op)
    s = _Indexed(lw, op, extra=2)
    value, mask = s.extra

    def store_owned() -> None:
        for r in owned_registers(s.layout):
            ok, offset = s.element(r, mask)
            data = to_memory(value.regs[r], s.array.dtype)
            when(ok, lambda d=data, o=offset: llvm.store(d, s.pointer(o)))

    when(lw.owner_predicate(s.layout), store_owned)


def run_width(op: ir.Operation, access: _Indexed) -> int:
    """How many elements each run of a gather's registers reads at once (1: element by
    element): the module doc's runs, up to 16 bytes and the array's alignment, in a
    power-of-two tile of at least two dimensions, every element kept (a mask of true)."""
    operands = list(op.operands)
    indices, mask = operands[1:-2], operands[-2]
    layout, shape, array = access.layout, access.shape, access.array
    if len(indices) < 2 or len(shape) != len(indices) or tuple(shape) != padded_shape(shape):
        return 1
    if array.dtype.itemsize > 2:
        # measured: float32 embedding rows no faster (18.2 -> 18.7 us), and cuTile's float32
        # MoE (its A gathered in an mma.sync loop) went from 128 registers and 3.8 KB spilled
        # to 32 and 15 KB (ptxas's choice)
        return 1
    kept = uniform_constant(mask)
    if kept is None or kept[0] is not True or not array.unit_stride[-1]:
        return 1
    start = run_start(indices[-1], shape[-1])
    if start is None or not all(uniform_along_last(i) for i in indices[:-1]):
        return 1
    registers = list(layout.bases["register"])
    width = 1  # the registers along the last axis, first in the register order
    while len(registers) > width.bit_length() - 1 and \
            tuple(registers[width.bit_length() - 1]) == (0,) * (len(shape) - 1) + (width,):
        width *= 2
    width = min(width, 16 // array.dtype.itemsize, max(array.align // array.dtype.itemsize, 1))

    def aligned(w: int) -> bool:
        """The run's first column a multiple of w in every thread and register."""
        if (isinstance(start, int) and start % w) or \
                (not isinstance(start, int) and not multiple_of(start, w)):
            return False
        others = registers[w.bit_length() - 1:] + list(layout.bases["lane"]) + \
            list(layout.bases["warp"])
        return all(b[-1] % w == 0 for b in others)

    while width > 1 and not aligned(width):
        width //= 2
    return width


# ----- atomics ---------------------------------------------------------------------------------


def _fence(order: str, scope: str | None, kinds: tuple[str, ...]) -> None:
    """The fence of `kinds` ("release", ...: before the atomics; "acquire", ...: after) when
    `order` is one of them."""
    if order in kinds:
        llvm.FenceOp(ORDERING.release if kinds[0] == "release" else ORDERING.acquire,
                     syncscope=scope)


def _block_barrier(order: str, scope: str | None, kinds: tuple[str, ...]) -> bool:
    """Beyond the block, a barrier on the far side of the fences of `kinds`: the block's other
    threads' accesses are ordered with the fencing threads' by it, and the fences are
    cumulative (as in a grid-wide barrier, where one thread fences), so only the threads that
    issue atomics fence: a fence waits for its thread's own outstanding stores, which in every
    thread would stall the whole block. Whether it placed one."""
    if order in kinds and scope != SCOPES["block"]:
        gpu.barrier()
        return True
    return False


def _rmw_kind(kind: str, dtype) -> llvm.AtomicBinOp:
    if dtype.is_float:
        table = RMW_FLOAT
    else:
        table = {**RMW_INT, **(RMW_UNSIGNED if dtype.kind == "u" else RMW_SIGNED)}
    return getattr(llvm.AtomicBinOp, table[kind])


def _atomic(lw: Lowering, op: ir.Operation, extra: int,
            issue: Callable[[_Indexed, ir.Value, int], ir.Value],
            fallback: Callable[[_Indexed, int], ir.Value]) -> None:
    """Shared skeleton: fences, owner-only atomics, old values spread to every copy. Two
    barriers with nothing between them are one: the access's own (tile-order-accesses) serves
    as the release's, the acquire's as the first of the spread's."""
    ordered = lw.order_access(op)
    a = _Indexed(lw, op, extra)
    order = ops.str_attr(op, "memory_order")
    scope = SCOPES[ops.str_attr(op, "memory_scope")]
    reg = scalar_type(a.array.dtype)
    owned = owned_registers(a.layout)

    releases, acquires = ("release", "acq_rel"), ("acquire", "acq_rel")

    def run_owned() -> list[ir.Value]:
        _fence(order, scope, releases)
        old = []
        for r in owned:
            ok, offset = a.element(r)
            old.append(_guarded(ok, reg, lambda r=r, o=offset: issue(a, a.pointer(o), r),
                                lambda r=r: fallback(a, r)))
        _fence(order, scope, acquires)
        return old

    if not ordered:
        _block_barrier(order, scope, releases)
    owner = lw.owner_predicate(a.layout)
    if owner is None:
        old = run_owned()
    else:
        branch = scf.IfOp(owner, [reg] * len(owned), has_else=True)
        with ir.InsertionPoint(branch.then_block):
            scf.YieldOp(run_owned())
        with ir.InsertionPoint(branch.else_block):
            scf.YieldOp([fallback(a, r) for r in owned])
        old = list(branch.results)
    fresh = _block_barrier(order, scope, acquires)
    regs = _spread(lw, a, dict(zip(owned, old, strict=True)), owner is not None,
                   bool(list(op.results[0].uses)), fresh)
    lw.set(op.results[0], Distributed(tuple(regs), a.layout, a.array.dtype, a.shape))


@lowers(op_table.ATOMIC_RMW)
def lower_atomic_rmw(lw: Lowering, op: ir.Operation) -> None:
    kind = ops.str_attr(op, "kind")
    scope = SCOPES[ops.str_attr(op, "memory_scope")]
    # adding, or-ing or xor-ing an integer 0 only reads: without a release to order before the
    # write, it is an atomic load (ld.relaxed), which other blocks' reads of the line do not
    # queue behind at L2 as they do behind atomics (a loop polling for other blocks' values)
    reads_only = (kind in ("add", "or", "xor")
                  and ops.str_attr(op, "memory_order") in ("relaxed", "acquire"))

    def issue(a: _Indexed, ptr: ir.Value, r: int) -> ir.Value:
        update = a.extra[0].regs[r]
        if reads_only and not a.array.dtype.is_float and _is_zero(update):
            return llvm.load(update.type, ptr, alignment=a.array.dtype.itemsize,
                             ordering=ORDERING.monotonic, syncscope=scope)
        return llvm.atomicrmw(_rmw_kind(kind, a.array.dtype), ptr, update,
                              ORDERING.monotonic, syncscope=scope)

    def zero(a: _Indexed, r: int) -> ir.Value:
        return const(scalar_type(a.array.dtype), 0)

    _atomic(lw, op, 1, issue, zero)


def _is_zero(value: ir.Value) -> bool:
    """Whether `value` is an integer constant 0."""
    owner = value.owner
    if not isinstance(owner, ir.Operation) and hasattr(owner, "operation"):
        owner = owner.operation
    if not isinstance(owner, ir.Operation) or owner.name != "arith.constant":
        return False
    attr = owner.attributes["value"]
    return isinstance(attr, ir.IntegerAttr) and attr.value == 0


@lowers(op_table.ATOMIC_CAS)
def lower_atomic_cas(lw: Lowering, op: ir.Operation) -> None:
    scope = SCOPES[ops.str_attr(op, "memory_scope")]

    def issue(a: _Indexed, ptr: ir.Value, r: int) -> ir.Value:
        expected, desired = a.extra[0].regs[r], a.extra[1].regs[r]
        bits = ir.IntegerType.get_signless(a.array.dtype.bitwidth)
        as_int = (lambda v: arith.bitcast(bits, v)) if a.array.dtype.is_float else (lambda v: v)
        pair = llvm.cmpxchg(ptr, as_int(expected), as_int(desired), ORDERING.monotonic,
                            ORDERING.monotonic, syncscope=scope)
        old = llvm.extractvalue(bits, pair, [0])
        return arith.bitcast(expected.type, old) if a.array.dtype.is_float else old

    _atomic(lw, op, 2, issue, lambda a, r: a.extra[0].regs[r])


def _spread(lw: Lowering, a: _Indexed, old: dict[int, ir.Value], across_threads: bool,
            used: bool, fresh: bool) -> list[ir.Value]:
    """Every register's old value from its owner slot's (see the module docstring); `fresh`:
    a barrier was just placed."""
    copy_of = a.layout.owner_masks()["register"]
    local = [old[r & ~copy_of] for r in range(a.layout.num_registers)]
    if not (across_threads and used):
        return local
    mem = memory_type(a.array.dtype)
    size = 1
    for d in a.layout.shape:
        size *= d
    lw.need_shared(size * a.array.dtype.itemsize)
    base = llvm.AddressOfOp(ir.Type.parse("!llvm.ptr<3>"), SHARED_SYMBOL).result
    offsets = [_shared_offset(lw, a.layout, r) for r in range(a.layout.num_registers)]
    if not fresh:
        gpu.barrier()  # an earlier user of the shared buffer may still be reading it

    def write() -> None:
        for r in old:
            llvm.store(local[r], gep(base, offsets[r], mem))

    when(lw.owner_predicate(a.layout), write)
    gpu.barrier()
    return [llvm.load(mem, gep(base, offsets[r], mem)) for r in range(a.layout.num_registers)]


def _shared_offset(lw: Lowering, layout: LinearLayout, r: int) -> ir.Value:
    """Row-major offset of register r's element in the padded tile."""
    offset, stride = const(i64(), 0), 1
    for d in reversed(range(len(layout.shape))):
        c = coordinate(lw, layout, r, d)
        offset = arith.addi(offset, arith.muli(c, const(i64(), stride)))
        stride *= layout.shape[d]
    return offset
