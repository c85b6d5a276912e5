"""tilelang.compilation: constraints, calling conventions and signatures on their own (what each
accepts, normalizes and refuses), no kernel involved."""

from __future__ import annotations

import enum
import math
import pickle

import pytest
from signatures import V1, V2, array

import tilelang as ct
from tilelang.compilation import (
    CallingConvention,
    ConstantConstraint,
    KernelSignature,
    ListConstraint,
    ScalarConstraint,
    TupleConstraint,
)


def test_conventions():
    assert (V1.name, V1.code, V1.version) == ("cutile_python_v1", "t1", 1)
    assert (V2.name, V2.code, V2.version) == ("cutile_python_v2", "t2", 2)
    assert CallingConvention.from_code("t2") == V2 and CallingConvention.from_code("t2") is V2
    assert V1 != V2 and len({V1, CallingConvention.cutile_python_v1(), V2}) == 2
    assert repr(V2) == "CallingConvention('cutile_python_v2', 't2')"
    assert pickle.loads(pickle.dumps(V1)) is V1
    with pytest.raises(ValueError, match="Unknown calling convention code 't3'"):
        CallingConvention.from_code("t3")
    with pytest.raises(AttributeError, match="cutile_python_v3"):
        CallingConvention.cutile_python_v3()  # type: ignore[attr-defined]


def test_array_fields_per_axis():
    a = array(ndim=3, stride_divisible_by=(4, 4, 1), shape_divisible_by=(16, 1, 2),
              stride_constant=(None, None, 1), base_addr_divisible_by=16)
    assert a.stride_divisible_by == (4, 4, 1)
    # a known stride needs no factor (one that divides it is dropped)
    assert array(stride_divisible_by=2, stride_constant=(None, 4)).stride_divisible_by == (2, 1)
    assert a.stride_lower_bound_incl == (0, 0, None)  # ... nor a lower bound
    assert a.shape_divisible_by == (16, 1, 2)
    assert a.shape_constant == (None, None, None)
    assert a == array(ndim=3, stride_divisible_by=(4, 4, 1), shape_divisible_by=(16, 1, 2),
                      stride_constant=[None, None, 1], base_addr_divisible_by=16)
    assert hash(a) == hash(a.replace())
    assert a.replace(base_addr_divisible_by=8).base_addr_divisible_by == 8


@pytest.mark.parametrize("facts, error, match", [
    ({"stride_constant": (None, 6), "stride_divisible_by": (1, 4)}, ValueError,
     r"stride_constant\[1\] is set to 6, which is not divisible by 4"),
    ({"shape_constant": (8, None), "shape_divisible_by": 16}, ValueError,
     r"shape_constant\[0\] is set to 8, which is not divisible by 16"),
    ({"stride_constant": (-1, None)}, ValueError, "less than the lower bound 0"),
    ({"shape_constant": (-1, None)}, ValueError, "must be non-negative"),
    ({"stride_divisible_by": (1, 2, 3)}, ValueError, "doesn't match ndim=2"),
    ({"stride_divisible_by": 0}, ValueError, "strictly positive"),
    ({"base_addr_divisible_by": 0}, ValueError, "strictly positive"),
    ({"base_addr_divisible_by": 1.5}, TypeError, "base_addr_divisible_by"),
    ({"stride_constant": (None, True)}, TypeError, "must be None or int"),
    ({"index_dtype": ct.int16}, ValueError, "must be int32 or int64"),
    ({"alias_groups": "ab"}, TypeError, "cannot be a string"),
    ({"alias_groups": (1,)}, TypeError, "non-string type"),
])
def test_array_refuses(facts, error, match):
    with pytest.raises(error, match=match):
        array(**facts)


def test_array_refuses_dtype_and_rank():
    with pytest.raises(TypeError, match="Expected a DType"):
        array(dtype="float32")
    with pytest.raises(ValueError, match="cannot be negative"):
        array(ndim=-1)
    with pytest.raises(TypeError, match="Expected a DType"):
        ScalarConstraint(float)


def test_list_and_tuple():
    element = array()
    lst = ListConstraint(element, alias_groups=(), elements_may_alias=True, length=3)
    assert (lst.element, lst.elements_may_alias, lst.length) == (element, True, 3)
    with pytest.raises(TypeError, match="only supports an ArrayConstraint"):
        ListConstraint(ScalarConstraint(ct.int32), alias_groups=(), elements_may_alias=False)
    with pytest.raises(ValueError, match="length"):
        ListConstraint(element, alias_groups=(), elements_may_alias=False, length=0)
    t = TupleConstraint([1, (2.0, None), ScalarConstraint(ct.int64)])
    assert t.items == (ConstantConstraint(1),
                       TupleConstraint([ConstantConstraint(2.0), ConstantConstraint(None)]),
                       ScalarConstraint(ct.int64))


class Mode(enum.Enum):
    FAST = 1


def test_constant_equality():
    assert ConstantConstraint(1) != ConstantConstraint(1.0) != ConstantConstraint(True)
    assert ConstantConstraint(math.nan) == ConstantConstraint(float("nan"))
    assert ConstantConstraint(0.0) != ConstantConstraint(-0.0)
    assert len({ConstantConstraint(1), ConstantConstraint(1), ConstantConstraint(True)}) == 2
    for value in ("text", None, ct.float16, Mode.FAST):
        assert ConstantConstraint(value).value is value
    with pytest.raises(TypeError, match="TupleConstraint"):
        ConstantConstraint((1, 2))
    with pytest.raises(TypeError, match="hashable"):
        ConstantConstraint(bytearray(b"x"))


def test_signature_shorthand_and_symbol():
    sig = KernelSignature([array(), 64, (1, 2.5)], V2)
    assert sig.parameters[1] == ConstantConstraint(64)
    assert sig.parameters[2] == TupleConstraint([ConstantConstraint(1), ConstantConstraint(2.5)])
    assert sig.symbol is None
    named = sig.with_symbol("k_fast")
    assert named.symbol == "k_fast" and named.parameters == sig.parameters and named != sig
    assert sig.with_mangled_symbol("k").symbol == "k_Kt2_A2f32_3l0_I64_T2I1F4004000000000000"
    with pytest.raises(TypeError, match="Can't interpret"):
        KernelSignature([object()], V2)
    with pytest.raises(TypeError, match="calling convention"):
        KernelSignature([], "cutile_python_v2")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="`symbol` must be a string"):
        KernelSignature([], V2, symbol=1)  # type: ignore[arg-type]


def test_signature_needs_v2_for_tuples_and_extents():
    with pytest.raises(ValueError, match=r"Tuple parameters .* version >= 2 is required"):
        KernelSignature([(1, 2)], V1)
    with pytest.raises(ValueError, match=r"Static array shapes .* version >= 2 is required"):
        KernelSignature([array(shape_constant=(4, None))], V1)
    with pytest.raises(ValueError, match="Static array shapes"):
        KernelSignature([ListConstraint(array(shape_constant=(4, None)), alias_groups=(),
                                        elements_may_alias=False)], V1)
    KernelSignature([array(shape_constant=(4, None)), (1, 2)], V2)


@pytest.mark.parametrize("params, match", [
    ([array(alias_groups=("a",))], "mentioned only once"),
    ([array(alias_groups=("a", "a")), array(alias_groups=("a",))], "occurs more than once"),
    ([array(alias_groups=("a",)),
      ListConstraint(array(), alias_groups=("a",), elements_may_alias=False)],
     "different types ArrayConstraint and ListConstraint"),
])
def test_signature_alias_groups(params, match):
    with pytest.raises(ValueError, match=match):
        KernelSignature(params, V1)


def test_signature_alias_groups_shared():
    inside = ListConstraint(array(alias_groups=("x",)), alias_groups=(), elements_may_alias=False)
    sig = KernelSignature([array(alias_groups=("x", "y")), inside, (array(alias_groups=("y",)),)],
                          V2)
    assert sig.parameters[0].alias_groups == ("x", "y")
