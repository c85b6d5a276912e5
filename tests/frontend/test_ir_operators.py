"""`tile` IR of operators, dtype promotion, comparisons, where/minimum/maximum and math."""
# ruff: noqa: B015, B018, RUF021  (kernels written to exercise the compiler)

from __future__ import annotations

import numpy as np
import pytest

import tilelang as ct
from tilelang.language import dtypes as dt
from tilelang.testing import filecheck


def _t(dtype: dt.DType, shape: str = "16x") -> str:
    return f"tensor<{shape}{dtype.mlir}>"


def test_arithmetic_operators(fe):
    @ct.kernel
    def k(a, b):
        x = ct.load(a, (0,), (16,))
        y = ct.load(b, (0,), (16,))
        x + y
        x - y
        x * y
        x / y
        x // y
        x % y
        x**y

    # CHECK: [[X:%.+]] = "tile.load"(%arg0
    # CHECK: [[Y:%.+]] = "tile.load"(%arg1
    # CHECK-NEXT: "tile.add"([[X]], [[Y]]) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    # CHECK-NEXT: "tile.sub"([[X]], [[Y]]) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    # CHECK-NEXT: "tile.mul"([[X]], [[Y]]) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    # CHECK-NEXT: "tile.div"([[X]], [[Y]]) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    # CHECK-NEXT: "tile.floordiv"([[X]], [[Y]]) : (tensor<16xf32>, tensor<16xf32>)
    # CHECK-NEXT: "tile.mod"([[X]], [[Y]]) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    # CHECK-NEXT: "tile.pow"([[X]], [[Y]]) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    # CHECK-NEXT: return
    filecheck(fe.tile_ir(k, fe.array(), fe.array()))


def test_integer_operators(fe):
    @ct.kernel
    def k(a, b):
        x = ct.load(a, (0,), (16,))
        y = ct.load(b, (0,), (16,))
        x // y
        x % y
        x & y
        x | y
        x ^ y
        x << y
        x >> y

    # CHECK: [[X:%.+]] = "tile.load"(%arg0
    # CHECK: [[Y:%.+]] = "tile.load"(%arg1
    # CHECK-NEXT: "tile.floordiv"([[X]], [[Y]]) : (tensor<16xui16>, tensor<16xui16>)
    # CHECK-NEXT: "tile.mod"([[X]], [[Y]]) : (tensor<16xui16>, tensor<16xui16>)
    # CHECK-NEXT: "tile.and"([[X]], [[Y]]) : (tensor<16xui16>, tensor<16xui16>)
    # CHECK-NEXT: "tile.or"([[X]], [[Y]]) : (tensor<16xui16>, tensor<16xui16>)
    # CHECK-NEXT: "tile.xor"([[X]], [[Y]]) : (tensor<16xui16>, tensor<16xui16>)
    # CHECK-NEXT: "tile.shl"([[X]], [[Y]]) : (tensor<16xui16>, tensor<16xui16>)
    # CHECK-NEXT: "tile.shr"([[X]], [[Y]]) : (tensor<16xui16>, tensor<16xui16>) -> tensor<16xui16>
    filecheck(fe.tile_ir(k, fe.array(np.uint16), fe.array(np.uint16)))


def test_function_forms(fe):
    @ct.kernel
    def k(a, b):
        x = ct.load(a, (0,), (16,))
        y = ct.load(b, (0,), (16,))
        ct.add(x, y)
        ct.sub(x, y)
        ct.mul(x, y)
        ct.truediv(x, y)
        ct.floordiv(x, y)
        ct.mod(x, y)
        ct.pow(x, y)
        ct.atan2(x, y)
        ct.negative(x)

    # CHECK: [[X:%.+]] = "tile.load"(%arg0
    # CHECK: [[Y:%.+]] = "tile.load"(%arg1
    # CHECK-NEXT: "tile.add"([[X]], [[Y]])
    # CHECK-NEXT: "tile.sub"([[X]], [[Y]])
    # CHECK-NEXT: "tile.mul"([[X]], [[Y]])
    # CHECK-NEXT: "tile.div"([[X]], [[Y]])
    # CHECK-NEXT: "tile.floordiv"([[X]], [[Y]])
    # CHECK-NEXT: "tile.mod"([[X]], [[Y]])
    # CHECK-NEXT: "tile.pow"([[X]], [[Y]])
    # CHECK-NEXT: "tile.atan2"([[X]], [[Y]]) : (tensor<16xf64>, tensor<16xf64>) -> tensor<16xf64>
    # CHECK-NEXT: "tile.neg"([[X]]) : (tensor<16xf64>) -> tensor<16xf64>
    filecheck(fe.tile_ir(k, fe.array(np.float64), fe.array(np.float64)))


def test_bitwise_function_forms(fe):
    @ct.kernel
    def k(a):
        x = ct.load(a, (0,), (16,))
        ct.bitwise_and(x, 3)
        ct.bitwise_or(x, x)
        ct.bitwise_xor(x, x)
        ct.bitwise_lshift(x, 1)
        ct.bitwise_rshift(x, 1)
        ct.bitwise_not(x)

    # CHECK: "tile.and"({{.*}}) : (tensor<16xi8>, tensor<16xi8>) -> tensor<16xi8>
    # CHECK: "tile.or"
    # CHECK: "tile.xor"
    # CHECK: "tile.shl"
    # CHECK: "tile.shr"
    # CHECK: "tile.invert"({{%.+}}) : (tensor<16xi8>) -> tensor<16xi8>
    filecheck(fe.tile_ir(k, fe.array(np.int8)))


def test_unary_operators(fe):
    @ct.kernel
    def k(a):
        x = ct.load(a, (0,), (16,))
        b = x > 0
        -x
        +x
        ~x
        -b
        +b
        ~b
        abs(x)

    # CHECK: [[X:%.+]] = "tile.load"
    # CHECK: [[B:%.+]] = "tile.cmp"
    # CHECK-NEXT: "tile.neg"([[X]]) : (tensor<16xi32>) -> tensor<16xi32>
    # CHECK-NEXT: "tile.invert"([[X]]) : (tensor<16xi32>) -> tensor<16xi32>
    # Bools are negated as int32; `+` casts them; `~` of a bool is logical not.
    # CHECK-NEXT: [[C:%.+]] = "tile.cast"([[B]]) : (tensor<16xi1>) -> tensor<16xi32>
    # CHECK-NEXT: "tile.neg"([[C]]) : (tensor<16xi32>) -> tensor<16xi32>
    # CHECK-NEXT: "tile.cast"([[B]]) : (tensor<16xi1>) -> tensor<16xi32>
    # CHECK-NEXT: "tile.invert"([[B]]) : (tensor<16xi1>) -> tensor<16xi1>
    # CHECK-NEXT: "tile.abs"([[X]]) : (tensor<16xi32>) -> tensor<16xi32>
    # CHECK-NEXT: return
    filecheck(fe.tile_ir(k, fe.array(np.int32)))


def test_not_of_scalar(fe):
    @ct.kernel
    def k(a):
        ct.store(a, (0,), not ct.bid(0))

    # CHECK: [[B:%.+]] = "tile.bid"
    # CHECK-NEXT: [[Z:%.+]] = "tile.constant"() {value = 0 : i32}
    # CHECK-NEXT: [[NE:%.+]] = "tile.cmp"([[B]], [[Z]]) {predicate = "ne"} : (i32, i32) -> i1
    # CHECK-NEXT: "tile.invert"([[NE]]) : (i1) -> i1
    filecheck(fe.tile_ir(k, fe.array(np.bool_)))


def test_abs_of_unsigned_is_identity(fe):
    @ct.kernel
    def k(a):
        ct.store(a, (0,), abs(ct.load(a, (0,), (16,))))

    # CHECK-NOT: "tile.abs"
    filecheck(fe.tile_ir(k, fe.array(np.uint8)))


# ----- promotion -------------------------------------------------------------------------------

TYPED_PROMOTIONS = [
    (dt.int8, dt.int16, dt.int16),
    (dt.uint8, dt.uint32, dt.uint32),
    (dt.bool_, dt.int8, dt.int8),
    (dt.int64, dt.float16, dt.float16),
    (dt.int32, dt.bfloat16, dt.bfloat16),
    (dt.uint16, dt.float32, dt.float32),
    (dt.float16, dt.float32, dt.float32),
    (dt.bfloat16, dt.float64, dt.float64),
    (dt.float32, dt.float64, dt.float64),
    (dt.int32, dt.int32, dt.int32),
]


@pytest.mark.parametrize(("lhs", "rhs", "result"), TYPED_PROMOTIONS,
                         ids=[f"{a.name}-{b.name}" for a, b, _ in TYPED_PROMOTIONS])
def test_promotion_of_two_tiles(fe, lhs, rhs, result):
    @ct.kernel
    def k(a, b):
        ct.load(a, (0,), (16,)) * ct.load(b, (0,), (16,))

    ir = fe.tile_ir(k, fe.array(lhs.numpy), fe.array(rhs.numpy))
    r = _t(result)
    assert fe.signatures(ir, "tile.mul") == [f"({r}, {r}) -> {r}"]
    assert fe.signatures(ir, "tile.cast") == [f"({_t(d)}) -> {r}" for d in (lhs, rhs)
                                              if d is not result]


CONSTANT_PROMOTIONS = [
    (dt.int8, 1, dt.int8),
    (dt.uint8, 255, dt.uint8),
    (dt.float16, 2.0, dt.float16),
    (dt.float64, 1.5, dt.float64),
    (dt.int32, 1.5, dt.float32),
    (dt.int64, 1.5, dt.float32),
    (dt.bool_, 1, dt.int32),
    (dt.int16, True, dt.int16),
    (dt.uint64, 2**63, dt.uint64),
]


@pytest.mark.parametrize(("tile", "const", "result"), CONSTANT_PROMOTIONS,
                         ids=[f"{a.name}-{c!r}" for a, c, _ in CONSTANT_PROMOTIONS])
def test_promotion_with_constant(fe, tile, const, result):
    @ct.kernel
    def k(a, C: ct.Constant):
        ct.load(a, (0,), (16,)) + C

    ir = fe.tile_ir(k, fe.array(tile.numpy), const)
    r = _t(result)
    assert fe.signatures(ir, "tile.add") == [f"({r}, {r}) -> {r}"]
    assert fe.signatures(ir, "tile.cast") == ([] if tile is result else [f"({_t(tile)}) -> {r}"])
    shown = f"{float(const):.6e}" if result.is_float else int(const)
    assert f'"tile.constant"() {{value = {shown} : {result.mlir}}}' in ir


@pytest.mark.parametrize(("lhs", "rhs", "result"), [
    (dt.int32, dt.int32, dt.float32), (dt.int64, dt.int64, dt.float32),
    (dt.float16, dt.int8, dt.float16), (dt.float64, dt.float32, dt.float64),
])
def test_true_division_result(fe, lhs, rhs, result):
    @ct.kernel
    def k(a, b):
        ct.load(a, (0,), (16,)) / ct.load(b, (0,), (16,))

    r = _t(result)
    ir = fe.tile_ir(k, fe.array(lhs.numpy), fe.array(rhs.numpy))
    assert fe.signatures(ir, "tile.div") == [f"({r}, {r}) -> {r}"]


def test_int_divided_by_constant_is_float32(fe):
    @ct.kernel
    def k(a):
        ct.load(a, (0,), (16,)) / 3

    # CHECK: [[X:%.+]] = "tile.load"
    # CHECK-NEXT: [[F:%.+]] = "tile.cast"([[X]]) : (tensor<16xi32>) -> tensor<16xf32>
    # CHECK-NEXT: [[C:%.+]] = "tile.constant"() {value = 3.000000e+00 : f32}
    # CHECK-NEXT: [[S:%.+]] = "tile.splat"([[C]])
    # CHECK-NEXT: "tile.div"([[F]], [[S]]) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    filecheck(fe.tile_ir(k, fe.array(np.int32)))


def test_constant_on_the_left(fe):
    @ct.kernel
    def k(a):
        2.0 - ct.load(a, (0,), (16,))

    # CHECK: [[X:%.+]] = "tile.load"
    # CHECK-NEXT: [[C:%.+]] = "tile.constant"() {value = 2.000000e+00 : f16}
    # CHECK-NEXT: [[S:%.+]] = "tile.splat"([[C]]) : (f16) -> tensor<16xf16>
    # CHECK-NEXT: "tile.sub"([[S]], [[X]])
    filecheck(fe.tile_ir(k, fe.array(np.float16)))


def test_broadcasting_operands(fe):
    @ct.kernel
    def k(a, b):
        ct.load(a, (0, 0), (4, 16)) + ct.load(b, (0,), (16,))

    # CHECK: [[X:%.+]] = "tile.load"(%arg0{{.*}} -> tensor<4x16xf32>
    # CHECK: [[Y:%.+]] = "tile.load"(%arg1{{.*}} -> tensor<16xf32>
    # CHECK-NEXT: [[R:%.+]] = "tile.reshape"([[Y]]) : (tensor<16xf32>) -> tensor<1x16xf32>
    # CHECK-NEXT: [[B:%.+]] = "tile.broadcast"([[R]]) : (tensor<1x16xf32>) -> tensor<4x16xf32>
    # CHECK-NEXT: "tile.add"([[X]], [[B]]) : (tensor<4x16xf32>, tensor<4x16xf32>)
    filecheck(fe.tile_ir(k, fe.array(shape=(8, 32)), fe.array()))


# ----- comparisons -----------------------------------------------------------------------------


def test_comparisons(fe):
    @ct.kernel
    def k(a, b):
        x = ct.load(a, (0,), (16,))
        y = ct.load(b, (0,), (16,))
        x == y
        x != y
        x < y
        x <= y
        x > y
        x >= y
        ct.less(x, y)

    # CHECK: [[X:%.+]] = "tile.load"(%arg0
    # CHECK: [[Y:%.+]] = "tile.load"(%arg1
    # CHECK-NEXT: "tile.cmp"([[X]], [[Y]]) {predicate = "eq"}
    # CHECK-SAME: : (tensor<16xi64>, tensor<16xi64>) -> tensor<16xi1>
    # CHECK-NEXT: "tile.cmp"([[X]], [[Y]]) {predicate = "ne"}
    # CHECK-NEXT: "tile.cmp"([[X]], [[Y]]) {predicate = "lt"}
    # CHECK-NEXT: "tile.cmp"([[X]], [[Y]]) {predicate = "le"}
    # CHECK-NEXT: "tile.cmp"([[X]], [[Y]]) {predicate = "gt"}
    # CHECK-NEXT: "tile.cmp"([[X]], [[Y]]) {predicate = "ge"}
    # CHECK-NEXT: "tile.cmp"([[X]], [[Y]]) {predicate = "lt"}
    filecheck(fe.tile_ir(k, fe.array(np.int64), fe.array(np.int64)))


def test_comparison_promotes(fe):
    @ct.kernel
    def k(a):
        ct.load(a, (0,), (16,)) < 2.5

    # CHECK: [[X:%.+]] = "tile.load"
    # CHECK-NEXT: [[F:%.+]] = "tile.cast"([[X]]) : (tensor<16xi8>) -> tensor<16xf32>
    # CHECK: "tile.cmp"([[F]], {{%.+}}) {predicate = "lt"}
    # CHECK-SAME: : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xi1>
    filecheck(fe.tile_ir(k, fe.array(np.int8)))


def test_chained_comparison(fe):
    @ct.kernel
    def k(a):
        x = ct.load(a, (0,), (16,))
        0 < x < 5

    # CHECK: [[L:%.+]] = "tile.cmp"({{.*}}) {predicate = "lt"}
    # CHECK: [[R:%.+]] = "tile.cmp"({{.*}}) {predicate = "lt"}
    # CHECK-NEXT: "tile.and"([[L]], [[R]]) : (tensor<16xi1>, tensor<16xi1>) -> tensor<16xi1>
    filecheck(fe.tile_ir(k, fe.array()))


def test_scalar_and_or(fe):
    @ct.kernel
    def k(a):
        ct.store(a, (0,), ct.bid(0) > 1 and ct.bid(1) > 2 or ct.bid(2))

    # CHECK: [[A:%.+]] = "tile.cmp"({{.*}}) {predicate = "gt"}
    # CHECK: [[B:%.+]] = "tile.cmp"({{.*}}) {predicate = "gt"}
    # CHECK-NEXT: [[AB:%.+]] = "tile.and"([[A]], [[B]]) : (i1, i1) -> i1
    # CHECK-NEXT: [[C:%.+]] = "tile.bid"() {axis = 2 : i64}
    # CHECK: [[CB:%.+]] = "tile.cmp"([[C]], {{%.+}}) {predicate = "ne"}
    # CHECK-NEXT: "tile.or"([[AB]], [[CB]]) : (i1, i1) -> i1
    filecheck(fe.tile_ir(k, fe.array(np.bool_)))


# ----- where, minimum, maximum -----------------------------------------------------------------


def test_where(fe):
    @ct.kernel
    def k(a):
        x = ct.load(a, (0,), (16,))
        ct.where(x > 0, x, 0.0)

    # CHECK: [[X:%.+]] = "tile.load"
    # CHECK: [[C:%.+]] = "tile.cmp"([[X]], {{%.+}}) {predicate = "gt"}
    # CHECK: [[Z:%.+]] = "tile.splat"({{%.+}}) : (f16) -> tensor<16xf16>
    # CHECK-NEXT: "tile.select"([[C]], [[X]], [[Z]])
    # CHECK-SAME: : (tensor<16xi1>, tensor<16xf16>, tensor<16xf16>) -> tensor<16xf16>
    filecheck(fe.tile_ir(k, fe.array(np.float16)))


def test_where_broadcasts_and_converts_condition(fe):
    @ct.kernel
    def k(a, b):
        m = ct.load(a, (0,), (16,))
        ct.where(m, ct.load(b, (0, 0), (4, 16)), 1)

    # CHECK: [[M:%.+]] = "tile.load"(%arg0
    # CHECK: [[B:%.+]] = "tile.cmp"([[M]], {{%.+}}) {predicate = "ne"}
    # CHECK-SAME: : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi1>
    # CHECK: "tile.broadcast"({{%.+}}) : (tensor<1x16xi1>) -> tensor<4x16xi1>
    # CHECK: "tile.select"(
    # CHECK-SAME: : (tensor<4x16xi1>, tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
    filecheck(fe.tile_ir(k, fe.array(np.int32), fe.array(shape=(8, 32))))


def test_conditional_expression_on_scalar(fe):
    @ct.kernel
    def k(a):
        ct.store(a, (0,), 1 if ct.bid(0) > 0 else 2)

    # CHECK: [[C:%.+]] = "tile.cmp"
    # CHECK: "tile.select"([[C]], {{%.+}}, {{%.+}}) : (i1, i32, i32) -> i32
    filecheck(fe.tile_ir(k, fe.array(np.int32)))


def test_minimum_maximum(fe):
    @ct.kernel
    def k(a, b):
        x = ct.load(a, (0,), (16,))
        y = ct.load(b, (0,), (16,))
        ct.minimum(x, y)
        ct.maximum(x, y)
        min(x, y)
        max(x, y, 0.0)

    # CHECK: [[X:%.+]] = "tile.load"(%arg0
    # CHECK: [[Y:%.+]] = "tile.load"(%arg1
    # CHECK-NEXT: "tile.minimum"([[X]], [[Y]]) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    # CHECK-NEXT: "tile.maximum"([[X]], [[Y]])
    # CHECK-NEXT: "tile.minimum"([[X]], [[Y]])
    # CHECK-NEXT: [[M:%.+]] = "tile.maximum"([[X]], [[Y]])
    # CHECK: "tile.maximum"([[M]], {{%.+}})
    filecheck(fe.tile_ir(k, fe.array(), fe.array()))


def test_maximum_propagate_nan(fe):
    @ct.kernel
    def k(a, b):
        ct.maximum(ct.load(a, (0,), (16,)), ct.load(b, (0,), (16,)), propagate_nan=True)

    # CHECK: [[M:%.+]] = "tile.maximum"
    # CHECK: "tile.isnan"({{%.+}}) : (tensor<16xf32>) -> tensor<16xi1>
    # CHECK: [[EITHER:%.+]] = "tile.or"
    # CHECK: "tile.select"([[EITHER]], {{%.+}}, [[M]])
    filecheck(fe.tile_ir(k, fe.array(), fe.array()))


# ----- math ------------------------------------------------------------------------------------

MATH = ["exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "tan", "sinh", "cosh",
        "tanh", "floor", "ceil", "abs"]


@pytest.mark.parametrize("name", MATH)
def test_math_function(fe, name):
    @ct.kernel
    def k(a, F: ct.Constant):
        F(ct.load(a, (0,), (16,)))

    ir = fe.tile_ir(k, fe.array(np.float16), getattr(ct, name))
    assert fe.signatures(ir, f"tile.{name}") == ["(tensor<16xf16>) -> tensor<16xf16>"]


def test_math_on_ints_is_float32(fe):
    @ct.kernel
    def k(a):
        ct.exp(ct.load(a, (0,), (16,)))

    # CHECK: [[X:%.+]] = "tile.load"
    # CHECK-NEXT: [[F:%.+]] = "tile.cast"([[X]]) : (tensor<16xi32>) -> tensor<16xf32>
    # CHECK-NEXT: "tile.exp"([[F]]) : (tensor<16xf32>) -> tensor<16xf32>
    filecheck(fe.tile_ir(k, fe.array(np.int32)))


def test_math_approx(fe):
    @ct.kernel
    def k(a):
        x = ct.load(a, (0,), (16,))
        ct.tanh(x, rounding_mode=ct.RoundingMode.APPROX)
        ct.exp(x, rounding_mode=ct.RoundingMode.FULL)
        ct.sqrt(x, rounding_mode=ct.RoundingMode.RN, flush_to_zero=True)
        ct.truediv(x, x, rounding_mode=ct.RoundingMode.APPROX)

    # CHECK: "tile.tanh"({{%.+}}) {rounding_mode = "approx"}
    # CHECK: "tile.exp"({{%.+}}) :
    # CHECK: "tile.sqrt"({{%.+}}) :
    # CHECK: "tile.div"({{%.+}}, {{%.+}}) {rounding_mode = "approx"}
    filecheck(fe.tile_ir(k, fe.array()))


def test_isnan(fe):
    @ct.kernel
    def k(a):
        ct.isnan(ct.load(a, (0,), (16,)))

    # CHECK: "tile.isnan"({{%.+}}) : (tensor<16xbf16>) -> tensor<16xi1>
    filecheck(fe.tile_ir(k, fe.array("bfloat16")))


def test_math_of_constants_folds(fe):
    @ct.kernel
    def k(a):
        ct.store(a, (0,), ct.exp(0.0) + ct.sqrt(16.0) + ct.floor(2.5) + abs(-3))

    # CHECK-NOT: "tile.exp"
    # CHECK-NOT: "tile.sqrt"
    # CHECK: "tile.constant"() {value = 1.000000e+01 : f32}
    # CHECK-NOT: "tile.add"
    filecheck(fe.tile_ir(k, fe.array()))
