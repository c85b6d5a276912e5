"""astype's rounding modes on the GPU path, checked on the CPU: each conversion that can round
uses PTX's conversion with that rounding (or the tfloat32 bit arithmetic), and the kernels
assemble for sm_80 and sm_90 (tests/interpreter/test_rounding_modes.py runs them on the GPU)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct

R = ct.RoundingMode
BF16 = np.dtype(ml_dtypes.bfloat16)
NUMPY = {"float64": np.float64, "float32": np.float32, "float16": np.float16, "bfloat16": BF16,
         "tfloat32": np.float32}


@ct.kernel
def cast_rounded(x, y, D: ct.Constant, M: ct.Constant):
    t = ct.load(x, (ct.bid(0),), (256,))
    ct.store(y, (ct.bid(0),), t.astype(D, rounding_mode=M).astype(y.dtype))


CASES = {  # (source, destination, mode): the conversions that must appear
    ("float64", "float32", R.RZ): {"cvt.rz.f32.f64"},
    ("float64", "float32", R.RM): {"cvt.rm.f32.f64"},
    ("float64", "float32", R.RP): {"cvt.rp.f32.f64"},
    ("float64", "float16", R.RZ): {"cvt.rz.f32.f64", "cvt.rz.f16.f32"},
    ("float64", "bfloat16", R.RZ): {"cvt.rz.f32.f64", "cvt.rz.bf16.f32"},
    ("float64", "tfloat32", R.RZ): {"cvt.rz.f32.f64"},
    ("float32", "float16", R.RZ): {"cvt.rz.f16.f32"},
    ("float32", "bfloat16", R.RZ): {"cvt.rz.bf16.f32"},
    ("float32", "tfloat32", R.RZ): set(),  # on the bits
    ("float32", "tfloat32", R.RA): set(),
    ("float16", "bfloat16", R.RZ): {"cvt.rz.bf16.f32"},
    ("bfloat16", "float16", R.RZ): {"cvt.rz.f16.f32"},
    ("bfloat16", "float16", R.RM): {"cvt.rm.f16.f32"},
    ("bfloat16", "float16", R.RP): {"cvt.rp.f16.f32"},
    ("bfloat16", "float16", R.RA): {"cvt.rz.f16.f32", "cvt.rn.f16.f32"},  # a tie test between
}


def conversions(ptx: str) -> set[str]:
    return {line.split()[0] for line in ptx.splitlines()
            if line.strip().startswith(("cvt.rz", "cvt.rm", "cvt.rp", "cvt.rn"))}


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize(("src", "dst", "mode"), sorted(CASES, key=str))
def test_rounding_conversion_assembles(src, dst, mode, arch):
    out = "float32" if dst == "tfloat32" else dst
    args = (np.zeros(1000, NUMPY[src]), np.zeros(1000, NUMPY[out]), getattr(ct, dst), mode)
    compiled = ct.compile(cast_rounded, args, arch=arch)
    found = conversions(compiled.ptx)
    assert CASES[(src, dst, mode)] <= found, found
    assert not {c for c in found if c.endswith(".f64") and "f32" not in c}  # nothing wider
    resources = compiled.resources()  # assembles
    assert resources.spill_stores == 0 and resources.spill_loads == 0


def test_tfloat32_modes_differ_only_in_the_rounding_constant():
    args = (np.zeros(1000, np.float32), np.zeros(1000, np.float32), ct.tfloat32)
    toward_zero = ct.compile(cast_rounded, (*args, R.RZ)).ptx
    ties_away = ct.compile(cast_rounded, (*args, R.RA)).ptx
    assert "and.b32" in toward_zero and "-8192" in toward_zero  # the 13 low bits cleared
    assert "4096" in ties_away and "4096" not in toward_zero  # half a tfloat32 ulp added


def test_mode_of_an_exact_conversion_changes_nothing():
    args = (np.zeros(1000, np.float32), np.zeros(1000, np.float64), ct.float64)
    plain = ct.compile(cast_rounded, (*args, R.RN)).ptx
    assert ct.compile(cast_rounded, (*args, R.RM)).ptx == plain
