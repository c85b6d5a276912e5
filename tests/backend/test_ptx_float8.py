"""The restricted floats on the GPU path, checked on the CPU: the kernels of
tests/interpreter/test_float8.py compile for sm_90 and assemble (ptxas or nvJitLink), the fp8
conversions use PTX's paired `cvt` instructions, copies of 1-byte elements move 16 bytes per
access, and targets older than sm_90 reject the 8-bit floats as cuTile does."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct
from tilelang import TileUnsupportedFeatureError
from tilelang.testing.kernels import cast_1d, copy_1d

E4M3, E5M2 = np.dtype(ml_dtypes.float8_e4m3fn), np.dtype(ml_dtypes.float8_e5m2)
BF16 = np.dtype(ml_dtypes.bfloat16)




@ct.kernel
def mixed(x, y, c, z, T: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (T,), padding_mode=ct.PaddingMode.NEG_INF)
    low = ct.full((T,), 0.5, x.dtype)
    ct.store(y, (ct.bid(0),), ct.where(t > low, t, low))
    ct.store(c, (ct.bid(0),), t == low)
    ct.store(z, (ct.bid(0),), t.astype(ct.tfloat32).astype(ct.float32))
    ct.print(t.astype(ct.tfloat32), sep=",")


def compile_ok(kernel, args, arch: str = "sm_90") -> ct.CompiledKernel:
    compiled = ct.compile(kernel, args, arch=arch)
    resources = compiled.resources()  # assembles
    assert resources.spill_stores == 0 and resources.spill_loads == 0
    return compiled


def instructions(ptx: str, prefix: str) -> set[str]:
    return {line.split()[0] for line in ptx.splitlines() if line.strip().startswith(prefix)}


@pytest.mark.parametrize("dtype", [E4M3, E5M2])
def test_copy_moves_16_bytes_per_access(dtype):
    ptx = compile_ok(copy_1d, (np.zeros(4096, dtype), np.zeros(4096, dtype), 1024)).ptx
    assert "ld.global.v4.b32" in ptx and "st.global.v4.b32" in ptx
    assert not instructions(ptx, "cvt.rn")  # bytes move untouched


CONVERSIONS = {  # (source, destination): the PTX conversions that must appear
    (np.float32, E4M3): {"cvt.rn.satfinite.e4m3x2.f32"},
    (np.float32, E5M2): {"cvt.rn.satfinite.e5m2x2.f32"},
    (np.float16, E4M3): {"cvt.rn.satfinite.e4m3x2.f16x2"},
    (BF16, E5M2): {"cvt.rn.satfinite.e5m2x2.f32"},
    (np.float64, E4M3): {"cvt.rn.f32.f64", "cvt.rn.satfinite.e4m3x2.f32"},
    (np.int32, E5M2): {"cvt.rn.satfinite.e5m2x2.f32"},
    (E4M3, np.float32): {"cvt.rn.f16x2.e4m3x2"},
    (E5M2, np.float16): {"cvt.rn.f16x2.e5m2x2"},
    (E4M3, BF16): {"cvt.rn.f16x2.e4m3x2"},
    (E5M2, np.int8): {"cvt.rn.f16x2.e5m2x2"},
    (E4M3, np.bool_): {"cvt.rn.f16x2.e4m3x2"},
    (E4M3, E5M2): {"cvt.rn.f16x2.e4m3x2", "cvt.rn.satfinite.e5m2x2.f16x2"},
    (E5M2, E4M3): {"cvt.rn.f16x2.e5m2x2", "cvt.rn.satfinite.e4m3x2.f16x2"},
}


@pytest.mark.parametrize(("src", "dst"), list(CONVERSIONS))
def test_conversions_assemble(src, dst):
    args = (np.zeros(4096, src), np.zeros(4096, dst), 512)
    ptx = compile_ok(cast_1d, args).ptx
    found = instructions(ptx, "cvt.rn")
    assert CONVERSIONS[src, dst] <= found, found


def test_fp8_conversions_go_two_per_instruction():
    """512 elements over 128 threads: 4 registers each, converted in 2 paired instructions."""
    ptx = compile_ok(cast_1d, (np.zeros(512, np.float32), np.zeros(512, E4M3), 512)).ptx
    assert ptx.count("cvt.rn.satfinite.e4m3x2.f32") == 2


def test_odd_register_counts_assemble():
    """A 0-d value (one register): the lone value is paired with itself."""
    @ct.kernel
    def scalar(x, y):
        v = ct.load(x, (0,), (1,)).item()
        ct.store(y, (0,), ct.full((1,), v.astype(y.dtype), y.dtype))

    compile_ok(scalar, (np.zeros(4, np.float32), np.zeros(4, E5M2)))


def test_where_compare_tfloat32_and_print_assemble():
    args = (np.zeros(1000, E4M3), np.zeros(1000, E4M3), np.zeros(1000, np.bool_),
            np.zeros(1000, np.float32), 256)
    compile_ok(mixed, args)


def _larger(a, b):
    return ct.where(a > b, a, b)


@ct.kernel
def max_by_select(x, y, z):
    t = ct.load(x, (0, 0), (8, 32))
    ct.store(y, (0,), ct.reduce(t, 1, _larger, float("-inf")))
    ct.store(z, (0, 0), ct.scan(t, 1, _larger, float("-inf")))


@pytest.mark.parametrize("dtype", [E4M3, E5M2])
def test_reduce_and_scan_with_a_selecting_combiner_assemble(dtype):
    compile_ok(max_by_select, (np.zeros((8, 32), dtype), np.zeros(8, dtype),
                               np.zeros((8, 32), dtype)))


@pytest.mark.parametrize("arch", ["sm_80", "sm_86", "sm_89"])
@pytest.mark.parametrize("dtype", [E4M3, E5M2])
def test_older_targets_reject_float8(arch, dtype):
    with pytest.raises(TileUnsupportedFeatureError,
                       match=f"{dtype.name} is not supported on {arch}") as info:
        ct.compile(copy_1d, (np.zeros(64, dtype), np.zeros(64, dtype), 64), arch=arch)
    assert info.value.loc is not None and "ct.load" in str(info.value)  # the user's line


def test_tfloat32_works_on_sm_80():
    args = (np.zeros(1000, np.float32), np.zeros(1000, np.float32), 256)

    @ct.kernel
    def tf32(x, y, T: ct.Constant[int]):
        t = ct.load(x, (ct.bid(0),), (T,))
        ct.store(y, (ct.bid(0),), t.astype(ct.tfloat32).astype(ct.float32))

    compile_ok(tf32, args, arch="sm_80")


@pytest.mark.parametrize(("dtype", "value", "byte"), [(E4M3, -448.0, 0xFE), (E4M3, 1.5, 0x3C),
                                                      (E5M2, 2.0, 0x40), (E5M2, -1e9, 0xFB)])
def test_constants_are_their_bit_patterns(dtype, value, byte):
    @ct.kernel
    def fill(y, V: ct.Constant[float]):
        ct.store(y, (0,), ct.full((16,), V, y.dtype))

    ptx = compile_ok(fill, (np.zeros(16, dtype), value)).ptx
    word = int.from_bytes(bytes([byte] * 4), "little", signed=True)
    assert f"{{{word}, {word}, {word}, {word}}}" in ptx
