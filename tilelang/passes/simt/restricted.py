"""Passes (simt): the restricted floats (8-bit floats, tfloat32) on registers.

Registers of the 8-bit floats are their bytes (i8: LLVM has no such types) and tfloat32
registers are float32 values whose low 13 mantissa bits are zero (values.scalar_type), so
loads, stores, selects and layout changes treat them as integers or float32. Only conversions
and constants need care, with the meaning of dialect/restricted.py:
- to an 8-bit float: PTX `cvt.rn.satfinite.{e4m3,e5m2}x2.{f32,f16x2}` (sm_89 and newer), two
  registers per instruction. float16 converts directly; other dtypes go through float32, which
  a float64 (or integer) reaches rounding to odd so that the final rounding is the only one;
- from an 8-bit float: `cvt.rn.f16x2.{e4m3,e5m2}x2`, exact, then on as float16 would;
- to tfloat32: round to nearest even on the float32 bits (PTX's `cvt.rn.tf32.f32` needs sm_90);
- float8_e8m0fnu is an exponent alone, and converts on the float32 bits, on any target (PTX's
  `cvt.*.ue8m0x2.f32` needs sm_100): from it, the byte shifted into float32's exponent field
  (0 is the subnormal 2**-127, 0xFF NaN); to it, the exponent field rounded up when the
  mantissa is at least half, saturating, NaN for negative values and NaN;
- float4_e2m1fn registers are bytes holding the 4-bit code (PTX's e2m1 conversions need
  sm_100): from it, float32's bits built from the code with integer work; to it, the code is
  the count of rounding steps a float32's magnitude passes (dialect/restricted.E2M1_STEPS),
  plus the sign bit, +6 for NaN;
- float8_e5m3fnu (no MLIR or PTX type before sm_107) converts on the float32 bits too: from it,
  a normal code shifted into float32's exponent and mantissa fields, a subnormal one converted
  and scaled by 2**-17; to it, float32's magnitude rounded to nearest even on its bits (normal
  codes) or by adding 64.0 (subnormal ones), saturating, NaN for negative values and NaN.
cuTile accepts the 8-bit floats from sm_90 on: tile-check-restricted-floats rejects older
targets (passes/check_restricted_floats.py).
"""

from __future__ import annotations

from collections.abc import Callable

import ml_dtypes
import mlir.ir as ir
import numpy as np
from mlir.dialects import arith, nvvm, vector

from tilelang.dialect.float8_e5m3 import (
    E5M3_DROPPED_BITS,
    E5M3_EXPONENT_OFFSET,
    E5M3_MAX,
    E5M3_NAN,
    E5M3_SUBNORMAL_BIAS,
    E5M3_SUBNORMAL_BIAS_BITS,
    E5M3_SUBNORMAL_STEP,
    e5m3_codes,
)
from tilelang.dialect.restricted import (
    E2M1_MAX,
    E2M1_STEPS,
    E8M0_MAX,
    E8M0_NAN,
    e2m1_codes,
    e8m0_bits,
)
from tilelang.language import dtypes as dt
from tilelang.language.dtypes import DType
from tilelang.passes.simt import scalar_ops
from tilelang.passes.simt.context import const
from tilelang.passes.simt.values import scalar_type

TF32_DROPPED_BITS = 13


def _i(bits: int) -> ir.Type:
    return ir.IntegerType.get_signless(bits)


def _vec2(t: ir.Type) -> ir.Type:
    return ir.VectorType.get([2], t)


# ----- conversions ---------------------------------------------------------------------------


def convert(values: list[ir.Value], src: DType, dst: DType) -> list[ir.Value]:
    """astype of every register in `values` from `src` to `dst`, one of them restricted."""
    if src is dst:
        return values
    if src in _WIDENED:
        values, src = [_WIDENED[src](v) for v in values], dt.float32
        if dst is dt.float32:
            return values
    if dst is dt.float4_e2m1fn:
        if src in dt.FLOAT8_DTYPES:
            values, src = _pairwise(values, lambda a, b: _float8_to_half(a, b, src)), dt.float16
        return [_single_to_e2m1(exact_float32(v, src)) for v in values]
    if dst in (dt.float8_e8m0fnu, dt.float8_e5m3fnu):
        if src in dt.FLOAT8_DTYPES:
            values, src = _pairwise(values, lambda a, b: _float8_to_half(a, b, src)), dt.float16
        to_byte = _single_to_e8m0 if dst is dt.float8_e8m0fnu else _single_to_e5m3
        return [to_byte(exact_float32(v, src)) for v in values]
    if src in dt.FLOAT8_DTYPES:
        values, src = _pairwise(values, lambda a, b: _float8_to_half(a, b, src)), dt.float16
    elif src is dt.tfloat32:
        src = dt.float32  # the register already is that float32 value
    if dst in dt.FLOAT8_DTYPES:
        if src.is_integer:  # exact below 2**24; anything larger saturates the same
            values = [scalar_ops.cast(v, src, dt.float32) for v in values]
        elif src is not dt.float16:
            values = [exact_float32(v, src) for v in values]
        narrow = _half_to_float8 if src is dt.float16 else _single_to_float8
        return _pairwise(values, lambda a, b: narrow(a, b, dst))
    if dst is dt.tfloat32:
        return [round_to_tfloat32(exact_float32(v, src)) for v in values]
    return [scalar_ops.cast(v, src, dst) for v in values]


def _pairwise(values: list[ir.Value], fn: Callable) -> list[ir.Value]:
    """`fn(a, b) -> (a', b')` over consecutive pairs (a lone last value is paired with itself)."""
    out: list[ir.Value] = []
    for i in range(0, len(values), 2):
        pair = values[i:i + 2]
        out.extend(fn(pair[0], pair[-1])[:len(pair)])
    return out


def _float8_to_half(a: ir.Value, b: ir.Value, src: DType) -> tuple[ir.Value, ir.Value]:
    packed = vector.from_elements(_vec2(_i(8)), [a, b])  # element i <-> element i
    half = nvvm.convert_f8x2_to_f16x2(_vec2(ir.F16Type.get()), packed, ir.Type.parse(src.mlir))
    return _elements(half)


def _half_to_float8(a: ir.Value, b: ir.Value, dst: DType) -> tuple[ir.Value, ir.Value]:
    packed = vector.from_elements(_vec2(ir.F16Type.get()), [a, b])
    return _elements(nvvm.convert_f16x2_to_f8x2(_vec2(_i(8)), packed, ir.Type.parse(dst.mlir)))


def _single_to_float8(a: ir.Value, b: ir.Value, dst: DType) -> tuple[ir.Value, ir.Value]:
    # cvt.rn.satfinite.<f8>x2.f32 d, a, b puts a's byte in the upper half of d, b's in the lower
    packed = nvvm.convert_f32x2_to_f8x2(_i(16), a, b, ir.Type.parse(dst.mlir),
                                        rnd=nvvm.FPRoundingMode.RN,
                                        sat=nvvm.SaturationMode.SATFINITE)
    upper = arith.shrui(packed, const(_i(16), 8))
    return arith.trunci(_i(8), upper), arith.trunci(_i(8), packed)


def _e8m0_to_single(byte: ir.Value) -> ir.Value:
    """2**(byte - 127): the byte in float32's exponent field; 0 is the subnormal 2**-127 and
    0xFF NaN (three integer instructions and two selects)."""
    i32 = _i(32)
    b = arith.extui(i32, byte)
    bits = arith.shli(b, const(i32, 23))
    bits = arith.select(_eq(b, 0), const(i32, 0x00400000), bits)
    bits = arith.select(_eq(b, E8M0_NAN), const(i32, 0x7FC00000), bits)
    return arith.bitcast(ir.F32Type.get(), bits)


def _single_to_e8m0(f: ir.Value) -> ir.Value:
    """The nearest power of two's byte (dialect/restricted.e8m0_bits, on the float32 bits)."""
    i32 = _i(32)
    bits = arith.bitcast(i32, f)
    exponent = arith.andi(arith.shrui(bits, const(i32, 23)), const(i32, 0xFF))
    mantissa = arith.andi(bits, const(i32, 0x7FFFFF))
    up = arith.cmpi(arith.CmpIPredicate.uge, mantissa, const(i32, 0x400000))
    normal = arith.addi(exponent, arith.extui(i32, up))
    sub_up = arith.cmpi(arith.CmpIPredicate.uge, mantissa, const(i32, 0x600000))
    out = arith.select(_eq(exponent, 0), arith.extui(i32, sub_up), normal)
    out = arith.minui(out, const(i32, E8M0_MAX))
    negative = arith.cmpi(arith.CmpIPredicate.ugt, bits, const(i32, 0x80000000))  # -0.0 is 0
    nan = arith.cmpf(arith.CmpFPredicate.UNO, f, f)
    out = arith.select(arith.ori(negative, nan), const(i32, E8M0_NAN), out)
    return arith.trunci(_i(8), out)


def _e2m1_to_single(code: ir.Value) -> ir.Value:
    """float32 of a float4_e2m1fn code: magnitudes 2..7 are (m << 22) + (126 << 23) (the code's
    exponent and mantissa bits land in float32's), 1 is 0.5, 0 is 0; the sign bit on top."""
    i32 = _i(32)
    c = arith.extui(i32, code)
    magnitude = arith.andi(c, const(i32, 0x7))
    normal = arith.addi(arith.shli(magnitude, const(i32, 22)), const(i32, 126 << 23))
    small = arith.select(_eq(magnitude, 1), const(i32, 126 << 23), const(i32, 0))
    is_normal = arith.cmpi(arith.CmpIPredicate.uge, magnitude, const(i32, 2))
    bits = arith.select(is_normal, normal, small)
    sign = arith.shli(arith.andi(c, const(i32, 0x8)), const(i32, 28))
    return arith.bitcast(ir.F32Type.get(), arith.ori(bits, sign))


def _single_to_e2m1(f: ir.Value) -> ir.Value:
    """The code of the nearest float4_e2m1fn value (dialect/restricted.e2m1_codes)."""
    i32 = _i(32)
    magnitude = _abs(f)
    code = const(i32, 0)
    for step, up in E2M1_STEPS:
        pred = arith.CmpFPredicate.OGE if up else arith.CmpFPredicate.OGT
        passed = arith.cmpf(pred, magnitude, const(f.type, step))
        code = arith.addi(code, arith.extui(i32, passed))
    sign = arith.shli(arith.shrui(arith.bitcast(i32, f), const(i32, 31)), const(i32, 3))
    code = arith.ori(code, sign)
    nan = arith.cmpf(arith.CmpFPredicate.UNO, f, f)
    return arith.trunci(_i(8), arith.select(nan, const(i32, E2M1_MAX), code))


def _e5m3_to_single(byte: ir.Value) -> ir.Value:
    """float32 of a float8_e5m3fnu byte (dialect/restricted.e5m3_values): codes 8 and up are
    (c << 20) + (112 << 23), smaller ones c * 2**-17, 0xFF NaN."""
    i32, f32 = _i(32), ir.F32Type.get()
    c = arith.extui(i32, byte)
    normal = arith.addi(arith.shli(c, const(i32, E5M3_DROPPED_BITS)),
                        const(i32, E5M3_EXPONENT_OFFSET << 20))
    subnormal = arith.mulf(arith.uitofp(f32, c), const(f32, E5M3_SUBNORMAL_STEP))
    is_normal = arith.cmpi(arith.CmpIPredicate.uge, c, const(i32, 8))
    value = arith.select(is_normal, arith.bitcast(f32, normal), subnormal)
    return arith.select(_eq(c, E5M3_NAN), const(f32, float("nan")), value)


def _single_to_e5m3(f: ir.Value) -> ir.Value:
    """The float8_e5m3fnu byte of a float32 (dialect/restricted.e5m3_codes, on the bits)."""
    i32, f32 = _i(32), ir.F32Type.get()
    bits = arith.bitcast(i32, f)
    magnitude = arith.andi(bits, const(i32, 0x7FFFFFFF))
    odd = arith.andi(arith.shrui(magnitude, const(i32, E5M3_DROPPED_BITS)), const(i32, 1))
    half = const(i32, (1 << (E5M3_DROPPED_BITS - 1)) - 1)
    rounded = arith.shrui(arith.addi(arith.addi(magnitude, half), odd),
                          const(i32, E5M3_DROPPED_BITS))
    normal = arith.subi(rounded, const(i32, E5M3_EXPONENT_OFFSET))
    biased = arith.addf(arith.bitcast(f32, magnitude), const(f32, E5M3_SUBNORMAL_BIAS))
    subnormal = arith.subi(arith.bitcast(i32, biased), const(i32, E5M3_SUBNORMAL_BIAS_BITS))
    is_normal = arith.cmpi(arith.CmpIPredicate.uge, magnitude, const(i32, 113 << 23))
    code = arith.minui(arith.select(is_normal, normal, subnormal), const(i32, E5M3_MAX))
    negative = arith.cmpi(arith.CmpIPredicate.ugt, bits, const(i32, 0x80000000))  # -0.0 is 0
    nan = arith.cmpf(arith.CmpFPredicate.UNO, f, f)
    code = arith.select(arith.ori(negative, nan), const(i32, E5M3_NAN), code)
    return arith.trunci(_i(8), code)


_WIDENED = {dt.float8_e8m0fnu: _e8m0_to_single, dt.float4_e2m1fn: _e2m1_to_single,
            dt.float8_e5m3fnu: _e5m3_to_single}  # restricted floats converted on float32 bits


def _eq(x: ir.Value, value: int) -> ir.Value:
    return arith.cmpi(arith.CmpIPredicate.eq, x, const(x.type, value))


def _elements(v: ir.Value) -> tuple[ir.Value, ir.Value]:
    return vector.extract(v, [], [0]), vector.extract(v, [], [1])


def exact_float32(x: ir.Value, src: DType) -> ir.Value:
    """float32 from which one more rounding to at most 22 mantissa bits equals rounding `x`:
    exact for narrower floats, rounded to odd for float64 and integers."""
    if src in (dt.float32, dt.tfloat32):
        return x
    if (src.is_float and src.bitwidth < 32) or src is dt.bool_:
        return scalar_ops.cast(x, src, dt.float32)
    if src.is_integer:  # exact in float64 up to 2**53; beyond, no restricted float can tell
        x = scalar_ops.cast(x, src, dt.float64)
    return _round_to_odd(x)


def _round_to_odd(x: ir.Value) -> ir.Value:
    """float64 -> float32 toward zero, with the last bit set when inexact."""
    f = arith.truncf(ir.F32Type.get(), x)
    back = arith.extf(ir.F64Type.get(), f)
    bits = arith.bitcast(_i(32), f)
    beyond = arith.cmpf(arith.CmpFPredicate.OGT, _abs(back), _abs(x))  # rounded away from 0
    bits = arith.select(beyond, arith.subi(bits, const(_i(32), 1)), bits)
    inexact = arith.cmpf(arith.CmpFPredicate.ONE, back, x)
    bits = arith.ori(bits, arith.extui(_i(32), inexact))
    return arith.bitcast(ir.F32Type.get(), bits)


def _abs(x: ir.Value) -> ir.Value:
    return arith.select(arith.cmpf(arith.CmpFPredicate.OLT, x, const(x.type, 0.0)),
                        arith.negf(x), x)


def round_to_tfloat32(f: ir.Value) -> ir.Value:
    """Round to nearest even on 10 mantissa bits; infinities and NaNs are left as they are."""
    bits = arith.bitcast(_i(32), f)
    exponent = const(_i(32), 0x7F800000)
    special = arith.cmpi(arith.CmpIPredicate.eq, arith.andi(bits, exponent), exponent)
    odd = arith.andi(arith.shrui(bits, const(_i(32), TF32_DROPPED_BITS)), const(_i(32), 1))
    half = const(_i(32), (1 << (TF32_DROPPED_BITS - 1)) - 1)
    rounded = arith.addi(arith.addi(bits, half), odd)
    rounded = arith.andi(rounded, const(_i(32), -(1 << TF32_DROPPED_BITS)))
    return arith.bitcast(ir.F32Type.get(), arith.select(special, bits, rounded))


# ----- constants and comparisons ---------------------------------------------------------------


def constant(dtype: DType, value: bool | int | float) -> ir.Value:
    """A register constant of `dtype` (an 8-bit float's is its bit pattern)."""
    if dtype is dt.float8_e8m0fnu:  # ml_dtypes' conversion makes 0 NaN; ours saturates
        return const(_i(8), int(e8m0_bits(np.array([value], np.float64))[0]))
    if dtype is dt.float4_e2m1fn:
        return const(_i(8), int(e2m1_codes(np.array([value], np.float32))[0]))
    if dtype is dt.float8_e5m3fnu:  # the value is representable: exact in float32
        return const(_i(8), int(e5m3_codes(np.array([value], np.float32))[0]))
    if dtype in dt.FLOAT8_DTYPES:
        bits = np.array(value, dtype=getattr(ml_dtypes, dtype.numpy)).view(np.uint8)
        return const(_i(8), int(bits))
    return const(scalar_type(dtype), value)


def as_float32(values: list[ir.Value], dtype: DType) -> tuple[list[ir.Value], DType]:
    """Registers of a restricted float as float32 (exact), for comparisons and printing."""
    if not dtype.restricted:
        return values, dtype
    return convert(values, dtype, dt.float32), dt.float32
