// RUN: tilelang-opt %s --split-input-file -p tile-reduce-strength | filecheck %s

// A float tile squared by a splat of 2 becomes a product with itself.
// CHECK-LABEL: @square_tile
// CHECK: %[[P:.*]] = "tile.mul"(%arg0, %arg0)
// CHECK-NOT: "tile.pow"
// CHECK: return %[[P]]
func.func @square_tile(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = "tile.constant"() {value = 2.0 : f32} : () -> f32
  %s = "tile.splat"(%c) : (f32) -> tensor<4x8xf32>
  %p = "tile.pow"(%x, %s) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %p : tensor<4x8xf32>
}

// -----

// A scalar too.
// CHECK-LABEL: @square_scalar
// CHECK: "tile.mul"(%arg0, %arg0) : (bf16, bf16) -> bf16
func.func @square_scalar(%x: bf16) -> bf16 {
  %c = "tile.constant"() {value = 2.0 : bf16} : () -> bf16
  %p = "tile.pow"(%x, %c) : (bf16, bf16) -> bf16
  return %p : bf16
}

// -----

// A float32 cube: two products in float32.
// CHECK-LABEL: @cube_f32
// CHECK: %[[S:.*]] = "tile.mul"(%arg0, %arg0)
// CHECK: %[[C:.*]] = "tile.mul"(%[[S]], %arg0)
// CHECK-NOT: "tile.pow"
// CHECK: return %[[C]]
func.func @cube_f32(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c = "tile.constant"() {value = 3.0 : f32} : () -> f32
  %s = "tile.splat"(%c) : (f32) -> tensor<8xf32>
  %p = "tile.pow"(%x, %s) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %p : tensor<8xf32>
}

// -----

// A bfloat16 fourth power: widened to float32, squared twice, rounded once.
// CHECK-LABEL: @fourth_bf16
// CHECK: %[[W:.*]] = "tile.cast"(%arg0) : (tensor<8xbf16>) -> tensor<8xf32>
// CHECK: %[[S:.*]] = "tile.mul"(%[[W]], %[[W]])
// CHECK: %[[F:.*]] = "tile.mul"(%[[S]], %[[S]])
// CHECK: %[[R:.*]] = "tile.cast"(%[[F]]) : (tensor<8xf32>) -> tensor<8xbf16>
// CHECK-NOT: "tile.pow"
// CHECK: return %[[R]]
func.func @fourth_bf16(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %c = "tile.constant"() {value = 4.0 : bf16} : () -> bf16
  %s = "tile.splat"(%c) : (bf16) -> tensor<8xbf16>
  %p = "tile.pow"(%x, %s) : (tensor<8xbf16>, tensor<8xbf16>) -> tensor<8xbf16>
  return %p : tensor<8xbf16>
}

// -----

// Other exponents, run-time exponents and integer powers keep their pow.
// CHECK-LABEL: @kept
// CHECK-COUNT-3: "tile.pow"
func.func @kept(%x: tensor<8xf32>, %y: tensor<8xf32>, %i: tensor<8xi32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xi32>) {
  %c = "tile.constant"() {value = 5.0 : f32} : () -> f32
  %s = "tile.splat"(%c) : (f32) -> tensor<8xf32>
  %a = "tile.pow"(%x, %s) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %b = "tile.pow"(%x, %y) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %two = "tile.constant"() {value = 2 : i32} : () -> i32
  %t = "tile.splat"(%two) : (i32) -> tensor<8xi32>
  %n = "tile.pow"(%i, %t) : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  return %a, %b, %n : tensor<8xf32>, tensor<8xf32>, tensor<8xi32>
}
