"""Passes (simt): tile.load / tile.store as per-thread global-memory accesses.

A uniform test picks one of two paths for the whole tile: if it lies inside the array (and has
no padding elements) every thread issues unmasked, vectorized accesses with constant offsets;
otherwise each element is tested and accessed on its own (edge tiles only).

The element-wise path accesses each element with one predicated PTX instruction (`@p ld.global`,
`@p st.global`, as inline PTX) rather than under an scf.if of its own: two basic blocks per
element made LLVM's optimizations and code generation the slowest part of compiling kernels
with many edge accesses (the attention sample's LLVM time fell from 1.8 s to 0.5 s), and the
PTX is shorter, with no branch per element.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mlir.ir as ir
from mlir.dialects import arith, llvm, scf, vector

from tilelang.dialect import op_table, ops
from tilelang.dialect.semantics import np_dtype, padding_value
from tilelang.dialect.types import shape_of
from tilelang.layout import LinearLayout, owned_registers, padded_shape
from tilelang.passes.simt import restricted, words
from tilelang.passes.simt.addressing import gep, layout_of, to_memory, to_register
from tilelang.passes.simt.context import (
    Lowering,
    const,
    disjoint_bits,
    lowers,
    register_coords,
    when,
)
from tilelang.passes.simt.values import (
    ArrayArgs,
    Distributed,
    i32,
    i64,
    memory_type,
    scalar_type,
)
from tilelang.passes.tma_stores import STORE_ATTR


@dataclass
class Access:
    """Everything a tile access computes once: offsets, bounds, vector width."""

    array: ArrayArgs
    layout: LinearLayout
    shape: tuple[int, ...]  # real tile shape, in tile axes
    order: tuple[int, ...]
    steps: tuple[int, ...]  # per tile axis: elements between consecutive tiles
    starts: list[ir.Value]  # per tile axis: index * step (i64)
    base: ir.Value  # element offset of the tile's first element (i64)
    vector: int  # elements per vector access along `axis`
    axis: int | None  # tile axis with unit stride
    thread_bounds: tuple | None = None  # masked path's per-thread bounds (_thread_bounds)
    # masked path's values per (tile axis, register coordinate), shared by the registers with
    # that coordinate: its bounds test, its stride term (all built in the masked path's block)
    masked_parts: dict = field(default_factory=dict)


def _stride(a: Access, k: int) -> ir.Value:
    """Stride of tile axis k; a unit stride (known when the kernel is specialized) as the
    constant 1, so that register offsets fold into address displacements."""
    if a.array.unit_stride[a.order[k]]:
        return const(i64(), 1)
    return a.array.strides[a.order[k]]


def _extent(a: Access, k: int) -> ir.Value:
    return a.array.shape[a.order[k]]


def prepare(lw: Lowering, array: ArrayArgs, indices: list[ir.Value], layout: LinearLayout,
            shape: tuple[int, ...], order: tuple[int, ...],
            steps: tuple[int, ...] | None = None) -> Access:
    steps = shape if steps is None else steps
    starts, base = [], const(i64(), 0)
    for k, index in enumerate(indices):
        wide = arith.extsi(i64(), index) if index.type != i64() else index
        start = arith.muli(wide, const(i64(), steps[k]))
        starts.append(start)
        base = arith.addi(base, arith.muli(start, array.strides[order[k]]))
    a = Access(array, layout, shape, order, steps, starts, base, 1, None)
    a.axis, a.vector = _vector_width(a)
    return a


def _vector_width(a: Access) -> tuple[int | None, int]:
    """The widest vector along a unit-stride tile axis that alignment and layout allow.

    Register basis j must step 2**j along that axis (the vector's elements sit in consecutive
    registers), the tile's extent and the step between tiles (which moves the tile's first
    element) must be multiples of the vector, and the array's alignment
    (base pointer and other strides) must cover the vector's bytes.
    """
    axes = [k for k, ax in enumerate(a.order) if a.array.unit_stride[ax]]
    if not axes:
        return None, 1
    axis, itemsize = axes[-1], a.array.dtype.itemsize
    regs = a.layout.bases["register"]
    vec = 1
    while True:
        wider, bit = vec * 2, vec.bit_length() - 1
        if wider * itemsize > min(16, a.array.align) or bit >= len(regs):
            break
        if not _is_unit(regs[bit], axis, vec) or a.shape[axis] % wider or a.steps[axis] % wider:
            break
        vec = wider
    if vec > 1 and not _aligned_elsewhere(a.layout, axis, vec):
        return axis, 1
    return axis, vec


def _is_unit(basis: tuple[int, ...], axis: int, value: int) -> bool:
    return all(c == (value if d == axis else 0) for d, c in enumerate(basis))


def _aligned_elsewhere(layout: LinearLayout, axis: int, vec: int) -> bool:
    """No basis other than the first log2(vec) register ones touches the low bits of `axis`."""
    low = vec.bit_length() - 1
    others = list(layout.bases["register"][low:]) + list(layout.bases["lane"]) + \
        list(layout.bases["warp"])
    return all(b[axis] % vec == 0 for b in others)


def _additive(layout: LinearLayout) -> bool:
    """Whether a register's coordinates are its register part plus its thread part, as the fast
    path computes them (swizzled layouts XOR them: the element-wise path handles those)."""
    return all(disjoint_bits(layout, d) for d in range(layout.ndim))


def _full_tile(a: Access) -> ir.Value:
    """Uniform i1: the whole tile lies inside the array."""
    ok = const(ir.IntegerType.get_signless(1), 1)
    for k, size in enumerate(a.shape):
        lo = arith.cmpi(arith.CmpIPredicate.sge, a.starts[k], const(i64(), 0))
        end = arith.addi(a.starts[k], const(i64(), size))
        hi = arith.cmpi(arith.CmpIPredicate.sle, end, _extent(a, k))
        ok = arith.andi(ok, arith.andi(lo, hi))
    return ok


def _thread_offset(lw: Lowering, a: Access) -> ir.Value:
    offset = const(i64(), 0)
    for k in range(len(a.shape)):
        part = arith.muli(lw.thread_coord(a.layout, k), _stride(a, k))
        offset = arith.addi(offset, part)
    return offset


def _register_offset(a: Access, register: int) -> ir.Value:
    """Element offset of a register from the thread's first element."""
    dynamic, static = _register_parts(a, register)
    if dynamic is None:
        return const(i64(), static)
    return arith.addi(dynamic, const(i64(), static)) if static else dynamic


def _register_parts(a: Access, register: int,
                    terms: dict | None = None) -> tuple[ir.Value | None, int]:
    """A register's element offset from the thread's first element as (run-time part, constant
    part): unit-stride axes add up at compile time; another axis multiplies its stride, once per
    coordinate when `terms` memoizes the products (its users must all lie in one block)."""
    static, offset = 0, None
    for k, c in enumerate(register_coords(a.layout, register)):
        if not c:
            continue
        if a.array.unit_stride[a.order[k]]:
            static += c
            continue
        term = terms.get(("term", k, c)) if terms is not None else None
        if term is None:
            term = arith.muli(const(i64(), c), a.array.strides[a.order[k]])
            if terms is not None:
                terms[("term", k, c)] = term
        offset = term if offset is None else arith.addi(offset, term)
    return offset, static


def _coord(lw: Lowering, a: Access, register: int, k: int) -> ir.Value:
    reg = const(i64(), register_coords(a.layout, register)[k])
    thread = lw.thread_coord(a.layout, k)
    return arith.addi(reg, thread) if disjoint_bits(a.layout, k) else arith.xori(reg, thread)


def _element_address(lw: Lowering, a: Access, register: int,
                     mem: ir.Type) -> tuple[ir.Value, ir.Value, int]:
    """(i1 in bounds, address, constant elements from it) of one register, for the masked
    path. Registers that differ only in their constant part share the address: one 64-bit
    register where the access names `[address+displacement]`, as LLVM addresses the fast path,
    instead of one per element."""
    ok, offset, static = _element(lw, a, register)
    key = ("address", offset)
    address = a.masked_parts.get(key)
    if address is None:
        address = a.masked_parts[key] = gep(a.array.ptr, offset, mem)
    if static * _bits(mem) // 8 >= 1 << 31:  # beyond a PTX displacement: into the address
        return ok, gep(address, const(i64(), static), mem), 0
    return ok, address, static


def _element(lw: Lowering, a: Access, register: int) -> tuple[ir.Value, ir.Value, int]:
    """(i1 in bounds, element offset, constant elements to add to it) of one register, for the
    masked path."""
    if _additive(a.layout):
        return _element_additive(lw, a, register)
    ok = const(ir.IntegerType.get_signless(1), 1)
    offset = a.base
    for k, size in enumerate(a.shape):
        c = _coord(lw, a, register, k)
        pos = arith.addi(a.starts[k], c)
        inside = arith.andi(
            arith.cmpi(arith.CmpIPredicate.ult, c, const(i64(), size)),
            arith.andi(arith.cmpi(arith.CmpIPredicate.sge, pos, const(i64(), 0)),
                       arith.cmpi(arith.CmpIPredicate.slt, pos, _extent(a, k))),
        )
        ok = arith.andi(ok, inside)
        offset = arith.addi(offset, arith.muli(c, _stride(a, k)))
    return ok, offset, 0


def _element_additive(lw: Lowering, a: Access,
                      register: int) -> tuple[ir.Value, ir.Value, int]:
    """The masked path's test and offset when a coordinate is register part + thread part.

    Everything that depends on the thread is computed once per access (the bounds a register's
    constant coordinate must lie in, and the thread's offset), so each element costs a compare
    of a constant and an address with a constant displacement. Per-element 64-bit coordinates
    would otherwise be hoisted by LLVM and held across the kernel: 128 registers for a 64-element
    row, which halved the occupancy of wide bf16 rows.
    """
    if a.thread_bounds is None:
        a.thread_bounds = _thread_bounds(lw, a)
    lows, highs, thread_offset = a.thread_bounds
    parts = a.masked_parts
    ok = None
    for k, c in enumerate(register_coords(a.layout, register)):
        inside = parts.get(("test", k, c))
        if inside is None:
            inside = parts["test", k, c] = arith.andi(
                arith.cmpi(arith.CmpIPredicate.sge, const(i64(), c), lows[k]),
                arith.cmpi(arith.CmpIPredicate.slt, const(i64(), c), highs[k]))
        ok = inside if ok is None else arith.andi(ok, inside)
    if ok is None:  # a 0-d tile
        ok = const(ir.IntegerType.get_signless(1), 1)
    dynamic, static = _register_parts(a, register, parts)
    if dynamic is None:
        return ok, thread_offset, static
    offset = parts.get(("offset", dynamic))
    if offset is None:
        offset = parts["offset", dynamic] = arith.addi(thread_offset, dynamic)
    return ok, offset, static


def _thread_bounds(lw: Lowering, a: Access) -> tuple[list, list, ir.Value]:
    """Per tile axis, the range [low, high) a register coordinate c must lie in for the
    element to be inside both the tile and the array: c < size - t and
    -(start + t) <= c < extent - (start + t), with t the thread's part; plus the thread's offset.
    Along an axis the layout spans exactly (no padding) c < size - t always holds: it is left
    out (a min that made LLVM's loop strength reduction several times slower)."""
    lows, highs = [], []
    for k, size in enumerate(a.shape):
        t = lw.thread_coord(a.layout, k)
        first = arith.addi(a.starts[k], t)
        high = arith.subi(_extent(a, k), first)
        if size != a.layout.shape[k]:
            high = arith.minsi(arith.subi(const(i64(), size), t), high)
        highs.append(high)
        # a negative tile index puts the first elements before the array's start
        lows.append(arith.subi(const(i64(), 0), first))
    return lows, highs, arith.addi(a.base, _thread_offset(lw, a))


def _chunks(a: Access) -> list[int]:
    return list(range(0, a.layout.num_registers, a.vector))


# ----- load ------------------------------------------------------------------------------------


@lowers(op_table.LOAD)
def lower_load(lw: Lowering, op: ir.Operation) -> None:
    array = lw.array(op.operands[0])
    lw.order_access(op)
    result = op.results[0]
    shape = shape_of(result.type)
    if not shape:
        lw.set(result, _load_scalar(lw, op, array))
        return
    layout = layout_of(result.type)
    a = prepare(lw, array, [lw.get(v) for v in list(op.operands)[1:]], layout, shape,
                ops.array_attr(op, "order"), _steps(op))
    padding = ops.str_attr(op, "padding_mode")
    reg_type = scalar_type(array.dtype)
    types = [reg_type] * layout.num_registers
    if padded_shape(shape) == shape and _additive(layout) and _in_words(a):
        regs = _load_in_words(lw, a, padding)
    elif padded_shape(shape) == shape and _additive(layout):
        branch = scf.IfOp(_full_tile(a), types, has_else=True)
        with ir.InsertionPoint(branch.then_block):
            scf.YieldOp(_load_fast(lw, a))
        with ir.InsertionPoint(branch.else_block):
            scf.YieldOp(_load_masked(lw, a, padding))
        regs = tuple(branch.results)
    else:
        regs = tuple(_load_masked(lw, a, padding))
    lw.set(result, Distributed(regs, layout, array.dtype, shape))


def _in_words(a: Access) -> bool:
    """Whether the two paths of a load meet in 32-bit words (words.py): 16-bit elements whose
    registers pair up as aligned, consecutive elements (vectors of at least two)."""
    return a.array.dtype.itemsize == 2 and a.vector >= 2


def _load_in_words(lw: Lowering, a: Access, padding: str) -> tuple[ir.Value, ...]:
    mem = memory_type(a.array.dtype)
    count = a.layout.num_registers // 2
    branch = scf.IfOp(_full_tile(a), [ir.IntegerType.get_signless(32)] * count, has_else=True)
    with ir.InsertionPoint(branch.then_block):
        scf.YieldOp(words.pack(_load_fast(lw, a), mem))
    with ir.InsertionPoint(branch.else_block):
        pad16 = _to_ptx(const(mem, padding_value(padding, np_dtype(a.array.dtype))))
        pairs = []
        for r in range(0, a.layout.num_registers, 2):
            low, address, static = _element_address(lw, a, r, mem)
            high = _element(lw, a, r + 1)[0]
            pairs.append(words.masked_word(address, static, low, high, pad16))
        scf.YieldOp(pairs)
    return tuple(words.unpack(branch.results, mem))


def _steps(op: ir.Operation) -> tuple[int, ...] | None:
    """The optional `steps` attribute of a load or store (default: the tile shape)."""
    return ops.array_attr(op, "steps") if "steps" in op.attributes else None




def _load_fast(lw: Lowering, a: Access) -> list[ir.Value]:
    mem = memory_type(a.array.dtype)
    base = arith.addi(a.base, _thread_offset(lw, a))
    regs: list[ir.Value] = []
    for first in _chunks(a):
        address = gep(a.array.ptr, arith.addi(base, _register_offset(a, first)), mem)
        if a.vector == 1:
            values = [llvm.load(mem, address)]
        else:
            vec_type = ir.VectorType.get([a.vector], mem)
            loaded = llvm.load(vec_type, address, alignment=a.vector * a.array.dtype.itemsize)
            values = [vector.extract(loaded, static_position=[j], dynamic_position=[])
                      for j in range(a.vector)]
        regs.extend(to_register(v, a.array.dtype) for v in values)
    return regs


def _load_masked(lw: Lowering, a: Access, padding: str) -> list[ir.Value]:
    mem = memory_type(a.array.dtype)
    pad_value = padding_value(padding, np_dtype(a.array.dtype))
    pad = restricted.constant(a.array.dtype, pad_value) if a.array.dtype.restricted else \
        const(mem, pad_value)
    predicated = _bits(mem) in PTX_REGISTERS
    pad_bits = _to_ptx(pad) if predicated else None
    regs = []
    for r in range(a.layout.num_registers):
        ok, address, static = _element_address(lw, a, r, mem)
        if pad_bits is not None:
            loaded = _predicated_load(address, static, ok, pad_bits, mem)
        else:
            branch = scf.IfOp(ok, [mem], has_else=True)
            with ir.InsertionPoint(branch.then_block):
                scf.YieldOp([llvm.load(mem, gep(address, const(i64(), static), mem))])
            with ir.InsertionPoint(branch.else_block):
                scf.YieldOp([pad])
            loaded = branch.results[0]
        regs.append(to_register(loaded, a.array.dtype))
    return regs


# Inline PTX has no 8-bit registers: a byte travels in a 16-bit one. Per element width: the
# register's constraint letter and width.
PTX_REGISTERS = {8: ("h", 16), 16: ("h", 16), 32: ("r", 32), 64: ("l", 64)}


def _bits(t: ir.Type) -> int:
    return t.width if isinstance(t, ir.IntegerType) else ir.FloatType(t).width


def _predicated_load(address: ir.Value, static: int, ok: ir.Value, pad_bits: ir.Value,
                     mem: ir.Type) -> ir.Value:
    """The element (of type `mem`) `static` elements past `address` where `ok`, else the
    padding: the register starts as `pad_bits` (_to_ptx of the padding value) and one
    `@p ld.global` overwrites it. Marked as having side effects: LLVM takes inline PTX without
    them for a pure function of its operands, and would merge two loads of one address across
    a store to it."""
    bits = _bits(mem)
    letter, width = PTX_REGISTERS[bits]
    loaded = llvm.inline_asm(ir.IntegerType.get_signless(width), [address, ok, pad_bits],
                             f"@$2 ld.global.b{bits} $0, [$1{_displacement(static, bits)}];",
                             f"={letter},l,b,0", has_side_effects=True)
    return _from_ptx(loaded, mem)


def _predicated_store(address: ir.Value, static: int, ok: ir.Value, value: ir.Value) -> None:
    """`@p st.global` of `value` `static` elements past `address`, where `ok`."""
    bits = _bits(value.type)
    letter, _ = PTX_REGISTERS[bits]
    llvm.inline_asm(None, [address, _to_ptx(value), ok],
                    f"@$2 st.global.b{bits} [$0{_displacement(static, bits)}], $1;",
                    f"l,{letter},b", has_side_effects=True)


def _displacement(static: int, bits: int) -> str:
    return f"+{static * bits // 8}" if static else ""


def _to_ptx(value: ir.Value) -> ir.Value:
    """`value` as the integer register inline PTX moves it in."""
    bits = _bits(value.type)
    if not isinstance(value.type, ir.IntegerType):
        value = llvm.bitcast(ir.IntegerType.get_signless(bits), value)
    width = PTX_REGISTERS[bits][1]
    return arith.extui(ir.IntegerType.get_signless(width), value) if width > bits else value


def _from_ptx(value: ir.Value, t: ir.Type) -> ir.Value:
    bits = _bits(t)
    if value.type.width > bits:
        value = arith.trunci(ir.IntegerType.get_signless(bits), value)
    return value if isinstance(t, ir.IntegerType) else llvm.bitcast(t, value)


def _load_scalar(lw: Lowering, op: ir.Operation, array: ArrayArgs) -> ir.Value:
    """A 0-d load (0-d array): one element, no bounds."""
    mem = memory_type(array.dtype)
    return to_register(llvm.load(mem, array.ptr), array.dtype)


# ----- store -----------------------------------------------------------------------------------


@lowers(op_table.STORE)
def lower_store(lw: Lowering, op: ir.Operation) -> None:
    operands = list(op.operands)
    array = lw.array(operands[0])
    lw.order_access(op)
    value = lw.get(operands[-1])
    if not isinstance(value, Distributed):  # a scalar into a 0-d array: one thread writes it
        is_first = arith.cmpi(arith.CmpIPredicate.eq, lw.thread_index("lane"), const(i32(), 0))
        first = arith.andi(is_first, arith.cmpi(arith.CmpIPredicate.eq,
                                                lw.thread_index("warp"), const(i32(), 0)))
        when(first, lambda: llvm.store(to_memory(value, array.dtype), array.ptr))
        return
    tile = value
    if STORE_ATTR in op.attributes and lw.tma:
        from tilelang.passes.simt.tma_store import lower_tma_store

        lower_tma_store(lw, array, [lw.get(v) for v in operands[1:-1]], tile)
        return
    a = prepare(lw, array, [lw.get(v) for v in operands[1:-1]], tile.layout, tile.shape,
                ops.array_attr(op, "order"), _steps(op))
    owner = lw.owner_predicate(tile.layout)
    owned = owned_registers(tile.layout)
    if padded_shape(tile.shape) == tile.shape and _additive(tile.layout):
        full = _full_tile(a)
        branch = scf.IfOp(full, [], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            when(owner, lambda: _store_fast(lw, a, tile, owned))
            scf.YieldOp([])
        with ir.InsertionPoint(branch.else_block):
            when(owner, lambda: _store_masked(lw, a, tile, owned))
            scf.YieldOp([])
    else:
        when(owner, lambda: _store_masked(lw, a, tile, owned))


def _store_fast(lw: Lowering, a: Access, tile: Distributed, owned: tuple[int, ...]) -> None:
    mem = memory_type(a.array.dtype)
    base = arith.addi(a.base, _thread_offset(lw, a))
    owned_set = set(owned)
    for first in _chunks(a):
        if first not in owned_set:
            continue
        address = gep(a.array.ptr, arith.addi(base, _register_offset(a, first)), mem)
        values = [to_memory(tile.regs[first + j], a.array.dtype) for j in range(a.vector)]
        if a.vector == 1:
            llvm.store(values[0], address)
        else:
            vec = vector.from_elements(ir.VectorType.get([a.vector], mem), values)
            llvm.store(vec, address, alignment=a.vector * a.array.dtype.itemsize)


def _store_masked(lw: Lowering, a: Access, tile: Distributed, owned: tuple[int, ...]) -> None:
    mem = memory_type(a.array.dtype)
    for r in owned:
        ok, address, static = _element_address(lw, a, r, mem)
        value = to_memory(tile.regs[r], a.array.dtype)
        if _bits(mem) in PTX_REGISTERS:
            _predicated_store(address, static, ok, value)
            continue
        branch = scf.IfOp(ok, [], has_else=False)
        with ir.InsertionPoint(branch.then_block):
            llvm.store(value, gep(address, const(i64(), static), mem))
            scf.YieldOp([])
