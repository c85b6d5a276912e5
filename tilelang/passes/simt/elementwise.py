"""Passes (simt): element-wise tile ops, register by register; scalars as themselves."""

from __future__ import annotations

from typing import Any

import mlir.ir as ir
from mlir.dialects import arith

from tilelang.dialect import directed, dtype_of, op_table, ops
from tilelang.language import dtypes as dt
from tilelang.language.dtypes import DType
from tilelang.passes.ir_utils import defining_op
from tilelang.passes.simt import directed as simt_directed
from tilelang.passes.simt import restricted, rounding, scalar_ops
from tilelang.passes.simt.context import Lowering, lowers
from tilelang.passes.simt.values import Distributed, Lowered


def _map(lw: Lowering, op: ir.Operation, fn, args: list[Any] | None = None) -> None:
    """Apply `fn(*register values)` to each register (or once, to scalars) of the operands
    (or of `args`, values standing for them)."""
    args = [lw.get(v) for v in op.operands] if args is None else args
    result = op.results[0]
    first = next((a for a in args if isinstance(a, Distributed)), None)
    if first is None:
        lw.set(result, fn(*args))
        return
    regs = tuple(
        fn(*(a.regs[r] if isinstance(a, Distributed) else a for a in args))
        for r in range(len(first.regs))
    )
    lw.set(result, Distributed(regs, first.layout, dtype_of(result.type), first.shape))


def _rounding(op: ir.Operation) -> str | None:
    return ops.str_attr(op, "rounding_mode") if "rounding_mode" in op.attributes else None


def _approx(op: ir.Operation) -> bool:
    return _rounding(op) == "approx"


@lowers(*op_table.BINARY.values())
def lower_binary(lw: Lowering, op: ir.Operation) -> None:
    fn, dtype = scalar_ops.BINARY[op.name], dtype_of(op.operands[0].type)
    if op.name == "tile.div" and _approx(op):
        fn = scalar_ops.approximate_div
    mode = _rounding(op)
    if mode in directed.MODES and op.name in directed.BINARY:  # RZ, RM, RP
        _map(lw, op, lambda a, b: simt_directed.binary(op.name, a, b, dtype, mode))
        return
    fused = _exp2_argument_fma(op)
    if fused is not None:
        product, other, form = fused
        _map(lw, op, lambda a, b, c: scalar_ops.fma(a, b, c, form),
             [*(lw.get(v) for v in product.operands), lw.get(other)])
        return
    _map(lw, op, lambda a, b: fn(a, b, dtype))


def _exp2_argument_fma(op: ir.Operation) -> tuple[ir.Operation, ir.Value, str] | None:
    """(the tile.mul, the other operand, the form: "a*b+c", "a*b-c" or "c-a*b") when `op` adds or
    subtracts a float32 product used nowhere else and is itself used only by
    `exp2(..., flush_to_zero=True)`: that argument is computed as one fma, rounded once (the
    approximate exponential's own error is larger; flash attention's `s * scale - max` becomes
    one FFMA instead of an FMUL and an FADD)."""
    if op.name not in ("tile.add", "tile.sub") or dtype_of(op.results[0].type) is not dt.float32 \
            or _rounding(op) is not None:
        return None
    uses = list(op.results[0].uses)
    if len(uses) != 1 or uses[0].owner.name != "tile.exp2" or \
            "flush_to_zero" not in uses[0].owner.attributes:
        return None
    for index, value in enumerate(op.operands):
        product = defining_op(value)
        if product is not None and product.name == "tile.mul" and _rounding(product) is None \
                and len(list(value.uses)) == 1 and dtype_of(value.type) is dt.float32:
            if op.name == "tile.add":
                return product, op.operands[1 - index], "a*b+c"
            return product, op.operands[1 - index], "a*b-c" if index == 0 else "c-a*b"
    return None


@lowers(*(r for r in op_table.UNARY.values() if r is not op_table.ISNAN))
def lower_unary(lw: Lowering, op: ir.Operation) -> None:
    fn, dtype = scalar_ops.UNARY[op.name], dtype_of(op.operands[0].type)
    if op.name == "tile.exp2" and "flush_to_zero" in op.attributes:
        fn = scalar_ops.exp2_ftz
    mode = _rounding(op)
    if mode in directed.MODES and op.name in directed.UNARY:  # sqrt with RZ, RM, RP
        _map(lw, op, lambda x: simt_directed.sqrt(x, dtype, mode))
        return
    approx = _approx(op)
    _map(lw, op, lambda x: fn(x, dtype, approx=approx))


@lowers(op_table.ISNAN)
def lower_isnan(lw: Lowering, op: ir.Operation) -> None:
    dtype = dtype_of(op.operands[0].type)
    _map(lw, op, lambda x: scalar_ops.isnan(x, dtype))


@lowers(op_table.CMP)
def lower_cmp(lw: Lowering, op: ir.Operation) -> None:
    predicate, dtype = ops.str_attr(op, "predicate"), dtype_of(op.operands[0].type)
    if dtype.restricted:  # compared as the float32 values they are
        args = _converted(lw, op, lambda regs: restricted.as_float32(regs, dtype)[0])
        _map(lw, op, lambda a, b: scalar_ops.compare(predicate, a, b, dt.float32), args)
        return
    _map(lw, op, lambda a, b: scalar_ops.compare(predicate, a, b, dtype))


@lowers(op_table.SELECT)
def lower_select(lw: Lowering, op: ir.Operation) -> None:
    _map(lw, op, arith.select)


@lowers(op_table.CAST)
def lower_cast(lw: Lowering, op: ir.Operation) -> None:
    src, dst = dtype_of(op.operands[0].type), dtype_of(op.results[0].type)
    mode = _rounding(op)
    if mode is not None and not rounding.is_exact(src, dst):  # RZ, RM, RP or RA
        _map(lw, op, lambda x: rounding.convert(x, src, dst, mode))
        return
    if src.restricted or dst.restricted:  # all registers at once: PTX converts fp8 in pairs
        (value,) = _converted(lw, op, lambda regs: restricted.convert(regs, src, dst))
        lw.set(op.results[0], _with_dtype(value, dst))
        return
    _map(lw, op, lambda x: scalar_ops.cast(x, src, dst))


def _converted(lw: Lowering, op: ir.Operation, fn) -> list[Any]:
    """Each operand with `fn(list of its registers) -> new registers` applied."""
    out = []
    for v in op.operands:
        value = lw.get(v)
        if isinstance(value, Distributed):
            value = Distributed(tuple(fn(list(value.regs))), value.layout, value.dtype,
                                value.shape)
        else:
            (value,) = fn([value])
        out.append(value)
    return out


def _with_dtype(value: Lowered, dtype: DType) -> Lowered:
    if isinstance(value, Distributed):
        return Distributed(value.regs, value.layout, dtype, value.shape)
    return value


@lowers(op_table.CONSTANT)
def lower_constant(lw: Lowering, op: ir.Operation) -> None:
    dtype = dtype_of(op.results[0].type)
    value = ops.constant_value(op.attributes["value"], dtype)
    lw.set(op.results[0], restricted.constant(dtype, value))
