"""tilelang.compilation: `KernelSignature.from_kernel_args` records what example arguments show,
and reads back (`signature_specs`) as the specialization a launch with them compiles."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Annotated

import numpy as np
import pytest

import tilelang as ct
from tilelang.compilation import (
    ArrayConstraint,
    CallingConvention,
    ConstantConstraint,
    KernelSignature,
    ListConstraint,
    ScalarConstraint,
    TupleConstraint,
    demangle_kernel_name,
    signature_specs,
)

V1, V2 = CallingConvention.cutile_python_v1(), CallingConvention.cutile_python_v2()


@ct.kernel
def copy2d(x, out, TM: ct.Constant[int]):
    ct.store(out, (0, 0), ct.load(x, (0, 0), (TM, TM)))


@ct.kernel
def pinned(x: Annotated[ct.Array, ct.ArrayAnnotation(static_shape_dims=(0,),
                                                     static_stride_dims=(0,))], out):
    ct.store(out, (0, 0), ct.load(x, (0, 0), (4, 4)))


@ct.kernel
def pinned_all(x: Annotated[ct.Array, ct.ArrayAnnotation(static_shape_dims=(0,),
                                                         static_stride_dims=(0, 1))], out):
    ct.store(out, (0, 0), ct.load(x, (0, 0), (4, 4)))


@ct.kernel
def anything(a, b, c, d):
    pass


def aligned(shape, dtype=np.float32, offset=0):
    """A C-contiguous array whose address is 64-byte aligned, plus `offset` elements."""
    size = int(np.prod(shape)) + offset
    raw = np.zeros(size * np.dtype(dtype).itemsize + 64, np.uint8)
    start = (-raw.ctypes.data) % 64
    flat = raw[start:start + size * np.dtype(dtype).itemsize].view(dtype)
    return flat[offset:].reshape(shape)


def test_contiguous_array_facts():
    x, out = aligned((48, 32), np.float16), aligned((16, 16), np.float16)
    sig = KernelSignature.from_kernel_args(copy2d, (x, out, 16), V2)
    a = sig.parameters[0]
    assert (a.dtype, a.ndim, a.index_dtype) == (ct.float16, 2, ct.int32)
    assert a.shape_constant == (None, None)
    assert a.stride_constant == (None, 1)
    assert a.stride_divisible_by == (8, 1)  # rows of 64 bytes: 16-byte multiples, in elements
    assert a.shape_divisible_by == (16, 16)
    assert a.base_addr_divisible_by == 16
    assert a.stride_lower_bound_incl == (0, None)
    assert (a.may_alias_internally, a.alias_groups) == (False, ())
    assert sig.parameters[2] == ConstantConstraint(16)
    assert sig.symbol == ("copy2d_Kt2_A2f16_1v8l0_2t1_3i16_p16_A2f16_1v8l0_2t1_3i16_p16_I16")
    assert demangle_kernel_name(sig.symbol) == ("copy2d", sig)


def test_weaker_facts():
    # float32 rows of 5 elements (20 bytes: multiples of 4 only), an address 8 bytes past 64
    x = aligned((8, 5), offset=2)
    a = KernelSignature.from_kernel_args(copy2d, (x, x, 4), V1).parameters[0]
    assert a.stride_divisible_by == (1, 1)
    assert a.base_addr_divisible_by == 8
    assert a.shape_divisible_by == (1, 1)
    # a zero stride (a broadcast) reaches one element from several indices
    b = np.broadcast_to(aligned((1, 8)), (4, 8))
    assert KernelSignature.from_kernel_args(copy2d, (b, x, 4), V1).parameters[0] \
        .may_alias_internally is True
    # negative strides have no lower bound
    c = aligned((4, 8))[::-1]
    assert KernelSignature.from_kernel_args(copy2d, (c, x, 4), V1).parameters[0] \
        .stride_lower_bound_incl == (None, None)


def test_extent_one_is_compiled_in_with_v2():
    x = aligned((8, 1))
    v1 = KernelSignature.from_kernel_args(copy2d, (x, x.copy(), 4), V1).parameters[0]
    v2 = KernelSignature.from_kernel_args(copy2d, (x, x.copy(), 4), V2).parameters[0]
    assert v1.shape_constant == (None, None)
    assert v2.shape_constant == (None, 1)


def test_annotated_axes():
    buf = aligned((4, 10))
    x = buf[:, :8]  # shape (4, 8), strides (10, 1)
    a = KernelSignature.from_kernel_args(pinned, (x, aligned((4, 4))), V2).parameters[0]
    assert a.shape_constant == (4, None)  # the annotation's axes only (no extent-1 inference)
    assert a.stride_constant == (10, None)  # and no unit strides inferred either
    with pytest.raises(ValueError, match="Static array shapes"):
        KernelSignature.from_kernel_args(pinned, (x, aligned((4, 4))), V1)


def test_overlapping_arrays_share_an_alias_group():
    buf = aligned((64,))
    sig = KernelSignature.from_kernel_args(anything, (buf[:32], buf[16:48], buf[48:],
                                                      aligned((8,))), V1)
    groups = [p.alias_groups for p in sig.parameters]
    assert groups[0] == groups[1] and groups[0] != () and groups[2] == groups[3] == ()
    # the same array twice (an in-place kernel)
    sig = KernelSignature.from_kernel_args(anything, (buf, buf, 1, 2.0), V1)
    assert sig.parameters[0].alias_groups == sig.parameters[1].alias_groups != ()
    assert sig.parameters[2:] == (ScalarConstraint(ct.int32), ScalarConstraint(ct.float32))


def test_lists_and_tuples():
    arrays = [aligned((8, 8)), aligned((4, 8))[:, :4], aligned((8, 8))]
    sig = KernelSignature.from_kernel_args(anything, (arrays, (3, arrays[0]), 2**40, None), V2)
    lst = sig.parameters[0]
    assert isinstance(lst, ListConstraint) and lst.length == 3
    assert lst.elements_may_alias is False
    assert lst.element.shape_divisible_by == (1, 1)  # 4 of the second array
    assert lst.element.stride_divisible_by == (4, 1)  # rows of 32 bytes in every array
    assert lst.element.base_addr_divisible_by == 16
    tup = sig.parameters[1]
    assert isinstance(tup, TupleConstraint)
    assert tup.items[0] == ScalarConstraint(ct.int32)
    # the tuple's array is the list's first one: the list's arrays and it share a group
    assert tup.items[1].alias_groups == lst.element.alias_groups != ()
    assert sig.parameters[2:] == (ScalarConstraint(ct.int64), ConstantConstraint(None))
    with pytest.raises(ValueError, match="Tuple parameters"):
        KernelSignature.from_kernel_args(anything, (arrays, (3, 4), 1, 2), V1)


@dataclass(frozen=True)
class Pair:
    a: object
    b: object


def test_dataclass_arguments_are_refused():
    with pytest.raises(ct.TileArgumentError, match="cannot describe dataclass arguments"):
        KernelSignature.from_kernel_args(anything, (Pair(1, 2), 1, 2, 3), V2)


def test_launch_errors_come_first():
    with pytest.raises(ct.TileArgumentError, match="Kernel expects 3 arguments but 2 were"):
        KernelSignature.from_kernel_args(copy2d, (aligned((4,)), 4), V2)


@pytest.mark.parametrize("args", [
    (aligned((48, 32), np.float16), aligned((16, 16), np.float16), 16),
    (aligned((8, 5), offset=2), aligned((8, 5), offset=1), 4),
    (aligned((4, 10))[:, 1:9], aligned((8, 1)), 4),
    (aligned((6, 7), np.int8).T, aligned((2, 3), np.float64), 2),
    (np.broadcast_to(aligned((1, 8)), (4, 8)), aligned((16, 16))[::2, ::-1], 8),
])
def test_reads_back_as_the_launch_specialization(args):
    for convention in (V1, V2):
        sig = KernelSignature.from_kernel_args(copy2d, args, convention)
        launch = copy2d.specialize(args)
        if convention is V1:  # no extents: an axis of extent 1 and stride 1 reads as unit-stride
            launch = tuple(_unit_where_one(spec, a) for spec, a in zip(launch, args, strict=True))
        assert signature_specs(copy2d, sig) == launch


def _unit_where_one(spec, arg):
    if not isinstance(arg, np.ndarray):
        return spec
    strides = [s // arg.itemsize for s in arg.strides]
    unit = tuple(u or (n == 1 and s == 1)
                 for u, n, s in zip(spec.unit_stride, arg.shape, strides, strict=True))
    return dataclasses.replace(spec, unit_stride=unit)


def test_an_axis_of_extent_one_is_not_the_contiguous_one():
    """(8, 1) with strides (1, 1) runs down its rows, as a query (B, H, 1, D) along D."""
    x, q = aligned((8, 1)), aligned((2, 3, 1, 16))
    assert copy2d.specialize((x, x, 4))[0].unit_stride == (True, False)
    assert anything.specialize((q, 1, 2, 3))[0].unit_stride == (False, False, False, True)
    sig = KernelSignature.from_kernel_args(copy2d, (x, x, 4), V2)  # shape_constant says 1
    assert signature_specs(copy2d, sig)[0].unit_stride == (True, False)


def test_reads_back_with_annotations_lists_and_tuples():
    buf = aligned((4, 10))
    args = (buf[:, :8], aligned((4, 4)))
    sig = KernelSignature.from_kernel_args(pinned_all, args, V2)
    assert signature_specs(pinned_all, sig) == pinned_all.specialize(args)
    arrays = [aligned((8, 8)), aligned((4, 8))[:, :4]]
    args2 = (arrays, (3, arrays[0], (1.5, ct.float16)), 2**40, None)
    sig = KernelSignature.from_kernel_args(anything, args2, V2)
    assert signature_specs(anything, sig) == anything.specialize(args2)


def test_hand_written_constraint_is_an_array_spec():
    a = ArrayConstraint(ct.float32, 2, index_dtype=ct.int64, stride_lower_bound_incl=0,
                        alias_groups=(), may_alias_internally=False,
                        stride_constant=(None, 1), stride_divisible_by=(4, 1),
                        base_addr_divisible_by=16)
    spec = signature_specs(copy2d, KernelSignature([a, a, 8], V1))[0]
    assert (spec.unit_stride, spec.align, spec.index_dtype) == ((False, True), 16, ct.int64)
    assert (spec.static_shape, spec.static_strides) == ((), ())
