"""Passes (simt): tile.mma on tensor cores (`mma.sync`, sm_80+) or, for dtypes without an
mma shape, as per-thread dot products on the CUDA cores.

The operands arrive in the layouts of `layout_rules.mma_plan` (tilelang/layout/mma.py), so each
mma.sync reads registers `atom + atom_regs * repetition` of A, B and C directly: no data moves
here; the conversions into those layouts were placed by tile-assign-layouts.
"""

from __future__ import annotations

import mlir.ir as ir
from mlir.dialects import arith, llvm, math, vector

from tilelang.dialect import dtype_of, op_table
from tilelang.language import dtypes as dt
from tilelang.language.dtypes import DType
from tilelang.layout.mma import Atom, MmaLayouts, k_replicas
from tilelang.passes import layout_rules
from tilelang.passes.simt import restricted, scalar_ops
from tilelang.passes.simt.context import Lowering, const, lowers
from tilelang.passes.simt.shapes import coordinate
from tilelang.passes.simt.values import Distributed, i32, i64


@lowers(op_table.MMA)
def lower_mma(lw: Lowering, op: ir.Operation) -> None:
    a, b, c = (lw.tile(v) for v in op.operands[:3])
    a, b = _zero_k_padding(lw, a, -1), _zero_k_padding(lw, b, -2)
    plan = layout_rules.mma_plan(op, lw.num_warps)
    assert (a.layout, b.layout, c.layout) == (plan.a, plan.b, plan.c), "mma operand layouts"
    result_dtype = dtype_of(op.results[0].type)
    if plan.atom is None:
        regs = _dot_products(a, b, c, result_dtype)
    else:
        regs = _tensor_cores(lw, a, b, c, plan)
    lw.set(op.results[0], Distributed(tuple(regs), c.layout, result_dtype, c.shape))


def _zero_k_padding(lw: Lowering, x: Distributed, dim: int) -> Distributed:
    """`x` with zeros in the padding past a K that is not a power of two. The padding of a
    computed tile may hold anything (a reshape through shared memory copies real elements there,
    exp(0) is 1), and the products read it: zeroed in both operands, so that no padding product
    (0 * NaN included) reaches the sum. The bits of zero are +0 in every float format."""
    depth, padded = x.shape[dim], x.layout.shape[dim]
    if depth == padded:
        return x
    axis = dim % len(x.shape)
    zero = const(x.regs[0].type, 0)
    limit = const(i64(), depth)
    regs = []
    for r, value in enumerate(x.regs):
        inside = arith.cmpi(arith.CmpIPredicate.slt, coordinate(lw, x.layout, r, axis), limit)
        regs.append(arith.select(inside, value, zero))
    return Distributed(tuple(regs), x.layout, x.dtype, x.shape)


# ----- tensor cores ------------------------------------------------------------------------------


def _tensor_cores(lw: Lowering, a: Distributed, b: Distributed, c: Distributed,
                  plan: MmaLayouts) -> list[ir.Value]:
    atom = plan.atom
    assert atom is not None
    a_parts, b_parts = _inputs(a, atom), _inputs(b, atom)
    a_parts = [_zero_k_replicas(lw, p, atom, a.shape[-1], "a") for p in a_parts]
    b_parts = [_zero_k_replicas(lw, p, atom, a.shape[-1], "b") for p in b_parts]
    # tf32x3: lo*hi and hi*lo first (the small terms), then hi*hi
    pairs = [(1, 0), (0, 1), (0, 0)] if atom.name == "tf32x3" else [(0, 0)]
    a_size, b_size = 1 << len(atom.a_regs), 1 << len(atom.b_regs)
    c_size = 1 << len(atom.c_regs)
    reps_b, reps_m, reps_n, reps_k = plan.reps
    types = (_ptx_type(a.dtype, atom), _ptx_type(b.dtype, atom))
    out = list(c.regs)
    for batch in range(reps_b):
        for m in range(reps_m):
            for n in range(reps_n):
                first = c_size * (n + reps_n * (m + reps_m * batch))
                acc = out[first:first + c_size]
                for k in range(reps_k):
                    fa = a_size * (k + reps_k * (m + reps_m * batch))
                    fb = b_size * (k + reps_k * (n + reps_n * batch))
                    for i, j in pairs:
                        acc = _mma_sync(atom, types, a_parts[i][fa:fa + a_size],
                                        b_parts[j][fb:fb + b_size], acc, c.dtype)
                out[first:first + c_size] = acc
    return out


def _inputs(x: Distributed, atom: Atom) -> list[list[ir.Value]]:
    """The operand's registers in the atom's input type (8-bit floats widen to f16, exactly):
    one list, or (hi, lo) tf32 halves of float32 for tf32x3."""
    regs = list(x.regs)
    if x.dtype in dt.FLOAT8_DTYPES:
        return [restricted.convert(regs, x.dtype, dt.float16)]
    if atom.name == "tf32":
        return [[arith.bitcast(i32(), r) for r in regs]]
    if atom.name == "tf32x3":  # x = hi + lo + O(2**-22 x), each half rounded to nearest
        high = [restricted.round_to_tfloat32(r) for r in regs]
        low = [restricted.round_to_tfloat32(arith.subf(r, h)) for r, h in zip(regs, high,
                                                                               strict=True)]
        return [[arith.bitcast(i32(), v) for v in high], [arith.bitcast(i32(), v) for v in low]]
    return [regs]


def _zero_k_replicas(lw: Lowering, regs: list[ir.Value], atom: Atom, depth: int,
                     operand: str) -> list[ir.Value]:
    """A tile shallower than the atom's K holds replicas where the atom reads past it: zero."""
    if depth >= atom.k:
        return regs
    a_reg, a_lane, b_reg, b_lane = k_replicas(atom, depth)
    reg_mask, lane_mask = (a_reg, a_lane) if operand == "a" else (b_reg, b_lane)
    count = 1 << len(atom.a_regs if operand == "a" else atom.b_regs)
    zero = const(regs[0].type, 0)
    out = [zero if (r % count) & reg_mask else v for r, v in enumerate(regs)]
    if lane_mask:
        bits = arith.andi(lw.thread_index("lane"), const(i32(), lane_mask))
        past = arith.cmpi(arith.CmpIPredicate.ne, bits, const(i32(), 0))
        out = [arith.select(past, zero, v) for v in out]
    return out


def _ptx_type(dtype: DType, atom: Atom) -> str:
    if atom.name in ("s8", "u8"):
        return "u8" if dtype.name == "uint8" else "s8"
    return "tf32" if atom.name == "tf32x3" else atom.name


def _pack(values: list[ir.Value], per: int) -> list[ir.Value]:
    """Consecutive groups of `per` registers as one 32-bit operand register."""
    if per == 1:
        return values
    out = []
    for i in range(0, len(values), per):
        group = values[i:i + per]
        packed = vector.from_elements(ir.VectorType.get([per], group[0].type), group)
        out.append(packed if group[0].type == ir.F16Type.get() else llvm.bitcast(i32(), packed))
    return out


def _mma_sync(atom: Atom, types: tuple[str, str], a: list[ir.Value], b: list[ir.Value],
              acc: list[ir.Value], acc_dtype: DType) -> list[ir.Value]:
    """One `mma.sync.aligned.m{M}n{N}k{K}.row.col`: the accumulator registers in and out."""
    return mma_sync_words(atom, types, _pack(a, atom.pack), _pack(b, atom.pack), acc, acc_dtype)


def mma_sync_words(atom: Atom, types: tuple[str, str], a_ops: list[ir.Value],
                   b_ops: list[ir.Value], acc: list[ir.Value],
                   acc_dtype: DType) -> list[ir.Value]:
    """mma.sync on operands already packed in 32-bit registers (f16 pairs as vector<2xf16>)."""
    half_acc = acc_dtype is dt.float16
    c_ops = _pack(acc, 2) if half_acc else acc
    result = ir.Type.parse("!llvm.struct<({})>".format(", ".join(str(v.type) for v in c_ops)))
    attributes = {
        "layoutA": ir.Attribute.parse("#nvvm.mma_layout<row>"),
        "layoutB": ir.Attribute.parse("#nvvm.mma_layout<col>"),
        "shape": ir.Attribute.parse(f"#nvvm.shape<m = {atom.m}, n = {atom.n}, k = {atom.k}>"),
        "operandSegmentSizes": ir.DenseI32ArrayAttr.get([len(a_ops), len(b_ops), len(c_ops)]),
    }
    # the textual form infers these; a generic op without them aborts in the NVVM lowering
    attributes["multiplicandAPtxType"] = ir.Attribute.parse(f"#nvvm.mma_type<{types[0]}>")
    attributes["multiplicandBPtxType"] = ir.Attribute.parse(f"#nvvm.mma_type<{types[1]}>")
    if atom.name in ("s8", "u8"):
        attributes["intOverflowBehavior"] = ir.Attribute.parse("#nvvm.mma_int_overflow<wrapped>")
    op = ir.Operation.create("nvvm.mma.sync", results=[result], operands=[*a_ops, *b_ops, *c_ops],
                             attributes=attributes)
    parts = [llvm.extractvalue(v.type, op.result, [i]) for i, v in enumerate(c_ops)]
    if not half_acc:
        return parts
    out = []
    for p in parts:
        out += [vector.extract(p, static_position=[j], dynamic_position=[]) for j in range(2)]
    return out


# ----- CUDA cores ------------------------------------------------------------------------------


def _dot_products(a: Distributed, b: Distributed, c: Distributed,
                  result: DType) -> list[ir.Value]:
    """C register r += sum over kk of A register kk + K*r times B register kk + K*r, in the
    accumulator's dtype (fma_layouts put them there)."""
    depth = a.layout.shape[-1]
    acc_dtype = c.dtype
    a_regs = _widened(a, acc_dtype)
    b_regs = _widened(b, acc_dtype)
    out = []
    for r, value in enumerate(c.regs):
        total = value
        for kk in range(depth):
            if kk >= a.shape[-1]:
                break  # padding past a non-power-of-two K
            x, y = a_regs[kk + depth * r], b_regs[kk + depth * r]
            if acc_dtype.is_float:
                total = math.fma(x, y, total)
            else:
                total = scalar_ops.add(scalar_ops.mul(x, y, acc_dtype), total, acc_dtype)
        out.append(total if acc_dtype is result else scalar_ops.cast(total, acc_dtype, result))
    return out


def _widened(x: Distributed, dtype: DType) -> list[ir.Value]:
    regs = list(x.regs)
    if x.dtype is dtype:
        return regs
    if x.dtype in dt.FLOAT8_DTYPES or x.dtype is dt.tfloat32:
        return restricted.convert(regs, x.dtype, dtype)
    return [scalar_ops.cast(v, x.dtype, dtype) for v in regs]

