"""Passes (simt): arithmetic with a directed rounding (RZ, RM, RP) on one register (the meaning
is dialect/directed.py's).

PTX has every IEEE rounding for float32 and float64 `add`, `mul`, `div` and `sqrt` (`add.rz.f32`,
`div.rm.f64`, `sqrt.rp.f32`, ...; a division or square root with a rounding mode is the
correctly rounded one), reached through NVVM's intrinsics (`llvm.nvvm.add.rz.f`). A subtraction
is the addition of the negated operand, which is exact. float16 and bfloat16 compute in float32
with the same rounding, then narrow in the same direction: a float32 result rounded in one
direction, then to a 16-bit float in that direction, is the exact result rounded once (the
16-bit values are float32 values). float16 narrows with `cvt.{rz,rm,rp}.f16.f32`, bfloat16
with `cvt.rz.bf16.f32` or, for RM and RP, on the float32 bits (simt/rounding.py).
"""

from __future__ import annotations

import mlir.ir as ir
from mlir.dialects import arith, llvm

from tilelang.language import dtypes as dt
from tilelang.language.dtypes import DType
from tilelang.passes.simt import rounding

HALF = (dt.float16, dt.bfloat16)
_INTRINSIC = {"tile.add": "add", "tile.sub": "add", "tile.mul": "mul", "tile.div": "div"}


def binary(name: str, a: ir.Value, b: ir.Value, dtype: DType, mode: str) -> ir.Value:
    """`a <name> b` (tile.add/sub/mul/div on float registers of `dtype`) rounded with `mode`."""
    a, b = _widen(a, dtype), _widen(b, dtype)
    if name == "tile.sub":
        b = arith.negf(b)
    result = _intrinsic(_INTRINSIC[name], mode, [a, b])
    return _narrow(result, dtype, mode)


def sqrt(x: ir.Value, dtype: DType, mode: str) -> ir.Value:
    return _narrow(_intrinsic("sqrt", mode, [_widen(x, dtype)]), dtype, mode)


def _intrinsic(op: str, mode: str, args: list[ir.Value]) -> ir.Value:
    """`llvm.nvvm.<op>.<rz|rm|rp>.<f|d>` (no .ftz: subnormals are kept, as in the meaning)."""
    kind = "d" if isinstance(args[0].type, ir.F64Type) else "f"
    name = f"llvm.nvvm.{op}.{rounding.PTX_MODES[mode]}.{kind}"
    return llvm.call_intrinsic(args[0].type, name, args, [], [])


def _widen(x: ir.Value, dtype: DType) -> ir.Value:
    return arith.extf(ir.F32Type.get(), x) if dtype in HALF else x  # exact


def _narrow(x: ir.Value, dtype: DType, mode: str) -> ir.Value:
    return rounding.narrow_float32(x, dtype, mode) if dtype in HALF else x
