"""runtime/parameters.py: one description of how a specialization's arguments become kernel
parameters, which the struct packing, the C path's records and the slow path's values follow."""

from __future__ import annotations

import struct

import ml_dtypes
import numpy as np

import tilelang as ct
from tilelang.interface.host_arrays import array_facts
from tilelang.interface.specs import ArraySpec, leaves
from tilelang.runtime.parameters import plan_of, wide_ints


@ct.kernel
def mixed(x, n, scale, pair, BLOCK: ct.Constant[int], wide: ct.ScalarInt64):
    ct.store(x, (ct.bid(0),), ct.load(x, (ct.bid(0),), (BLOCK,)) * scale)


def args():
    x = np.zeros((6, 10), np.float32)[:, ::2]  # 6 x 5, strides (10, 2): not unit
    pair = (np.zeros(8, np.float16), 3)
    return (x, 7, np.float32(1.5), pair, 64, 2**40)


def test_the_format_has_one_slot_per_parameter_and_the_count_agrees() -> None:
    signature = mixed.specialize(args())
    plan = plan_of(signature, wide_ints(mixed.params))
    # x: pointer + 2 extents + 2 strides; n; scale; pair: pointer + 1 + 1, and an int; wide
    assert plan.count == 5 + 1 + 1 + 3 + 1 + 1
    assert struct.calcsize(plan.format) == 8 * plan.count
    assert plan.native_codes == plan.format[1:].replace("x", "").encode()
    assert [len(a.leaves) for a in plan.arguments] == [1, 1, 1, 2, 0, 1]


def test_the_values_are_the_leaves_in_order() -> None:
    a = args()
    signature = mixed.specialize(a)
    facts = [("leaf", array_facts(value, "leaf") if isinstance(leaf, ArraySpec) else None)
             for spec, arg in zip(signature, a, strict=True) for leaf, value in leaves(spec, arg)]
    values = plan_of(signature).values(a, facts)
    x = a[0]
    assert values[:5] == (x.ctypes.data, 6, 5, 10, 2)
    assert values[5:7] == (7, 1.5)
    assert values[7:10] == (a[3][0].ctypes.data, 8, 1) and values[10:] == (3, 2**40)
    struct.pack(plan_of(signature).format, *values)  # the format takes them


def test_the_c_path_takes_single_leaves_and_constants_only() -> None:
    signature = mixed.specialize(args())
    assert plan_of(signature, wide_ints(mixed.params)).native_plan() is None  # the tuple
    plain = mixed.specialize((np.zeros(16, np.float32), 7, 1.5, 2.0, 64, 5))
    records = plan_of(plain, wide_ints(mixed.params)).native_plan()
    assert records is not None and len(records) == 8 * 6
    kinds = [records[i] for i in range(0, len(records), 8)]
    assert kinds == [ord("A"), ord("I"), ord("F"), ord("F"), ord("C"), ord("W")]
    array = records[:8]  # 'A', float code 2, 32 bits, ndim 1, unit stride, align, int32 index
    assert array[1:5] == bytes([2, 32, 1, 1]) and array[6] == 1
    assert plan_of(plain).native_plan()[40:41] == b"L"  # without the annotation: int64 'L'


def test_half_scalars_travel_as_their_bits() -> None:
    signature = mixed.specialize((np.zeros(16, np.float32), 7, ml_dtypes.bfloat16(1.5),
                                  2.0, 64, 5))
    plan = plan_of(signature)
    bf16 = plan.arguments[2].leaves[0]
    expected = int(np.array(1.5, ml_dtypes.bfloat16).view(np.uint16))
    assert bf16.values(None, ml_dtypes.bfloat16(1.5)) == [expected]
    assert bf16.native() is None  # the C path takes int32, int64 and float32 scalars
