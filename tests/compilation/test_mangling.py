"""tilelang.compilation: mangled kernel symbols (the grammar in compilation/mangling.py), read
back into the signature they were made from, and the errors for symbols that are not one."""

from __future__ import annotations

import enum

import pytest
from signatures import V1, V2
from signatures import array as array2

import tilelang as ct
from tilelang.compilation import (
    ArrayConstraint,
    ConstantConstraint,
    KernelSignature,
    ListConstraint,
    ScalarConstraint,
    TupleConstraint,
    demangle_kernel_name,
    mangle_kernel_name,
)
from tilelang.compilation.mangling import mangle_string


def array(dtype=ct.float32, ndim=1, **facts):
    return array2(dtype, ndim, **facts)


PACKED = array(ct.int16, 3, index_dtype=ct.int64, may_alias_internally=True,
               shape_constant=(4, None, 4), stride_constant=(None, None, 1),
               stride_divisible_by=(8, 8, 1), shape_divisible_by=(1, 16, 1),
               base_addr_divisible_by=32)


@pytest.mark.parametrize("params, convention, suffix", [
    ([], V1, ""),
    ([ScalarConstraint(ct.int8), ScalarConstraint(ct.bfloat16), ScalarConstraint(ct.uint64)],
     V1, "_Si8_Sbf16_Su64"),
    ([False, -3, 0.5], V1, "_B0_I_3_F3fe0000000000000"),
    ([None, "a_K.", ct.float16], V1, "_Cn__Cs_a___k_2e_z_Cd_f16"),
    ([array()], V1, "_A1f32_1l0"),
    ([array(stride_lower_bound_incl=None)], V1, "_A1f32"),
    ([PACKED], V2, "_A3i16_2i16_3v8l0_4t1_5s4_p32iw"),
    ([array(alias_groups=("x",)), array(alias_groups=("y", "x")), array(alias_groups=("y",))],
     V1, "_A1f32_1l0_g0_A1f32_1l0_g0g1_A1f32_1l0_g1"),
    ([ListConstraint(array(), alias_groups=(), elements_may_alias=True, length=3)], V1,
     "_Lin3A1f32_1l0"),
    ([TupleConstraint([ScalarConstraint(ct.int32), (7, array())])], V2, "_T2Si32T2I7A1f32_1l0"),
])
def test_symbols(params, convention, suffix):
    sig = KernelSignature(params, convention)
    symbol = mangle_kernel_name("my_Kernel", sig)
    assert symbol == f"my_Kernel_K{convention.code}{suffix}"
    name, back = demangle_kernel_name(symbol)
    assert name == "my_Kernel" and back.symbol == symbol
    groups = {g: f"group{i}" for i, g in enumerate(dict.fromkeys(
        g for p in params if isinstance(p, ArrayConstraint) for g in p.alias_groups))}
    renamed = [p.replace(alias_groups=sorted(groups[g] for g in p.alias_groups))
               if isinstance(p, ArrayConstraint) else p for p in sig.parameters]
    assert back == KernelSignature(renamed, convention, symbol)


@pytest.mark.parametrize("text", ["", "plain09", "_", "K", "a.b<c>", "ü", "🙂", "x_Ky"])
def test_strings_never_hold_the_separator(text):
    mangled = mangle_string(text)
    assert "_K" not in mangled and mangled.endswith("_z")
    sig = KernelSignature([text], V1)
    assert demangle_kernel_name(mangle_kernel_name("k", sig))[1].parameters == sig.parameters


class Color(enum.Enum):
    RED = 1


def test_enum_constants():
    sig = KernelSignature([Color.RED], V1)
    symbol = mangle_kernel_name("k", sig)
    assert symbol == f"k_Kt1_Ce_{mangle_string(__name__)}Color_zRED_z"
    with pytest.raises(ValueError, match="its class is not known here"):
        demangle_kernel_name(symbol)


def test_values_without_a_mangled_form():
    with pytest.raises(ValueError, match="has no mangled form; give the signature a symbol"):
        mangle_kernel_name("k", KernelSignature([ConstantConstraint(frozenset({1}))], V1))


@pytest.mark.parametrize("symbol, match", [
    ("kernel", "is not a mangled kernel name"),
    ("k_Kt3", "Unknown calling convention code 't3'"),
    ("k_Kt1_Q", "Unexpected constraint code 'Q'"),
    ("k_Kt1_Sx9", "Unknown dtype name `x9`"),
    ("k_Kt1_A2f32_0l0", "Zero axis mask"),
    ("k_Kt1_A1f32_3l0", "more bits"),
    ("k_Kt1_A1f32_1v1", "Divisibility must be greater than 1"),
    ("k_Kt1_A1f32_1t1v2", "together with static stride"),
    ("k_Kt1_A1f32_g1_A1f32_g1", "Invalid alias group ID"),
    ("k_Kt1_A1f32_g0_A1f32", "mentioned only once"),
    ("k_Kt1_T1Si32", "version >= 2"),
    ("k_Kt1_A1f32_1s8", "version >= 2"),
    ("k_Kt1_B2", "Expected 0 or 1"),
])
def test_not_a_symbol(symbol, match):
    with pytest.raises(ValueError, match=match):
        demangle_kernel_name(symbol)
