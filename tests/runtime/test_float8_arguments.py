"""8-bit float arguments at launch, on the CPU: torch, NumPy (ml_dtypes) and DLPack arrays get
tilelang's dtypes, the C fast path expects the DLPack codes torch really exports, and fp8
scalars travel as their bytes."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
import torch

import tilelang as ct
from tilelang.interface.arguments import scalar_spec
from tilelang.interface.host_arrays import array_facts
from tilelang.interface.specs import ArraySpec, ScalarSpec
from tilelang.runtime.parameters import ArrayLeaf, ScalarLeaf

PAIRS = [(torch.float8_e4m3fn, ml_dtypes.float8_e4m3fn, ct.float8_e4m3fn),
         (torch.float8_e5m2, ml_dtypes.float8_e5m2, ct.float8_e5m2)]


class DLPackOnly:
    """An array known only through `__dlpack__` (as JAX's or other producers' arrays are)."""

    def __init__(self, tensor: torch.Tensor):
        self.tensor = tensor

    def __dlpack__(self, **kwargs):
        return self.tensor.__dlpack__(**kwargs)


@pytest.mark.parametrize(("torch_dtype", "np_dtype", "dtype"), PAIRS)
def test_arrays_of_every_origin_get_the_dtype(torch_dtype, np_dtype, dtype):
    t = torch.zeros((3, 5), dtype=torch_dtype)
    assert array_facts(t, "x").dtype is dtype
    assert array_facts(np.zeros(4, np_dtype), "x").dtype is dtype
    facts = array_facts(DLPackOnly(t[:, 1:]), "x")  # read through __dlpack__
    assert (facts.dtype, facts.shape, facts.strides) == (dtype, (3, 4), (5, 1))


@pytest.mark.parametrize(("torch_dtype", "np_dtype", "dtype"), PAIRS)
def test_fast_path_expects_the_code_torch_exports(torch_dtype, np_dtype, dtype):
    from tilelang.runtime.native_launch import native_module

    native = native_module()
    if native is None:
        pytest.skip("no C compiler for the native launcher")
    t = torch.zeros(16, dtype=torch_dtype)
    _, _, _, code, bits, _ = native.tensor_facts(t)
    record = ArrayLeaf(ArraySpec(dtype, 1, (True,), 16)).native()
    assert record is not None and (record[1], record[2]) == (code, bits)


@pytest.mark.parametrize(("torch_dtype", "np_dtype", "dtype"), PAIRS)
def test_scalars_travel_as_their_bytes(torch_dtype, np_dtype, dtype):
    value = np.dtype(np_dtype).type(-2.5)
    assert scalar_spec(value, "s").dtype is dtype
    expected = int(np.array([-2.5], np_dtype).view(np.uint8)[0])
    assert ScalarLeaf(ScalarSpec(dtype)).values(None, value) == [expected]
