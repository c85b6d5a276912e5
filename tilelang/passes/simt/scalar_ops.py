"""Passes (simt): one element of each element-wise op, on registers (semantics as the
interpreter's, see tilelang/dialect/semantics.py)."""

from __future__ import annotations

from collections.abc import Callable

import mlir.ir as ir
from mlir.dialects import arith, llvm, math, scf

from tilelang import settings
from tilelang.language import dtypes as dt
from tilelang.language.dtypes import DType
from tilelang.passes.simt.context import const
from tilelang.passes.simt.values import scalar_type

F32 = dt.float32
HALF = (dt.float16, dt.bfloat16)


def widen(value: ir.Value, dtype: DType) -> ir.Value:
    """Half-precision values are computed in float32 (rounded once at the end)."""
    return arith.extf(ir.F32Type.get(), value) if dtype in HALF else value


def narrow(value: ir.Value, dtype: DType) -> ir.Value:
    return arith.truncf(scalar_type(dtype), value) if dtype in HALF else value


def _float_binary(fn: Callable[[ir.Value, ir.Value], ir.Value]):
    def emit(a: ir.Value, b: ir.Value, dtype: DType) -> ir.Value:
        return narrow(fn(widen(a, dtype), widen(b, dtype)), dtype)

    return emit


def _is_neg(x: ir.Value, dtype: DType) -> ir.Value:
    if dtype.is_float:
        return arith.cmpf(arith.CmpFPredicate.OLT, x, const(x.type, 0.0))
    return arith.cmpi(arith.CmpIPredicate.slt, x, const(x.type, 0))


def _floor_fix(r: ir.Value, b: ir.Value, dtype: DType) -> ir.Value:
    """Python's modulo from C's remainder: add b when r is non-zero with the other sign."""
    zero = const(r.type, 0.0 if dtype.is_float else 0)
    pred = arith.CmpFPredicate.UNE if dtype.is_float else arith.CmpIPredicate.ne
    nonzero = arith.cmpf(pred, r, zero) if dtype.is_float else arith.cmpi(pred, r, zero)
    differ = arith.xori(_is_neg(r, dtype), _is_neg(b, dtype))
    fixed = arith.addf(r, b) if dtype.is_float else arith.addi(r, b)
    return arith.select(arith.andi(nonzero, differ), fixed, r)


def _contractable(fn: Callable[..., ir.Value]) -> Callable[[ir.Value, ir.Value], ir.Value]:
    """`fn` marked `contract` with TILELANG_FP_CONTRACT=1: LLVM may fuse a multiply and the
    add or subtract of its result into one fma, rounded once (settings.fp_contract_enabled
    says why it is off by default)."""
    if not settings.fp_contract_enabled():
        return fn
    return lambda a, b: fn(a, b, fastmath=ir.Attribute.parse("#arith.fastmath<contract>"))


def add(a, b, dtype):
    if dtype.is_float:
        return _float_binary(_contractable(arith.addf))(a, b, dtype)
    return arith.addi(a, b)


def sub(a, b, dtype):
    if dtype.is_float:
        return _float_binary(_contractable(arith.subf))(a, b, dtype)
    return arith.subi(a, b)


def mul(a, b, dtype):
    if dtype.is_float:
        return _float_binary(_contractable(arith.mulf))(a, b, dtype)
    return arith.muli(a, b)


def div(a, b, dtype):
    return _float_binary(arith.divf)(a, b, dtype)


def approximate_div(a, b, dtype):
    """`div.full.f32`: about 2 ulp, far cheaper than IEEE division (RoundingMode.APPROX)."""
    f32 = ir.F32Type.get()
    asm = lambda x, y: llvm.inline_asm(f32, [x, y], "div.full.f32 $0, $1, $2;", "=f,f,f")  # noqa: E731
    return _float_binary(asm)(a, b, dtype)


def _safe_divisor(b: ir.Value, dtype: DType) -> tuple[ir.Value, ir.Value, ir.Value | None]:
    """(divisor, b == 0, b == -1 or None): LLVM's integer division by zero, and the signed
    MIN // -1, are undefined behaviour that the optimiser may turn into anything, so the
    hardware never sees them: those divide by 1 and the caller selects the documented result
    (0 for a zero divisor; -a and 0 for -1, which wrap as NumPy's do)."""
    zero = arith.cmpi(arith.CmpIPredicate.eq, b, const(b.type, 0))
    minus_one = None if dtype.kind in "ub" else \
        arith.cmpi(arith.CmpIPredicate.eq, b, const(b.type, -1))
    unsafe = zero if minus_one is None else arith.ori(zero, minus_one)
    return arith.select(unsafe, const(b.type, 1), b), zero, minus_one


def floordiv(a, b, dtype):
    if dtype.is_float:  # the quotient is rounded to the dtype before the floor (as cuTile does)
        return narrow(math.floor(widen(div(a, b, dtype), dtype)), dtype)
    safe, zero, minus_one = _safe_divisor(b, dtype)
    if minus_one is None:
        quotient = arith.divui(a, safe)
    else:
        quotient = arith.select(minus_one, arith.subi(const(a.type, 0), a),
                                arith.floordivsi(a, safe))
    return arith.select(zero, const(a.type, 0), quotient)


def mod(a, b, dtype):
    if dtype.is_float:
        return _float_binary(lambda x, y: _floor_fix(arith.remf(x, y), y, F32))(a, b, dtype)
    safe, zero, minus_one = _safe_divisor(b, dtype)
    if minus_one is None:
        return arith.select(zero, const(a.type, 0), arith.remui(a, safe))
    remainder = _floor_fix(arith.remsi(a, safe), safe, dtype)  # 0 where safe is 1
    return arith.select(zero, const(a.type, 0), remainder)


def power(a, b, dtype):
    if dtype.is_float:
        return _float_binary(math.powf)(a, b, dtype)
    return _int_power(a, b, dtype)


def _int_power(a: ir.Value, b: ir.Value, dtype: DType) -> ir.Value:
    """Square-and-multiply while exponent bits remain (a loop: unrolled over every bit, the
    select chain was miscompiled at -O3, tests/fuzz/regressions/seed118331_gpu.json and two
    more); negative exponents truncate 1/a**n."""
    t = a.type
    one, zero = const(t, 1), const(t, 0)
    exponent = b
    if dtype.kind == "i":
        exponent = arith.select(arith.cmpi(arith.CmpIPredicate.slt, b, zero), zero, b)
    loop = scf.WhileOp([t, t, t], [one, a, exponent])
    before = loop.before.blocks.append(t, t, t)
    with ir.InsertionPoint(before):
        more = arith.cmpi(arith.CmpIPredicate.ne, before.arguments[2], zero)
        scf.ConditionOp(more, list(before.arguments))
    after = loop.after.blocks.append(t, t, t)
    with ir.InsertionPoint(after):
        result, base, bits = after.arguments
        odd = arith.cmpi(arith.CmpIPredicate.ne, arith.andi(bits, one), zero)
        result = arith.select(odd, arith.muli(result, base), result)
        scf.YieldOp([result, arith.muli(base, base), arith.shrui(bits, one)])
    result = loop.results[0]
    if dtype.kind == "u":
        return result
    negative = arith.cmpi(arith.CmpIPredicate.slt, b, zero)
    is_one = arith.cmpi(arith.CmpIPredicate.eq, a, one)
    is_minus_one = arith.cmpi(arith.CmpIPredicate.eq, a, const(t, -1))
    even = arith.cmpi(arith.CmpIPredicate.eq, arith.andi(b, one), zero)
    minus_one_pow = arith.select(even, one, const(t, -1))
    inverse = arith.select(is_one, one, arith.select(is_minus_one, minus_one_pow, zero))
    return arith.select(negative, inverse, result)


# LLVM's maxnum/minnum (NaN-ignoring, as arith's maxnumf/minnumf) are one PTX max/min; the
# arith ops would be expanded into two compares and two selects by arith-expand
def minimum(a, b, dtype):
    if dtype.is_float:
        return _float_binary(llvm.intr_minnum)(a, b, dtype)
    return arith.minui(a, b) if dtype.kind in "ub" else arith.minsi(a, b)


def maximum(a, b, dtype):
    if dtype.is_float:
        return _float_binary(llvm.intr_maxnum)(a, b, dtype)
    return arith.maxui(a, b) if dtype.kind in "ub" else arith.maxsi(a, b)


def _shift(a: ir.Value, b: ir.Value, dtype: DType, left: bool) -> ir.Value:
    """Shifts by a negative amount or by the width or more saturate, like PTX's. The amount
    is first clamped to the width: the NVPTX backend folds `select(b < 64, a << b, 0)` into
    one shl.b64, whose amount is 32 bits, so 2**32 or -2**63 would shift by their low word."""
    width = const(a.type, dtype.bitwidth)
    b = arith.minui(b, width)  # negative amounts are huge
    in_range = arith.cmpi(arith.CmpIPredicate.ult, b, width)
    safe = arith.select(in_range, b, const(a.type, 0))
    if left:
        return arith.select(in_range, arith.shli(a, safe), const(a.type, 0))
    if dtype.kind == "u":
        return arith.select(in_range, arith.shrui(a, safe), const(a.type, 0))
    fill = arith.select(_is_neg(a, dtype), const(a.type, -1), const(a.type, 0))
    return arith.select(in_range, arith.shrsi(a, safe), fill)


BINARY: dict[str, Callable[[ir.Value, ir.Value, DType], ir.Value]] = {
    "tile.add": add,
    "tile.sub": sub,
    "tile.mul": mul,
    "tile.div": div,
    "tile.floordiv": floordiv,
    "tile.mod": mod,
    "tile.pow": power,
    "tile.minimum": minimum,
    "tile.maximum": maximum,
    "tile.and": lambda a, b, d: arith.andi(a, b),
    "tile.or": lambda a, b, d: arith.ori(a, b),
    "tile.xor": lambda a, b, d: arith.xori(a, b),
    "tile.shl": lambda a, b, d: _shift(a, b, d, left=True),
    "tile.shr": lambda a, b, d: _shift(a, b, d, left=False),
    "tile.atan2": _float_binary(math.atan2),
}


def _float_unary(fn: Callable[[ir.Value], ir.Value]):
    def emit(x: ir.Value, dtype: DType, approx: bool = False) -> ir.Value:
        return narrow(fn(widen(x, dtype)), dtype)

    return emit


def _exp(x: ir.Value, dtype: DType, approx: bool = False) -> ir.Value:
    flags = ir.Attribute.parse("#arith.fastmath<afn>") if approx else None
    return narrow(math.exp(widen(x, dtype), fastmath=flags), dtype)


def fma(a: ir.Value, b: ir.Value, c: ir.Value, form: str) -> ir.Value:
    """float32 a * b + c, a * b - c or c - a * b (`form`), rounded once."""
    if form == "a*b-c":
        c = arith.negf(c)
    elif form == "c-a*b":
        a = arith.negf(a)
    return math.fma(a, b, c)


def exp2_ftz(x: ir.Value, dtype: DType, approx: bool = False) -> ir.Value:
    """`ex2.approx.ftz.f32`: one MUFU.EX2, where the default (subnormal inputs and results
    kept) costs three more instructions around it (flush_to_zero=True)."""
    f32 = ir.F32Type.get()
    fast = llvm.inline_asm(f32, [widen(x, dtype)], "ex2.approx.ftz.f32 $0, $1;", "=f,f")
    return narrow(fast, dtype)


def _tanh(x: ir.Value, dtype: DType, approx: bool = False) -> ir.Value:
    if not approx:
        return narrow(math.tanh(widen(x, dtype)), dtype)
    f32 = ir.F32Type.get()
    fast = llvm.inline_asm(f32, [widen(x, dtype)], "tanh.approx.f32 $0, $1;", "=f,f")
    return narrow(fast, dtype)


def _ieee_sqrt(x: ir.Value) -> ir.Value:
    """Correctly rounded sqrt (sqrt.rn): libdevice's sqrtf is sqrt.approx under the default
    reflection flags, and convert-gpu-to-nvvm routes llvm.intr.sqrt to libdevice."""
    suffix = "d" if isinstance(x.type, ir.F64Type) else "f"
    return llvm.call_intrinsic(x.type, f"llvm.nvvm.sqrt.rn.{suffix}", [x], [], [])


def _neg(x, dtype, approx=False):
    return arith.negf(x) if dtype.is_float else _int_neg(x, dtype)


def _int_neg(x: ir.Value, dtype: DType) -> ir.Value:
    """-x as ~x + 1 in inline PTX. ptxas 13 (-O3) folds a `neg` (or `0 - x`) into the
    three-input integer max/min it forms (VIMNMX3) and drops it, so `max(-a, -b, -c)` took one
    operand un-negated (tests/fuzz/regressions/seed117797_gpu.json); LLVM would turn ~x + 1
    back into 0 - x, so the two's complement is spelt where only ptxas sees it. Bytes go
    through a 16-bit register (PTX has no 8-bit ones)."""
    width = max(dtype.bitwidth, 16)
    letter = {16: "h", 32: "r", 64: "l"}[width]
    wide = ir.IntegerType.get_signless(width)
    value = arith.extui(wide, x) if dtype.bitwidth < 16 else x
    text = f"not.b{width} $0, $1;\n\tadd.s{width} $0, $0, 1;"
    negated = llvm.inline_asm(wide, [value], text, f"={letter},{letter}")
    return arith.trunci(x.type, negated) if dtype.bitwidth < 16 else negated


def _invert(x, dtype, approx=False):
    return arith.xori(x, const(x.type, -1 if dtype.kind != "b" else 1))


def _abs(x, dtype, approx=False):
    if dtype.is_float:
        return math.absf(x)
    return arith.select(_is_neg(x, dtype), arith.subi(const(x.type, 0), x), x)


UNARY: dict[str, Callable[..., ir.Value]] = {
    "tile.neg": _neg,
    "tile.invert": _invert,
    "tile.abs": _abs,
    "tile.exp": _exp,
    "tile.exp2": _float_unary(math.exp2),
    "tile.log": _float_unary(math.log),
    "tile.log2": _float_unary(math.log2),
    "tile.sqrt": _float_unary(lambda x: _ieee_sqrt(x)),
    "tile.rsqrt": _float_unary(math.rsqrt),
    "tile.sin": _float_unary(math.sin),
    "tile.cos": _float_unary(math.cos),
    "tile.tan": _float_unary(math.tan),
    "tile.sinh": _float_unary(math.sinh),
    "tile.cosh": _float_unary(math.cosh),
    "tile.tanh": _tanh,
    "tile.floor": _float_unary(math.floor),
    "tile.ceil": _float_unary(math.ceil),
}

FLOAT_PREDICATES = {
    "eq": arith.CmpFPredicate.OEQ, "ne": arith.CmpFPredicate.UNE, "lt": arith.CmpFPredicate.OLT,
    "le": arith.CmpFPredicate.OLE, "gt": arith.CmpFPredicate.OGT, "ge": arith.CmpFPredicate.OGE,
}
SIGNED_PREDICATES = {
    "eq": arith.CmpIPredicate.eq, "ne": arith.CmpIPredicate.ne, "lt": arith.CmpIPredicate.slt,
    "le": arith.CmpIPredicate.sle, "gt": arith.CmpIPredicate.sgt, "ge": arith.CmpIPredicate.sge,
}
UNSIGNED_PREDICATES = {
    "eq": arith.CmpIPredicate.eq, "ne": arith.CmpIPredicate.ne, "lt": arith.CmpIPredicate.ult,
    "le": arith.CmpIPredicate.ule, "gt": arith.CmpIPredicate.ugt, "ge": arith.CmpIPredicate.uge,
}


def compare(predicate: str, a: ir.Value, b: ir.Value, dtype: DType) -> ir.Value:
    if dtype.is_float:
        return arith.cmpf(FLOAT_PREDICATES[predicate], widen(a, dtype), widen(b, dtype))
    table = UNSIGNED_PREDICATES if dtype.kind in "ub" else SIGNED_PREDICATES
    return arith.cmpi(table[predicate], a, b)


def isnan(x: ir.Value, dtype: DType) -> ir.Value:
    wide = widen(x, dtype)
    return arith.cmpf(arith.CmpFPredicate.UNO, wide, wide)


def cast(x: ir.Value, src: DType, dst: DType) -> ir.Value:
    """astype: float->int truncates and saturates (NaN -> 0); int->int wraps; ->bool is != 0."""
    target = scalar_type(dst)
    if src is dst or (src.kind in "iu" and dst.kind in "iu" and src.bitwidth == dst.bitwidth):
        return x
    if dst.kind == "b":
        return compare("ne", x, const(x.type, 0.0 if src.is_float else 0), src)
    if src.is_float and dst.is_float:
        return _float_to_float(x, src, dst)
    if src.is_float:
        wide = widen(x, src)
        sign = "s" if dst.kind == "i" else "u"
        name = f"llvm.fpto{sign}i.sat.i{dst.bitwidth}.f{32 if src in HALF else src.bitwidth}"
        return llvm.call_intrinsic(target, name, [wide], [], [])
    if dst.is_float:  # directly, even to half types: rounding through f32 would round twice
        conv = arith.uitofp if src.kind in "ub" else arith.sitofp
        return conv(target, x)
    if dst.bitwidth < src.bitwidth:
        return arith.trunci(target, x)
    return arith.extui(target, x) if src.kind in "ub" else arith.extsi(target, x)


def _float_to_float(x: ir.Value, src: DType, dst: DType) -> ir.Value:
    if src in HALF and dst in HALF:
        return arith.truncf(scalar_type(dst), arith.extf(ir.F32Type.get(), x))
    if dst.bitwidth > src.bitwidth:
        return arith.extf(scalar_type(dst), x)
    return arith.truncf(scalar_type(dst), x)
