// The dialect's own constraints, checked when IR is parsed.
// RUN: not tilelang-opt %s --split-input-file 2>&1 | filecheck %s

// Element-wise operands and result share one type.
// CHECK: error: expected 'tensor<4xf32>' but got 'tensor<4xf16>'
func.func @mismatched(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  %c = "tile.add"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// Loads read from arrays.
// CHECK: error: expected base type 'tile.array' but got 'builtin.integer'
func.func @not_an_array(%a: i32) -> tensor<4xf32> {
  %t = "tile.load"(%a) {order = array<i64: 0>, padding_mode = "zero"} : (i32) -> tensor<4xf32>
  return %t : tensor<4xf32>
}

// -----

// The padding mode is required.
// CHECK: error: {{.*}}attribute "padding_mode" is expected but not provided
func.func @no_padding(%x: !tile.array<f32, array<i64: 1>, 16 : i64>, %i: i32) -> tensor<4xf32> {
  %t = "tile.load"(%x, %i) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<4xf32>
  return %t : tensor<4xf32>
}

// -----

// An mma's result has its accumulator's type.
// CHECK: error: expected 'tensor<16x8xf32>' but got 'tensor<16x8xf16>'
func.func @mma_result(%a: tensor<16x32xf16>, %b: tensor<32x8xf16>, %c: tensor<16x8xf32>) -> tensor<16x8xf16> {
  %d = "tile.mma"(%a, %b, %c) : (tensor<16x32xf16>, tensor<32x8xf16>, tensor<16x8xf32>) -> tensor<16x8xf16>
  return %d : tensor<16x8xf16>
}

// -----

// mma operands are tiles.
// CHECK: error: expected base type 'builtin.tensor' but got 'builtin.f16'
func.func @mma_scalar(%a: f16, %b: tensor<32x8xf16>, %c: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %d = "tile.mma"(%a, %b, %c) : (f16, tensor<32x8xf16>, tensor<1x8xf32>) -> tensor<1x8xf32>
  return %d : tensor<1x8xf32>
}
