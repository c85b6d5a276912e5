"""Passes (simt): astype between floats with a rounding mode other than nearest even, on one
register (the meaning is dialect/rounding.py's).

The front end lets through only the conversions of cuTile's table (frontend/rounding_modes.py);
of those, the ones that can round are lowered with PTX's own conversions:
- float64 -> float32: `cvt.{rz,rm,rp}.f32.f64`; a float64 going further (only RZ may) is
  narrowed to float32 toward zero first, which never changes a later rounding toward zero;
- float32 -> float16: `cvt.{rz,rm,rp}.f16.f32` (bfloat16, float16 and tfloat32 sources are
  float32 values first, exactly); RA, which PTX has no float16 form of, is the nearest-even
  result except at a tie, where the truncated result moves one step out;
- float32 -> bfloat16: `cvt.rz.bf16.f32` (RZ is the only mode cuTile allows astype; RM and RP,
  which directed arithmetic on bfloat16 needs (simt/directed.py), are done on the bits);
- float32 -> tfloat32: on the bits, as the round-to-nearest conversion (passes/simt/restricted.py):
  RZ clears the 13 low mantissa bits, RA adds half a tfloat32 ulp first.
All of these are available from sm_80 on.
"""

from __future__ import annotations

import mlir.ir as ir
from mlir.dialects import arith, llvm, math

from tilelang.language import dtypes as dt
from tilelang.language.dtypes import DType
from tilelang.passes.simt import restricted, scalar_ops
from tilelang.passes.simt.context import const

PTX_MODES = {"zero": "rz", "negative_inf": "rm", "positive_inf": "rp"}
TF32_DROPPED_BITS = 13


def is_exact(src: DType, dst: DType) -> bool:
    """Whether every value of `src` is one of `dst` (then every mode gives the same result)."""
    return (src is dst or dst is dt.float64 or src in dt.FLOAT8_DTYPES
            or (dst in (dt.float32, dt.tfloat32) and src in (dt.float16, dt.bfloat16))
            or (src is dt.float8_e5m3fnu and dst is not dt.float16)  # only 65536+ overflow
            or (dst is dt.float32 and src is dt.tfloat32))


def convert(x: ir.Value, src: DType, dst: DType, mode: str) -> ir.Value:
    """astype of register `x` from float `src` to float `dst` rounding with `mode` (a
    conversion that can round: not is_exact)."""
    if src is dt.float64:
        x = _cvt(x, f"{PTX_MODES[mode]}.f32.f64", ir.F32Type.get(), "=f,d")
        if dst is dt.float32:
            return x
    elif src in (dt.float16, dt.bfloat16):
        x = arith.extf(ir.F32Type.get(), x)  # exact
    elif src is dt.float8_e5m3fnu:  # to float16 with RZ (cuTile's table): its float32, exactly
        (x,) = restricted.convert([x], src, dt.float32)
    if dst is dt.tfloat32:
        return _to_tfloat32(x, mode)
    if mode == "nearest_away":  # to float16 only: bfloat16 takes RN and RZ (cuTile's table)
        return _half_ties_away(x)
    return narrow_float32(x, dst, mode)


def narrow_float32(x: ir.Value, dst: DType, mode: str) -> ir.Value:
    """A float32 register to float16 or bfloat16 rounded toward zero, -inf or +inf (`mode`)."""
    if dst is dt.float16:
        return _half(x, f"{PTX_MODES[mode]}.f16.f32", dst)
    if mode == "zero":
        return _half(x, "rz.bf16.f32", dst)
    return _bfloat16_directed(x, mode)


def _cvt(x: ir.Value, suffix: str, result: ir.Type, constraints: str) -> ir.Value:
    return llvm.inline_asm(result, [x], f"cvt.{suffix} $0, $1;", constraints)


def _half(x: ir.Value, suffix: str, dst: DType) -> ir.Value:
    """A float32 register converted by `cvt.<suffix>` to a 16-bit float."""
    bits = _cvt(x, suffix, ir.IntegerType.get_signless(16), "=h,f")
    return arith.bitcast(ir.Type.parse(dst.mlir), bits)


def _half_ties_away(x: ir.Value) -> ir.Value:
    """float32 -> float16, to nearest with ties away: at a tie (|x| halfway between the
    truncated value and the next one out) the next one out, else nearest even."""
    f16, f32, i16 = ir.F16Type.get(), ir.F32Type.get(), ir.IntegerType.get_signless(16)
    truncated = _half(x, "rz.f16.f32", dt.float16)
    outward = arith.bitcast(f16, arith.addi(arith.bitcast(i16, truncated), const(i16, 1)))
    low, high = (math.absf(arith.extf(f32, v)) for v in (truncated, outward))
    twice = arith.addf(math.absf(x), math.absf(x))  # exact; so is the sum of two halves
    tie = arith.cmpf(arith.CmpFPredicate.OEQ, twice, arith.addf(low, high))
    return arith.select(tie, outward, scalar_ops.cast(x, dt.float32, dt.float16))


def _to_tfloat32(x: ir.Value, mode: str) -> ir.Value:
    """RZ or RA on the float32 bits; infinities and NaNs are left as they are."""
    i32 = ir.IntegerType.get_signless(32)
    bits = arith.bitcast(i32, x)
    exponent = const(i32, 0x7F800000)
    special = arith.cmpi(arith.CmpIPredicate.eq, arith.andi(bits, exponent), exponent)
    rounded = bits
    if mode == "nearest_away":
        rounded = arith.addi(bits, const(i32, 1 << (TF32_DROPPED_BITS - 1)))
    rounded = arith.andi(rounded, const(i32, -(1 << TF32_DROPPED_BITS)))
    return arith.bitcast(ir.F32Type.get(), arith.select(special, bits, rounded))


def _bfloat16_directed(x: ir.Value, mode: str) -> ir.Value:
    """float32 -> bfloat16 toward -inf or +inf, on the bits (PTX's cvt to bf16 rounds only to
    nearest or toward zero): bfloat16 is the high half of float32, so the result is the
    truncated high half, one step further from zero where low bits are lost and the sign is
    the mode's (negative for RM). A NaN stays NaN (its payload may sit in the low half)."""
    i32, i16 = ir.IntegerType.get_signless(32), ir.IntegerType.get_signless(16)
    bits = arith.bitcast(i32, x)
    high = arith.trunci(i16, arith.shrui(bits, const(i32, 16)))
    inexact = arith.cmpi(arith.CmpIPredicate.ne, arith.andi(bits, const(i32, 0xFFFF)),
                         const(i32, 0))
    negative = arith.cmpi(arith.CmpIPredicate.slt, bits, const(i32, 0))
    outward = negative if mode == "negative_inf" else arith.xori(negative, const(
        ir.IntegerType.get_signless(1), 1))
    step = arith.extui(i16, arith.andi(inexact, outward))
    is_nan = arith.cmpf(arith.CmpFPredicate.UNO, x, x)
    rounded = arith.select(is_nan, const(i16, 0x7FC0), arith.addi(high, step))
    return arith.bitcast(ir.BF16Type.get(), rounded)
