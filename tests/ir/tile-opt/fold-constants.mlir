// RUN: tilelang-opt %s --split-input-file -p tile-fold-constants | filecheck %s

// CHECK-LABEL: @scalar_chain
// CHECK: %[[C:.*]] = "tile.constant"() {value = 6.000000e+00 : f32}
// CHECK: "tile.add"(%arg0, %[[C]])
func.func @scalar_chain(%a: f32) -> f32 {
  %c = "tile.constant"() {value = 2.0 : f32} : () -> f32
  %d = "tile.constant"() {value = 3.0 : f32} : () -> f32
  %e = "tile.mul"(%c, %d) : (f32, f32) -> f32
  %f = "tile.add"(%a, %e) : (f32, f32) -> f32
  return %f : f32
}

// -----

// Python floor semantics: -7 // 2 == -4 and -7 % 2 == 1.
// CHECK-LABEL: @floor_semantics
// CHECK-DAG: "tile.constant"() {value = -4 : i32}
// CHECK-DAG: "tile.constant"() {value = 1 : i32}
// CHECK-NOT: "tile.floordiv"
// CHECK-NOT: "tile.mod"
func.func @floor_semantics() -> (i32, i32) {
  %a = "tile.constant"() {value = -7 : i32} : () -> i32
  %b = "tile.constant"() {value = 2 : i32} : () -> i32
  %q = "tile.floordiv"(%a, %b) : (i32, i32) -> i32
  %r = "tile.mod"(%a, %b) : (i32, i32) -> i32
  return %q, %r : i32, i32
}

// -----

// Element-wise ops on splats of constants fold to a splat of the folded constant.
// CHECK-LABEL: @splats
// CHECK: %[[C:.*]] = "tile.constant"() {value = true}
// CHECK-NEXT: %[[S:.*]] = "tile.splat"(%[[C]]) : (i1) -> tensor<8xi1>
// CHECK: return %[[S]]
func.func @splats() -> tensor<8xi1> {
  %a = "tile.constant"() {value = 1 : ui8} : () -> ui8
  %b = "tile.constant"() {value = 255 : ui8} : () -> ui8
  %sa = "tile.splat"(%a) : (ui8) -> tensor<8xui8>
  %sb = "tile.splat"(%b) : (ui8) -> tensor<8xui8>
  %lt = "tile.cmp"(%sa, %sb) {predicate = "lt"} : (tensor<8xui8>, tensor<8xui8>) -> tensor<8xi1>
  return %lt : tensor<8xi1>
}

// -----

// Saturating float-to-int cast, as on the GPU.
// CHECK-LABEL: @saturating_cast
// CHECK: "tile.constant"() {value = 127 : i8}
func.func @saturating_cast() -> i8 {
  %a = "tile.constant"() {value = 1000.0 : f32} : () -> f32
  %b = "tile.cast"(%a) : (f32) -> i8
  return %b : i8
}

// -----

// Integer division by a constant zero is left for run time.
// CHECK-LABEL: @division_by_zero
// CHECK: "tile.floordiv"
func.func @division_by_zero() -> i32 {
  %a = "tile.constant"() {value = 1 : i32} : () -> i32
  %b = "tile.constant"() {value = 0 : i32} : () -> i32
  %q = "tile.floordiv"(%a, %b) : (i32, i32) -> i32
  return %q : i32
}

// -----

// Loads are never folded, even from constant indices.
// CHECK-LABEL: @not_a_constant
// CHECK: "tile.load"
// CHECK: "tile.add"
func.func @not_a_constant(%x: !tile.array<f32, array<i64: 1>, 16 : i64>) -> tensor<4xf32> {
  %i = "tile.constant"() {value = 0 : i32} : () -> i32
  %t = "tile.load"(%x, %i) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<4xf32>
  %c = "tile.constant"() {value = 1.0 : f32} : () -> f32
  %s = "tile.splat"(%c) : (f32) -> tensor<4xf32>
  %r = "tile.add"(%t, %s) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
