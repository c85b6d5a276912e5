// RUN: tilelang-opt %s --split-input-file -p tile-eliminate-dead-code | filecheck %s

// CHECK-LABEL: @unused_chain
// CHECK-NOT: "tile.
// CHECK: return
func.func @unused_chain(%x: !tile.array<f32, array<i64: 1>, 16 : i64>) {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %t = "tile.load"(%x, %i) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<4xf32>
  %e = "tile.exp"(%t) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// Stores stay, and so does everything they need.
// CHECK-LABEL: @store_kept
// CHECK: "tile.bid"
// CHECK: "tile.load"
// CHECK: "tile.store"
func.func @store_kept(%x: !tile.array<f32, array<i64: 1>, 16 : i64>) {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %t = "tile.load"(%x, %i) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<4xf32>
  "tile.store"(%x, %i, %t) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<4xf32>) -> ()
  return
}

// -----

// A loop whose results are unused and that stores nothing goes; one that stores stays.
// CHECK-LABEL: @loops
// CHECK: scf.for
// CHECK: "tile.store"
// CHECK-NOT: scf.for
func.func @loops(%x: !tile.array<f32, array<i64: 1>, 16 : i64>, %n: i32) {
  %c0 = "tile.constant"() {value = 0 : i32} : () -> i32
  %c1 = "tile.constant"() {value = 1 : i32} : () -> i32
  %f = "tile.constant"() {value = 1.0 : f32} : () -> f32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %t = "tile.splat"(%f) : (f32) -> tensor<4xf32>
    "tile.store"(%x, %i, %t) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<4xf32>) -> ()
  }
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %f) -> (f32) : i32 {
    %a = "tile.add"(%acc, %f) : (f32, f32) -> f32
    scf.yield %a : f32
  }
  return
}

// -----

// An mma is pure: unused, it goes with its operands; used, it stays.
// CHECK-LABEL: @mma
// CHECK: "tile.mma"
// CHECK-NOT: "tile.mma"
// CHECK: "tile.store"
func.func @mma(%x: !tile.array<f32, array<i64: -1, 1>, 16 : i64>, %a: tensor<16x32xf16>, %b: tensor<32x8xf16>) {
  %z = "tile.constant"() {value = 0.0 : f32} : () -> f32
  %c = "tile.splat"(%z) : (f32) -> tensor<16x8xf32>
  %unused = "tile.mma"(%a, %b, %c) : (tensor<16x32xf16>, tensor<32x8xf16>, tensor<16x8xf32>) -> tensor<16x8xf32>
  %d = "tile.mma"(%a, %b, %c) : (tensor<16x32xf16>, tensor<32x8xf16>, tensor<16x8xf32>) -> tensor<16x8xf32>
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  "tile.store"(%x, %i, %i, %d) {order = array<i64: 0, 1>} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<16x8xf32>) -> ()
  return
}

// -----

// The grid dependency control stays (it orders memory like output); an unused
// assume_div_by goes.
// CHECK-LABEL: @grid_dependency_kept
// CHECK-NOT: "tile.assume_div_by"
// CHECK: "tile.grid_dependency_control_wait"
// CHECK: "tile.grid_dependency_control_launch_dependents"
// CHECK-NOT: "tile.assume_div_by"
func.func @grid_dependency_kept(%n: i32) {
  %m = "tile.assume_div_by"(%n) {divisor = 16 : i64} : (i32) -> i32
  "tile.grid_dependency_control_wait"() : () -> ()
  "tile.grid_dependency_control_launch_dependents"() : () -> ()
  return
}
