"""Edge tiles on the GPU path: outside the uniform fast path, each element is one predicated
load (`@p ld.global` into a register preset to the padding value) or one predicated store, for
every element width, with no branch per element; the PTX assembles. The GPU tier checks the
values: tests/gpu/test_masked_access.py."""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct

WIDTHS = [(np.bool_, 8), (np.int8, 8), (ml_dtypes.float8_e4m3fn, 8), (np.float16, 16),
          (ml_dtypes.bfloat16, 16), (np.float32, 32), (np.int64, 64), (np.float64, 64)]


@ct.kernel
def edge_copy(x, y, B: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(B,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, index=(i,), tile=t)


@pytest.mark.parametrize("dtype,bits", WIDTHS)
def test_edge_accesses_are_predicated(dtype, bits):
    x = np.zeros(100, dtype)
    compiled = ct.compile(edge_copy, (x, x.copy(), 1024))
    # 16-bit elements load in aligned pairs, one 32-bit word each (test_ptx_load_words.py)
    loaded = 32 if bits == 16 else bits
    loads = re.findall(rf"@%p\d+ ld\.global\.b{loaded} ", compiled.ptx)
    stores = re.findall(rf"@%p\d+ st\.global\.b{bits} ", compiled.ptx)
    assert len(loads) * loaded // bits == len(stores) >= 8
    assert len(re.findall(r"\bbra", compiled.ptx)) < len(stores)  # no branch per element
    resources = compiled.resources()  # assembles
    assert resources.spill_stores == 0


@ct.kernel
def edge_copy_nan(x, y, B: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(B,), padding_mode=ct.PaddingMode.NAN)
    ct.store(y, index=(i,), tile=t)


def test_a_masked_load_starts_from_the_padding_value():
    x = np.zeros(100, np.float32)
    llvm = ct.compile(edge_copy_nan, (x, x.copy(), 256), stop_after="llvm").asm["llvm"]
    nan = re.search(r"%(\w+) = llvm.mlir.constant\(0x7FC00000 : f32\) : f32", llvm).group(1)
    bits = re.search(rf"%(\w+) = llvm.bitcast %{nan} : f32 to i32", llvm).group(1)
    tied = re.findall(r'"@\$2 ld.global.b32 \$0, \[\$1(?:\+\d+)?\];", "=r,l,b,0" %\w+, %\w+, '
                      r"%(\w+) ", llvm)
    assert len(tied) == 4 and set(tied) == {bits}  # 256 elements: 4 per thread


def test_registers_of_a_row_share_one_address():
    x = np.zeros(100, np.float32)
    ptx = ct.compile(edge_copy, (x, x.copy(), 1024)).ptx
    loads = re.findall(r"@%p\d+ ld\.global\.b32 %r\d+, \[(%rd\d+)(\+\d+)?\];", ptx)
    assert len(loads) == 8 and len({address for address, _ in loads}) == 1
