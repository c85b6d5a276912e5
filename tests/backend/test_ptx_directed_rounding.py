"""RZ/RM/RP arithmetic and reductions on the GPU path, checked on the CPU: the PTX holds PTX's
directed instructions (`add.rz.f32`, `div.rm.f64`, `sqrt.rp.f32`, ...), 16-bit floats compute
in float32 and narrow in the same direction, and the kernels assemble for sm_80 and sm_90
(tests/interpreter/test_directed_rounding.py runs them on the GPU)."""

from __future__ import annotations

import collections

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct

R = ct.RoundingMode
SUFFIX = {R.RZ: "rz", R.RM: "rm", R.RP: "rp"}
NUMPY = {"float32": np.float32, "float64": np.float64, "float16": np.float16,
         "bfloat16": ml_dtypes.bfloat16}


@ct.kernel
def arithmetic(x, y, z, M: ct.Constant):
    a = ct.load(x, (ct.bid(0),), (256,))
    b = ct.load(y, (ct.bid(0),), (256,))
    r = ct.add(a, b, rounding_mode=M)
    r = ct.sub(r, b, rounding_mode=M)
    r = ct.mul(r, b, rounding_mode=M)
    r = ct.truediv(r, b, rounding_mode=M)
    ct.store(z, (ct.bid(0),), ct.sqrt(r, rounding_mode=M))


@ct.kernel
def accumulate(x, total, running, M: ct.Constant):
    t = ct.load(x, (ct.bid(0), 0), (16, 64))
    ct.store(total, (ct.bid(0), 0), ct.prod(t, axis=1, keepdims=True, rounding_mode=M))
    ct.store(running, (ct.bid(0), 0), ct.cumsum(t, axis=1, rounding_mode=M))


def instructions(ptx: str) -> collections.Counter[str]:
    return collections.Counter(line.split()[0] for line in ptx.splitlines()
                               if line.strip() and not line.strip().startswith(("//", ".")))


def narrowing(dtype: str, mode: R) -> str | None:
    """The conversion that ends a 16-bit float's operation (None: float32 and float64, and
    bfloat16 toward -inf or +inf, which is integer arithmetic on the float32 bits)."""
    if dtype == "float16":
        return f"cvt.{SUFFIX[mode]}.f16.f32"
    if dtype == "bfloat16" and mode is R.RZ:
        return "cvt.rz.bf16.f32"
    return None


def _assembles(compiled: ct.CompiledKernel) -> None:
    resources = compiled.resources()
    assert resources.spill_stores == 0 and resources.spill_loads == 0


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("mode", list(SUFFIX))
@pytest.mark.parametrize("dtype", list(NUMPY))
def test_arithmetic_uses_directed_instructions(dtype, mode, arch):
    x = np.zeros(1000, NUMPY[dtype])
    compiled = ct.compile(arithmetic, (x, x, x, mode), arch=arch)
    found = instructions(compiled.ptx)
    width = "f64" if dtype == "float64" else "f32"
    for op in ("add", "sub", "mul", "div", "sqrt"):
        assert found[f"{op}.{SUFFIX[mode]}.{width}"] > 0, (op, found)
    others = {i for i in found if i.split(".")[0] in ("add", "sub", "mul", "div", "sqrt")
              and i.split(".")[-1] in ("f32", "f64") and f".{SUFFIX[mode]}." not in i}
    assert not others, others  # every float operation rounds in the mode's direction
    conversion = narrowing(dtype, mode)
    if conversion is not None:
        assert found[conversion] > 0, found
    _assembles(compiled)


@pytest.mark.parametrize("mode", list(SUFFIX))
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float64"])
def test_reductions_and_scans_combine_with_directed_instructions(dtype, mode):
    x = np.zeros((64, 64), NUMPY[dtype])
    total = np.zeros((64, 1), NUMPY[dtype])
    compiled = ct.compile(accumulate, (x, total, x, mode), arch="sm_90")
    found = instructions(compiled.ptx)
    width = "f64" if dtype == "float64" else "f32"
    assert found[f"mul.{SUFFIX[mode]}.{width}"] > 0 and found[f"add.{SUFFIX[mode]}.{width}"] > 0
    assert not found[f"add.{width}"] and not found[f"mul.{width}"] and \
        not found[f"add.rn.{width}"], found
    _assembles(compiled)


def test_round_to_nearest_is_unchanged():
    x = np.zeros(1000, np.float32)
    nearest = ct.compile(arithmetic, (x, x, x, R.RN)).ptx
    assert not any(f".{s}." in nearest for s in SUFFIX.values())
    assert "sqrt.rn.f32" in nearest


@ct.kernel
def exp2_argument(x, y, M: ct.Constant):
    t = ct.load(x, (0,), (128,))
    s = ct.sub(ct.mul(t, 1.4426950408889634, rounding_mode=M), 1.0, rounding_mode=M)
    ct.store(y, (0,), ct.exp2(s, flush_to_zero=True))


def test_directed_product_is_never_fused_into_an_fma():
    """`a * b - c` under exp2(flush_to_zero=True) becomes one fma when rounded to nearest;
    with a directed mode the two roundings are kept."""
    x = np.zeros(128, np.float32)
    assert "fma.rn.f32" in ct.compile(exp2_argument, (x, x, R.RN)).ptx
    directed = instructions(ct.compile(exp2_argument, (x, x, R.RZ)).ptx)
    assert not any(i.startswith("fma") for i in directed), directed
    assert directed["mul.rz.f32"] > 0
