// RUN: tilelang-opt %s --split-input-file -p 'tile-order-accesses,tile-distribute-to-threads{chip=sm_90 features=+ptx80}' | filecheck %s

// tile.array_select picks the base pointer, extent and stride of one of the arrays by the
// run-time index: a select per value for each array after the first.
// CHECK-LABEL: gpu.func @pick
// CHECK-SAME: (%[[A:.*]]: !llvm.ptr<1>, %[[AN:.*]]: i64, %[[AS:.*]]: i64, %[[B:.*]]: !llvm.ptr<1>, %[[BN:.*]]: i64, %[[BS:.*]]: i64, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %[[I:.*]]: i32)
// CHECK: %[[WIDE:.*]] = arith.extsi %[[I]] : i32 to i64
// CHECK: %[[IS1:.*]] = arith.cmpi eq, %[[WIDE]], %{{.*}} : i64
// CHECK-DAG: arith.select %[[IS1]], %[[B]], %[[A]] : !llvm.ptr<1>
// CHECK-DAG: %[[N:.*]] = arith.select %[[IS1]], %[[BN]], %[[AN]] : i64
// CHECK-DAG: arith.select %[[IS1]], %[[BS]], %[[AS]] : i64
// CHECK: arith.trunci %[[N]] : i64 to i32
func.func @pick(%a: !tile.array<f32, array<i64: 1>, 16 : i64>, %b: !tile.array<f32, array<i64: 1>, 16 : i64>, %out: !tile.array<i32, array<i64: 1>, 16 : i64>, %i: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %x = "tile.array_select"(%i, %a, %b) : (i32, !tile.array<f32, array<i64: 1>, 16 : i64>, !tile.array<f32, array<i64: 1>, 16 : i64>) -> !tile.array<f32, array<i64: 1>, 16 : i64>
  %n = "tile.dim"(%x) {dim = 0 : i64} : (!tile.array<f32, array<i64: 1>, 16 : i64>) -> i32
  %c0 = "tile.constant"() {value = 0 : i32} : () -> i32
  "tile.store"(%out, %c0, %n) {order = array<i64: 0>} : (!tile.array<i32, array<i64: 1>, 16 : i64>, i32, i32) -> ()
  return
}

// -----

// A 64-bit extent (IndexedWithInt64) is the parameter itself: no truncation.
// CHECK-LABEL: gpu.func @wide
// CHECK-SAME: (%{{.*}}: !llvm.ptr<1>, %[[N:.*]]: i64, %{{.*}}: i64
// CHECK-NOT: arith.trunci %[[N]]
// CHECK: gpu.return
func.func @wide(%x: !tile.array<f32, array<i64: 1>, 16 : i64>, %out: !tile.array<i64, array<i64: 1>, 16 : i64>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %n = "tile.dim"(%x) {dim = 0 : i64} : (!tile.array<f32, array<i64: 1>, 16 : i64>) -> i64
  %c0 = "tile.constant"() {value = 0 : i32} : () -> i32
  "tile.store"(%out, %c0, %n) {order = array<i64: 0>} : (!tile.array<i64, array<i64: 1>, 16 : i64>, i32, i64) -> ()
  return
}
