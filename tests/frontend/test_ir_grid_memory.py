"""`tile` IR of grid queries (bid, num_blocks, num_tiles, cdiv) and of load/store."""
# ruff: noqa: F841  (kernels written to exercise the compiler)

from __future__ import annotations

import numpy as np

import tilelang as ct
from tilelang.testing import filecheck


def test_bid_and_num_blocks(fe):
    @ct.kernel
    def k(a):
        ct.store(a, (ct.bid(2),), ct.num_blocks(1) + ct.bid(0))

    # CHECK: [[B2:%.+]] = "tile.bid"() {axis = 2 : i64} : () -> i32
    # CHECK-NEXT: [[N1:%.+]] = "tile.num_blocks"() {axis = 1 : i64} : () -> i32
    # CHECK-NEXT: [[B0:%.+]] = "tile.bid"() {axis = 0 : i64} : () -> i32
    # CHECK-NEXT: [[S:%.+]] = "tile.add"([[N1]], [[B0]]) : (i32, i32) -> i32
    # CHECK-NEXT: [[T:%.+]] = "tile.splat"([[S]]) : (i32) -> tensor<1xi32>
    # CHECK-NEXT: "tile.store"(%arg0, [[B2]], [[T]])
    filecheck(fe.tile_ir(k, fe.array(np.int32)))


def test_num_tiles(fe):
    @ct.kernel
    def k(a, out):
        ct.store(out, (0,), ct.num_tiles(a, axis=1, shape=(8, 32)))

    # CHECK: [[D:%.+]] = "tile.dim"(%arg0) {dim = 1 : i64}
    # CHECK: [[C:%.+]] = "tile.constant"() {value = 32 : i32}
    # CHECK-NEXT: [[Q:%.+]] = "tile.floordiv"([[D]], [[C]]) : (i32, i32) -> i32
    # CHECK: [[R:%.+]] = "tile.mod"([[D]], {{%.+}}) : (i32, i32) -> i32
    # CHECK: [[NE:%.+]] = "tile.cmp"([[R]], {{%.+}}) {predicate = "ne"}
    # CHECK-NEXT: [[ONE:%.+]] = "tile.cast"([[NE]]) : (i1) -> i32
    # CHECK-NEXT: "tile.add"([[Q]], [[ONE]]) : (i32, i32) -> i32
    filecheck(fe.tile_ir(k, fe.array(shape=(16, 64)), fe.array(np.int32)))


def test_num_tiles_with_order(fe):
    @ct.kernel
    def k(a, out):
        ct.store(out, (0,), ct.num_tiles(a, axis=1, shape=(8, 32), order="F"))

    # Tile axis 1 of an "F"-ordered tile space is array axis 0.
    # CHECK: "tile.dim"(%arg0) {dim = 0 : i64}
    # CHECK-NOT: "tile.dim"
    # CHECK: "tile.floordiv"
    filecheck(fe.tile_ir(k, fe.array(shape=(16, 64)), fe.array(np.int32)))


def test_cdiv_of_constants_folds(fe):
    @ct.kernel
    def k(a, N: ct.Constant[int]):
        ct.store(a, (0,), ct.cdiv(N, 128))

    # CHECK-NOT: "tile.floordiv"
    # CHECK: "tile.constant"() {value = 8 : i32}
    # CHECK-NOT: "tile.floordiv"
    filecheck(fe.tile_ir(k, fe.array(np.int32), 1000))


def test_cdiv_of_runtime_scalar(fe):
    @ct.kernel
    def k(a, n):
        ct.store(a, (0,), ct.cdiv(n, 4))

    # Exact rounding up: n // 4, plus one where n % 4 != 0 (no n + 3 that could overflow).
    # CHECK: [[C4:%.+]] = "tile.constant"() {value = 4 : i32}
    # CHECK-NEXT: [[Q:%.+]] = "tile.floordiv"(%arg1, [[C4]]) : (i32, i32) -> i32
    # CHECK: [[R:%.+]] = "tile.mod"(%arg1, {{%.+}}) : (i32, i32) -> i32
    # CHECK: [[NE:%.+]] = "tile.cmp"([[R]], {{%.+}}) {predicate = "ne"}
    # CHECK-NEXT: [[ONE:%.+]] = "tile.cast"([[NE]]) : (i1) -> i32
    # CHECK-NEXT: "tile.add"([[Q]], [[ONE]]) : (i32, i32) -> i32
    filecheck(fe.tile_ir(k, fe.array(np.int32), 1000))


def test_cdiv_on_host():
    assert ct.cdiv(1000, 128) == 8 and ct.cdiv(1024, 128) == 8 and ct.cdiv(1, 128) == 1


def test_load_store_1d(fe):
    @ct.kernel
    def k(a, b, BLOCK: ct.Constant[int]):
        i = ct.bid(0)
        ct.store(b, index=(i,), tile=ct.load(a, index=(i,), shape=(BLOCK,)))

    # CHECK: [[I:%.+]] = "tile.bid"()
    # CHECK-NEXT: [[T:%.+]] = "tile.load"(%arg0, [[I]])
    # CHECK-SAME: {order = array<i64: 0>, padding_mode = "undetermined"}
    # CHECK-SAME: -> tensor<128xf16>
    # CHECK-NEXT: "tile.store"(%arg1, [[I]], [[T]]) {order = array<i64: 0>}
    filecheck(fe.tile_ir(k, fe.array(np.float16), fe.array(np.float16), 128))


def test_load_bare_index_and_shape(fe):
    @ct.kernel
    def k(a):
        ct.store(a, 1, ct.load(a, 0, 16))

    # CHECK: [[Z:%.+]] = "tile.constant"() {value = 0 : i32}
    # CHECK-NEXT: "tile.load"(%arg0, [[Z]]) {{.*}} -> tensor<16xf32>
    filecheck(fe.tile_ir(k, fe.array()))


def test_load_with_order_and_padding(fe):
    @ct.kernel
    def k(a):
        t = ct.load(a, (ct.bid(0), 1), (8, 4), order=(1, 0), padding_mode=ct.PaddingMode.NAN)
        u = ct.load(a, (0, 0), (2, 2), order="F", padding_mode=ct.PaddingMode.NEG_INF)
        v = ct.load(a, (0, 0), (2, 2), padding_mode=ct.PaddingMode.ZERO)

    # CHECK: "tile.load"(%arg0, {{%.+}}, {{%.+}}) {order = array<i64: 1, 0>, padding_mode = "nan"}
    # CHECK-SAME: -> tensor<8x4xf32>
    # CHECK: "tile.load"({{.*}}) {order = array<i64: 1, 0>, padding_mode = "neg_inf"}
    # CHECK: "tile.load"({{.*}}) {order = array<i64: 0, 1>, padding_mode = "zero"}
    filecheck(fe.tile_ir(k, fe.array(shape=(32, 32))))


def test_load_with_runtime_and_int64_indices(fe):
    @ct.kernel
    def k(a, i, j):
        ct.load(a, (i, j), (4, 4))

    # An int64 index (an int argument beyond 32 bits) makes every index 64-bit.
    # CHECK: [[I:%.+]] = "tile.cast"(%arg1) : (i32) -> i64
    # CHECK-NEXT: "tile.load"(%arg0, [[I]], %arg2) {{.*}} : ({{.*}}, i64, i64) -> tensor<4x4xf32>
    filecheck(fe.tile_ir(k, fe.array(shape=(32, 32)), 1, 2**40))


def test_store_with_order(fe):
    @ct.kernel
    def k(a):
        ct.store(a, (0, ct.bid(1)), ct.zeros((8, 4), ct.float32), order=(1, 0))

    # CHECK: "tile.store"(%arg0, {{%.+}}, {{%.+}}, {{%.+}}) {order = array<i64: 1, 0>}
    # CHECK-SAME: tensor<8x4xf32>) -> ()
    filecheck(fe.tile_ir(k, fe.array(shape=(32, 32))))


def test_store_casts_losslessly(fe):
    @ct.kernel
    def k(a, b):
        ct.store(b, (0,), ct.load(a, (0,), (16,)))

    # CHECK: [[T:%.+]] = "tile.load"({{.*}}) -> tensor<16xi16>
    # CHECK: [[C:%.+]] = "tile.cast"([[T]]) : (tensor<16xi16>) -> tensor<16xf32>
    # CHECK-NEXT: "tile.store"(%arg1, {{%.+}}, [[C]])
    filecheck(fe.tile_ir(k, fe.array(np.int16), fe.array(np.float32)))


def test_store_scalar_and_constant(fe):
    @ct.kernel
    def k(a, x):
        ct.store(a, (0, 1), x)
        ct.store(a, (2, 3), 7)

    # A scalar is stored as a tile of ones shape; a constant takes the array's dtype.
    # CHECK: [[S:%.+]] = "tile.splat"(%arg1) : (f32) -> tensor<1x1xf32>
    # CHECK-NEXT: "tile.store"(%arg0, {{%.+}}, {{%.+}}, [[S]])
    # CHECK: [[C:%.+]] = "tile.constant"() {value = 7.000000e+00 : f32} : () -> f32
    # CHECK-NEXT: [[T:%.+]] = "tile.splat"([[C]]) : (f32) -> tensor<1x1xf32>
    # CHECK-NEXT: "tile.store"(%arg0, {{%.+}}, {{%.+}}, [[T]])
    filecheck(fe.tile_ir(k, fe.array(shape=(8, 8)), 1.5))


def test_array_shape_and_strides(fe):
    @ct.kernel
    def k(a, out):
        ct.store(out, (0,), a.shape[1] + a.strides[0] + a.ndim)

    # CHECK: [[D:%.+]] = "tile.dim"(%arg0) {dim = 1 : i64}
    # CHECK: [[S:%.+]] = "tile.stride"(%arg0) {dim = 0 : i64}
    # CHECK: "tile.add"([[D]], [[S]])
    # CHECK: "tile.constant"() {value = 2 : i32}
    filecheck(fe.tile_ir(k, fe.array(shape=(8, 8)), fe.array(np.int32)))


def test_kernel_signature(fe):
    @ct.kernel
    def k(x, n, scale, flag, BLOCK: ct.Constant[int]):
        pass

    # Run-time parameters become arguments (Constant ones do not), named by tile.name.
    # CHECK-LABEL: func.func @k(
    # CHECK-SAME: %arg0: !tile.array<bf16, array<i64: -1, 1>, {{[0-9]+}} : i64> {tile.name = "x"}
    # CHECK-SAME: %arg1: i32 {tile.name = "n"}
    # CHECK-SAME: %arg2: f32 {tile.name = "scale"}
    # CHECK-SAME: %arg3: i1 {tile.name = "flag"})
    # CHECK-SAME: attributes {tile.kernel, tile.num_warps = 4 : i32}
    # CHECK-NEXT: return
    filecheck(fe.tile_ir(k, fe.array("bfloat16", (4, 4)), 3, 0.5, True, 64))
