// RUN: tilelang-opt %s --split-input-file -p tile-unroll-single-iterations | filecheck %s

// One iteration (0 to 1 step 1): the body runs in place, the induction variable replaced by
// the lower bound, the carried value by its initial one, the loop's result by the yielded one.
// CHECK-LABEL: @one_iteration
// CHECK-NOT: scf.for
// CHECK: %[[T:.*]] = "tile.load"(%arg0, %arg1, %{{.*}})
// CHECK: %[[S:.*]] = "tile.add"(%arg2, %[[T]])
// CHECK: return %[[S]]
func.func @one_iteration(%x: !tile.array<f32, array<i64: -1, 1>, 16 : i64>, %row: i32, %init: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %c0 = "tile.constant"() {value = 0 : i32} : () -> i32
  %c1 = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %j = %c0 to %c1 step %c1 iter_args(%acc = %init) -> (tensor<1x4xf32>) : i32 {
    %t = "tile.load"(%x, %row, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<1x4xf32>
    %s = "tile.add"(%acc, %t) : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    scf.yield %s : tensor<1x4xf32>
  }
  return %r : tensor<1x4xf32>
}

// -----

// Three to five step 2 is one iteration too (ceil((5 - 3) / 2)); nested loops go inside out.
// CHECK-LABEL: @nested
// CHECK-NOT: scf.for
// CHECK: "tile.store"(%arg0, %{{.*}}, %{{.*}}, %arg1)
// CHECK-NEXT: return
func.func @nested(%x: !tile.array<f32, array<i64: -1, 1>, 16 : i64>, %t: tensor<1x4xf32>) {
  %c1 = "tile.constant"() {value = 1 : i32} : () -> i32
  %c2 = "tile.constant"() {value = 2 : i32} : () -> i32
  %c3 = "tile.constant"() {value = 3 : i32} : () -> i32
  %c5 = "tile.constant"() {value = 5 : i32} : () -> i32
  scf.for %i = %c3 to %c5 step %c2 : i32 {
    scf.for %j = %c1 to %c2 step %c1 : i32 {
      "tile.store"(%x, %i, %j, %t) {order = array<i64: 0, 1>} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<1x4xf32>) -> ()
    }
  }
  return
}

// -----

// No iterations: the initial values, the body gone. Several, or bounds not constant: kept.
// CHECK-LABEL: @none_and_many
// CHECK-NOT: "tile.mul"
// CHECK: %[[A:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %arg0)
// CHECK: %[[B:.*]] = scf.for %{{.*}} = %{{.*}} to %arg1 step %{{.*}} iter_args(%{{.*}} = %[[A]])
// CHECK: return %[[B]]
func.func @none_and_many(%v: i32, %n: i32) -> i32 {
  %c0 = "tile.constant"() {value = 0 : i32} : () -> i32
  %c1 = "tile.constant"() {value = 1 : i32} : () -> i32
  %c4 = "tile.constant"() {value = 4 : i32} : () -> i32
  %none = scf.for %j = %c4 to %c0 step %c1 iter_args(%a = %v) -> (i32) : i32 {
    %m = "tile.mul"(%a, %c4) : (i32, i32) -> i32
    scf.yield %m : i32
  }
  %many = scf.for %j = %c0 to %c4 step %c1 iter_args(%a = %none) -> (i32) : i32 {
    %s = "tile.add"(%a, %j) : (i32, i32) -> i32
    scf.yield %s : i32
  }
  %dynamic = scf.for %j = %c0 to %n step %c1 iter_args(%a = %many) -> (i32) : i32 {
    %s = "tile.add"(%a, %j) : (i32, i32) -> i32
    scf.yield %s : i32
  }
  return %dynamic : i32
}
