"""`tile` IR of factories (full, zeros, ones, arange), astype and shape manipulation."""

from __future__ import annotations

import numpy as np

import tilelang as ct
from tilelang.testing import filecheck


def test_full_with_constant(fe):
    @ct.kernel
    def k(a):
        ct.full((4, 8), 1.5, ct.float16)

    # CHECK: [[C:%.+]] = "tile.constant"() {value = 1.500000e+00 : f16} : () -> f16
    # CHECK-NEXT: "tile.splat"([[C]]) : (f16) -> tensor<4x8xf16>
    filecheck(fe.tile_ir(k, fe.array()))


def test_full_with_runtime_scalar(fe):
    @ct.kernel
    def k(a, x):
        ct.full((4,), x, ct.int32)

    # CHECK: [[C:%.+]] = "tile.cast"(%arg1) : (f32) -> i32
    # CHECK-NEXT: "tile.splat"([[C]]) : (i32) -> tensor<4xi32>
    filecheck(fe.tile_ir(k, fe.array(), 2.5))


def test_zeros_and_ones(fe):
    @ct.kernel
    def k(a):
        ct.zeros(16, ct.float32)
        ct.ones((2, 2), np.int8)
        ct.zeros((2,), ct.bool_)

    # CHECK: [[Z:%.+]] = "tile.constant"() {value = 0.000000e+00 : f32}
    # CHECK-NEXT: "tile.splat"([[Z]]) : (f32) -> tensor<16xf32>
    # CHECK: [[O:%.+]] = "tile.constant"() {value = 1 : i8}
    # CHECK-NEXT: "tile.splat"([[O]]) : (i8) -> tensor<2x2xi8>
    # CHECK: [[F:%.+]] = "tile.constant"() {value = false}
    # CHECK-NEXT: "tile.splat"([[F]]) : (i1) -> tensor<2xi1>
    filecheck(fe.tile_ir(k, fe.array()))


def test_arange(fe):
    @ct.kernel
    def k(a):
        ct.arange(16, dtype=ct.int32)

    # CHECK: "tile.arange"() : () -> tensor<16xi32>
    # CHECK-NOT: "tile.add"
    # CHECK-NOT: "tile.mul"
    filecheck(fe.tile_ir(k, fe.array()))


def test_arange_with_start_and_step(fe):
    @ct.kernel
    def k(a, n):
        ct.arange(8, dtype=ct.int16, start=7, step=-1)
        ct.arange(8, dtype=ct.int64, start=n)

    # CHECK: [[R:%.+]] = "tile.arange"() : () -> tensor<8xi16>
    # CHECK: [[S:%.+]] = "tile.constant"() {value = -1 : i16}
    # CHECK-NEXT: [[SS:%.+]] = "tile.splat"([[S]]) : (i16) -> tensor<8xi16>
    # CHECK-NEXT: [[M:%.+]] = "tile.mul"([[R]], [[SS]]) : (tensor<8xi16>, tensor<8xi16>)
    # CHECK: [[ST:%.+]] = "tile.constant"() {value = 7 : i16}
    # CHECK-NEXT: [[STS:%.+]] = "tile.splat"([[ST]])
    # CHECK-NEXT: "tile.add"([[M]], [[STS]]) : (tensor<8xi16>, tensor<8xi16>) -> tensor<8xi16>
    # CHECK: [[R2:%.+]] = "tile.arange"() : () -> tensor<8xi64>
    # CHECK-NEXT: [[N:%.+]] = "tile.cast"(%arg1) : (i32) -> i64
    # CHECK-NEXT: [[NS:%.+]] = "tile.splat"([[N]]) : (i64) -> tensor<8xi64>
    # CHECK-NEXT: "tile.add"([[R2]], [[NS]]) : (tensor<8xi64>, tensor<8xi64>) -> tensor<8xi64>
    filecheck(fe.tile_ir(k, fe.array(), 3))


def test_astype(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (16,))
        t.astype(ct.float16)
        ct.astype(t, np.int8)
        t.astype(ct.float32)

    # CHECK: [[T:%.+]] = "tile.load"
    # CHECK-NEXT: "tile.cast"([[T]]) : (tensor<16xf32>) -> tensor<16xf16>
    # CHECK-NEXT: "tile.cast"([[T]]) : (tensor<16xf32>) -> tensor<16xi8>
    # CHECK-NOT: "tile.cast"
    filecheck(fe.tile_ir(k, fe.array()))


def test_astype_with_rounding_mode(fe):
    @ct.kernel
    def k(a):
        ct.load(a, (0,), (16,)).astype(ct.float16, rounding_mode=ct.RoundingMode.RN)

    # CHECK: "tile.cast"({{%.+}}) : (tensor<16xf32>) -> tensor<16xf16>
    filecheck(fe.tile_ir(k, fe.array()))


def test_astype_directed_rounding_is_an_attribute(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (16,))
        t.astype(ct.float16, rounding_mode=ct.RoundingMode.RZ)
        t.astype(ct.tfloat32, rounding_mode=ct.RoundingMode.RA)
        t.astype(ct.float64, rounding_mode=ct.RoundingMode.RM)  # exact, but the mode is kept
        t.astype(ct.float32, rounding_mode=ct.RoundingMode.RP)  # to its own dtype: no cast

    # CHECK: "tile.cast"({{%.+}}) {rounding_mode = "zero"} : (tensor<16xf32>) -> tensor<16xf16>
    # CHECK: "tile.cast"({{%.+}}) {rounding_mode = "nearest_away"} : {{.+}} -> tensor<16xtf32>
    # CHECK: "tile.cast"({{%.+}}) {rounding_mode = "negative_inf"} : {{.+}} -> tensor<16xf64>
    # CHECK-NOT: "tile.cast"
    filecheck(fe.tile_ir(k, fe.array()))


def test_astype_directed_rounding_of_a_constant_folds(fe):
    @ct.kernel
    def k(a):
        ct.store(a, (0,), ct.astype(1.0009, ct.float16, rounding_mode=ct.RoundingMode.RZ))

    # float32(1.0009) toward zero in float16 is 1.0 (to nearest it is 1 + 2**-10)
    # CHECK: "tile.constant"() {value = 1.000000e+00 : f16}
    # CHECK-NOT: "tile.cast"
    filecheck(ct.compile(k, (fe.array(np.float16),), stop_after="tile-opt").asm["tile-opt"])


def test_strict_constants(fe):
    @ct.kernel
    def k(a):
        ct.store(a, (0,), ct.int16(5) + 2)
        ct.store(a, (1,), ct.int16(5) + ct.int32(7))

    # A dtype called on a constant makes it strictly typed; a loose constant adopts its dtype,
    # and integer arithmetic of typed constants folds (in that dtype).
    # CHECK: "tile.constant"() {value = 5 : i16} : () -> i16
    # CHECK-NEXT: "tile.constant"() {value = 2 : i16} : () -> i16
    # CHECK-NEXT: "tile.constant"() {value = 7 : i16} : () -> i16
    # CHECK-NOT: "tile.add"
    # CHECK: [[C:%.+]] = "tile.constant"() {value = 5 : i16}
    # CHECK-NEXT: [[D:%.+]] = "tile.constant"() {value = 7 : i32}
    # CHECK-NEXT: [[E:%.+]] = "tile.cast"([[C]]) : (i16) -> i32
    # CHECK-NEXT: "tile.add"([[E]], [[D]]) : (i32, i32) -> i32
    filecheck(fe.tile_ir(k, fe.array(np.int64)))


def test_constant_folding_of_typed_constants(fe):
    @ct.kernel
    def k(a):
        ct.store(a, (0,), (ct.int8(127) + 1).astype(ct.int64))  # wraps, as at run time
        ct.store(a, (1,), (ct.int32(7) // 0).astype(ct.int64))  # left to run time
        ct.store(a, (2,), (ct.float32(0.1) * 3).astype(ct.int64))  # floats: left to the target

    # CHECK: "tile.constant"() {value = -128 : i8}
    # CHECK: "tile.floordiv"
    # CHECK: "tile.mul"
    filecheck(fe.tile_ir(k, fe.array(np.int64)))


def test_dtype_constructors_wrap_and_saturate(fe):
    @ct.kernel
    def k(a):
        ct.store(a, (0,), ct.int64(ct.uint32(-3)))  # integers wrap, as astype at run time
        ct.store(a, (1,), ct.int64(ct.int8(1000)))
        ct.store(a, (2,), ct.int64(ct.int16(1e9)))  # floats saturate

    # CHECK: "tile.constant"() {value = 4294967293 : ui32} : () -> ui32
    # CHECK: "tile.constant"() {value = -24 : i8}
    # CHECK: "tile.constant"() {value = 32767 : i16}
    filecheck(fe.tile_ir(k, fe.array(np.int64)))


def test_reshape(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (16,))
        ct.reshape(t, (4, -1))
        t.reshape(2, 8)
        t.reshape((16,))

    # CHECK: [[T:%.+]] = "tile.load"
    # CHECK-NEXT: "tile.reshape"([[T]]) : (tensor<16xf32>) -> tensor<4x4xf32>
    # CHECK-NEXT: "tile.reshape"([[T]]) : (tensor<16xf32>) -> tensor<2x8xf32>
    # CHECK-NOT: "tile.reshape"
    filecheck(fe.tile_ir(k, fe.array()))


def test_expand_dims_and_none_indexing(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (16,))
        ct.expand_dims(t, 0)
        ct.expand_dims(t, -1)
        t[:, None]
        t[None, :]
        t[..., None, None]
        t[:,]  # a tuple of slices (a lone `:` is an error, as in cuTile)

    # CHECK: [[T:%.+]] = "tile.load"
    # CHECK-NEXT: "tile.reshape"([[T]]) : (tensor<16xf32>) -> tensor<1x16xf32>
    # CHECK-NEXT: "tile.reshape"([[T]]) : (tensor<16xf32>) -> tensor<16x1xf32>
    # CHECK-NEXT: "tile.reshape"([[T]]) : (tensor<16xf32>) -> tensor<16x1xf32>
    # CHECK-NEXT: "tile.reshape"([[T]]) : (tensor<16xf32>) -> tensor<1x16xf32>
    # CHECK-NEXT: "tile.reshape"([[T]]) : (tensor<16xf32>) -> tensor<16x1x1xf32>
    # CHECK-NEXT: return
    filecheck(fe.tile_ir(k, fe.array()))


def test_broadcast_to(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (0,), (16,))
        ct.broadcast_to(t[None, :], (4, 16))
        ct.broadcast_to(t, (2, 16))
        ct.broadcast_to(ct.bid(0), (2, 2))

    # CHECK: [[T:%.+]] = "tile.load"
    # CHECK-NEXT: [[R:%.+]] = "tile.reshape"([[T]]) : (tensor<16xf32>) -> tensor<1x16xf32>
    # CHECK-NEXT: "tile.broadcast"([[R]]) : (tensor<1x16xf32>) -> tensor<4x16xf32>
    # CHECK-NEXT: [[R2:%.+]] = "tile.reshape"([[T]]) : (tensor<16xf32>) -> tensor<1x16xf32>
    # CHECK-NEXT: "tile.broadcast"([[R2]]) : (tensor<1x16xf32>) -> tensor<2x16xf32>
    # CHECK-NEXT: [[B:%.+]] = "tile.bid"
    # CHECK-NEXT: "tile.splat"([[B]]) : (i32) -> tensor<2x2xi32>
    filecheck(fe.tile_ir(k, fe.array()))


def test_broadcast_of_one_element_tile(fe):
    @ct.kernel
    def k(a):
        ct.full((1,), 2.0, ct.float32) + ct.zeros((4, 16), ct.float32)

    # A (1,) tile broadcasts through a rank-matching reshape (the dialect has no tile-to-scalar).
    # CHECK: [[O:%.+]] = "tile.splat"({{%.+}}) : (f32) -> tensor<1xf32>
    # CHECK: [[R:%.+]] = "tile.reshape"([[O]]) : (tensor<1xf32>) -> tensor<1x1xf32>
    # CHECK-NEXT: [[B:%.+]] = "tile.broadcast"([[R]]) : (tensor<1x1xf32>) -> tensor<4x16xf32>
    # CHECK-NEXT: "tile.add"([[B]], {{%.+}}) : (tensor<4x16xf32>, tensor<4x16xf32>)
    filecheck(fe.tile_ir(k, fe.array()))


def test_tile_attributes_are_constants(fe):
    @ct.kernel
    def k(a):
        t = ct.zeros((4, 8), ct.float16)
        ct.store(a, (0,), t.shape[0] * t.shape[1] + t.ndim)
        if t.dtype == ct.float16:
            ct.store(a, (1,), 1)
        else:
            ct.store(a, (1,), 2)

    # CHECK: "tile.constant"() {value = 34 : i32}
    # CHECK-NOT: scf.if
    # CHECK: "tile.constant"() {value = 1 : i32}
    # CHECK-NOT: "tile.constant"() {value = 2 : i32}
    filecheck(fe.tile_ir(k, fe.array(np.int32)))
