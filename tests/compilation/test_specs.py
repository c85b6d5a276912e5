"""tilelang.compilation: a signature as tilelang's specialization: what each constraint makes of
an array (unit strides, alignment, compiled-in extents and strides), and the errors for
signatures that do not fit the kernel, each naming the parameter and the problem."""

from __future__ import annotations

from typing import Annotated

import pytest
from signatures import V1, V2, array

import tilelang as ct
from tilelang.compilation import (
    ConstantConstraint,
    KernelSignature,
    ListConstraint,
    ScalarConstraint,
    TupleConstraint,
    signature_specs,
)
from tilelang.interface.specs import ArraySpec, ConstSpec, ListSpec, ScalarSpec, TupleSpec


@ct.kernel
def plain(x, n, BLOCK: ct.Constant[int]):
    pass


@ct.kernel
def annotated(x: Annotated[ct.Array, ct.ArrayAnnotation(static_shape_dims=(1,))],
              n: ct.ScalarInt64,
              xs: Annotated[list, ct.ListAnnotation(element=ct.ArrayAnnotation())],
              pair: tuple[int, ct.Constant[int]]):
    pass


def spec(c):
    return signature_specs(plain, KernelSignature([c, ScalarConstraint(ct.int32), 8], V2))[0]


@pytest.mark.parametrize("facts, unit, align", [
    ({}, (False, False), 4),  # no facts: element alignment only
    ({"stride_constant": (None, 1)}, (False, True), 4),
    ({"stride_constant": (None, 1), "base_addr_divisible_by": 16}, (False, True), 4),
    ({"stride_constant": (None, 1), "base_addr_divisible_by": 16,
      "stride_divisible_by": (4, 1)},
     (False, True), 16),
    ({"stride_constant": (None, 1), "base_addr_divisible_by": 32,
      "stride_divisible_by": (64, 1)},
     (False, True), 16),  # 16 bytes at most
    ({"stride_constant": (None, 1), "base_addr_divisible_by": 24,
      "stride_divisible_by": (6, 1)},
     (False, True), 8),  # powers of two of the factors
    ({"stride_constant": (6, 1), "base_addr_divisible_by": 16}, (False, True), 8),
    ({"shape_constant": (1, None), "stride_constant": (None, 1), "base_addr_divisible_by": 16},
     (False, True), 16),  # an axis of extent 1 never moves: not unit, nor in the alignment
])
def test_unit_strides_and_alignment(facts, unit, align):
    s = spec(array(**facts))
    assert (s.unit_stride, s.align) == (unit, align)


def test_compiled_in_extents_and_strides():
    s = spec(array(ndim=3, shape_constant=(48, 1, None), stride_constant=(64, None, 1)))
    assert s.static_shape == (48, None, None)  # the extent 1 is not compiled in
    assert s.static_strides == (64, None, None)  # the stride 1 too
    assert s.unit_stride == (False, False, True)
    assert spec(array(dtype=ct.float16, index_dtype=ct.int64)) == ArraySpec(
        ct.float16, 2, (False, False), 2, ct.int64)


def test_annotated_parameters():
    x = array(shape_constant=(None, 16), stride_constant=(None, 1))
    xs = ListConstraint(array(ndim=1), alias_groups=(), elements_may_alias=False, length=2)
    sig = KernelSignature([x, ScalarConstraint(ct.int64), xs, (ScalarConstraint(ct.int32), 4)],
                          V2)
    specs = signature_specs(annotated, sig)
    assert specs[0].static_shape == (None, 16)
    assert specs[1] == ScalarSpec(ct.int64)
    assert specs[2] == ListSpec(ArraySpec(ct.float32, 1, (False,), 4), 2)
    assert specs[3] == TupleSpec((ScalarSpec(ct.int32), ConstSpec(4)))


def test_constants():
    specs = signature_specs(plain, KernelSignature([None, ct.float16, 1.5], V1))
    assert specs == (ConstSpec(None), ConstSpec(ct.float16), ConstSpec(1.5))
    specs = signature_specs(annotated, KernelSignature(
        [array(shape_constant=(None, 4)), ScalarConstraint(ct.int64),
         ListConstraint(array(ndim=1), alias_groups=(), elements_may_alias=False, length=1),
         (ScalarConstraint(ct.int32), TupleConstraint([1, 2]))], V2))
    assert specs[3] == TupleSpec((ScalarSpec(ct.int32), ConstSpec((1, 2))))


X, N = array(), ScalarConstraint(ct.int32)
LIST = ListConstraint(array(ndim=1), alias_groups=(), elements_may_alias=False, length=2)
GOOD = [array(shape_constant=(None, 4)), ScalarConstraint(ct.int64), LIST,
        (ScalarConstraint(ct.int32), 4)]


@pytest.mark.parametrize("kernel, params, match", [
    (plain, [X, N], "the signature has 2 parameter constraints but kernel plain takes 3 "
                    r"parameters: plain\(x, n, BLOCK\)"),
    (plain, [X, N, N], "Invalid kernel parameter 'BLOCK': Expected a scalar/tuple constant"),
    (plain, [X, 5, 8], "Invalid kernel parameter 'n': ConstantConstraint is only valid for "
                       "parameters annotated as Constant"),
    (plain, [X, N, (1, X)], r"Invalid item #1 of kernel parameter 'BLOCK': Expected a "
                            "scalar/tuple constant"),
    (annotated, [array(), *GOOD[1:]], "Invalid kernel parameter 'x': Axis 1 is annotated in "
                                      "`static_shape_dims`, but no constant shape value"),
    (annotated, [GOOD[0], ScalarConstraint(ct.int32), *GOOD[2:]],
     "Invalid kernel parameter 'n': ScalarConstraint.dtype int32 does not match the annotated "
     "dtype int64"),
    (annotated, [GOOD[0], X, *GOOD[2:]], "Invalid kernel parameter 'n': the parameter is "
                                         "annotated as a int64 scalar"),
    (annotated, [N, *GOOD[1:]], "Invalid kernel parameter 'x': the parameter is annotated as "
                                "an array .*ScalarConstraint"),
    (annotated, [*GOOD[:2], X, GOOD[3]], "Invalid kernel parameter 'xs': the parameter is "
                                         "annotated as a list of arrays"),
    (annotated, [*GOOD[:2], ListConstraint(array(ndim=1), alias_groups=(),
                                           elements_may_alias=False), GOOD[3]],
     "Invalid kernel parameter 'xs': tilelang compiles a list of arrays for a fixed number"),
    (annotated, [*GOOD[:3], (N, 4, 5)], "Invalid kernel parameter 'pair': Received a tuple of "
                                        "length 3 but the annotation implies length 2"),
    (annotated, [*GOOD[:3], N], "Invalid kernel parameter 'pair': the parameter is annotated "
                                "as a tuple"),
    (annotated, [*GOOD[:3], (N, N)], r"Invalid item #1 of kernel parameter 'pair': Expected"),
    (plain, [array(index_dtype=ct.uint32), N, 8], "Invalid kernel parameter 'x': tilelang "
                                                  "indexes arrays with int32 or int64"),
    (plain, [X, ScalarConstraint(ct.tfloat32), 8], "cannot pass a tfloat32 scalar"),
])
def test_signatures_that_do_not_fit(kernel, params, match):
    with pytest.raises(ct.TileArgumentError, match=match):
        signature_specs(kernel, KernelSignature(params, V2))


def test_out_of_range_annotation_axis():
    @ct.kernel
    def bad(x: Annotated[ct.Array, ct.ArrayAnnotation(static_shape_dims=(5,))]):
        pass

    with pytest.raises(ValueError, match="Axis 5 found in `static_shape_dims` is out of range"):
        signature_specs(bad, KernelSignature([array()], V2))


def test_not_a_signature():
    with pytest.raises(ct.TileArgumentError, match="expected a KernelSignature"):
        signature_specs(plain, [X, N, 8])  # type: ignore[arg-type]
    assert ConstantConstraint(8) == KernelSignature([X, N, 8], V1).parameters[2]
