// RUN: tilelang-opt %s --split-input-file -p tile-eliminate-common-subexpressions | filecheck %s

// CHECK-LABEL: @duplicates
// CHECK-COUNT-1: "tile.bid"
// CHECK-NOT: "tile.bid"
// CHECK: "tile.add"(%0, %0)
func.func @duplicates() -> i32 {
  %a = "tile.bid"() {axis = 0 : i64} : () -> i32
  %b = "tile.bid"() {axis = 0 : i64} : () -> i32
  %c = "tile.add"(%a, %b) : (i32, i32) -> i32
  return %c : i32
}

// -----

// Different attributes are different values.
// CHECK-LABEL: @different_axes
// CHECK-COUNT-2: "tile.bid"
func.func @different_axes() -> i32 {
  %a = "tile.bid"() {axis = 0 : i64} : () -> i32
  %b = "tile.bid"() {axis = 1 : i64} : () -> i32
  %c = "tile.add"(%a, %b) : (i32, i32) -> i32
  return %c : i32
}

// -----

// A value computed before an scf.if is reused inside it, but not the other way round; loads
// are never merged (a store may sit between them).
// CHECK-LABEL: @nested
// CHECK: "tile.dim"
// CHECK: scf.if
// CHECK-NOT: "tile.dim"
// CHECK: scf.yield
// CHECK: "tile.load"
// CHECK: "tile.load"
func.func @nested(%x: !tile.array<f32, array<i64: 1>, 16 : i64>, %p: i1) -> i32 {
  %d = "tile.dim"(%x) {dim = 0 : i64} : (!tile.array<f32, array<i64: 1>, 16 : i64>) -> i32
  %r = scf.if %p -> (i32) {
    %e = "tile.dim"(%x) {dim = 0 : i64} : (!tile.array<f32, array<i64: 1>, 16 : i64>) -> i32
    scf.yield %e : i32
  } else {
    scf.yield %d : i32
  }
  %t0 = "tile.load"(%x, %r) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<4xf32>
  %t1 = "tile.load"(%x, %r) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<4xf32>
  "tile.store"(%x, %r, %t0) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<4xf32>) -> ()
  "tile.store"(%x, %r, %t1) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<4xf32>) -> ()
  return %r : i32
}
