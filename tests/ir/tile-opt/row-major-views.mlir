// RUN: tilelang-opt %s --split-input-file -p 'tile-row-major-views{enabled=1}' | filecheck %s

// B read from a column-major (K, N) array (PyTorch's w.t()): the load reads the same tile
// through the array's transposed view, (N, K) with contiguous rows, its order composed.
// CHECK-LABEL: @column_major_b
// CHECK: [[V:%[0-9a-z]+]] = "tile.array_permute"(%arg1) {order = array<i64: 1, 0>} : (!tile.array<bf16, array<i64: 1, -1>, 16 : i64>) -> !tile.array<bf16, array<i64: -1, 1>, 16 : i64>
// CHECK: "tile.load"([[V]], %arg2, %arg3) {order = array<i64: 1, 0>, padding_mode = "zero"} : {{.*}} -> tensor<64x128xbf16>
func.func @column_major_b(%a: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>,
                          %b: !tile.array<bf16, array<i64: 1, -1>, 16 : i64>, %k: i32, %j: i32) {
  %c0 = "tile.constant"() {value = 0 : i32} : () -> i32
  %x = "tile.load"(%a, %c0, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x64xbf16>
  %y = "tile.load"(%b, %k, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: 1, -1>, 16 : i64>, i32, i32) -> tensor<64x128xbf16>
  %z = "tile.constant"() {value = 0.0 : f32} : () -> f32
  %acc = "tile.splat"(%z) : (f32) -> tensor<128x128xf32>
  %p = "tile.mma"(%x, %y, %acc) : (tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32>) -> tensor<128x128xf32>
  "tile.store"(%a, %c0, %c0, %p) {order = array<i64: 0, 1>} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<128x128xf32>) -> ()
  return
}

// -----

// B already transposed by its order (the tile of a column-major (N, K) array read as (k, n)):
// the composed order is the identity, a plain load of the row-major view. A column-major
// 16-bit A is read through its view too (M contiguous: wgmma reads it transposed). A row-major
// array and a load that feeds no product are left alone.
// CHECK-LABEL: @transposed_load
// CHECK: [[VA:%[0-9a-z]+]] = "tile.array_permute"(%arg3) {order = array<i64: 1, 0>}
// CHECK: "tile.load"([[VA]], %arg1, %arg2) {order = array<i64: 1, 0>, padding_mode = "zero"} : {{.*}} -> tensor<128x64xbf16>
// CHECK: [[V:%[0-9a-z]+]] = "tile.array_permute"(%arg0) {order = array<i64: 1, 0>}
// CHECK: "tile.load"([[V]], %arg2, %arg1) {order = array<i64: 0, 1>, padding_mode = "zero"} : {{.*}} -> tensor<64x128xbf16>
// CHECK: "tile.load"(%arg0, %arg1, %arg2) {order = array<i64: 0, 1>, padding_mode = "zero"}
// CHECK-NOT: "tile.array_permute"
func.func @transposed_load(%w: !tile.array<bf16, array<i64: 1, -1>, 16 : i64>, %i: i32, %k: i32,
                           %a: !tile.array<bf16, array<i64: 1, -1>, 16 : i64>) {
  %x = "tile.load"(%a, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: 1, -1>, 16 : i64>, i32, i32) -> tensor<128x64xbf16>
  %y = "tile.load"(%w, %k, %i) {order = array<i64: 1, 0>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: 1, -1>, 16 : i64>, i32, i32) -> tensor<64x128xbf16>
  %z = "tile.constant"() {value = 0.0 : f32} : () -> f32
  %acc = "tile.splat"(%z) : (f32) -> tensor<128x128xf32>
  %p = "tile.mma"(%x, %y, %acc) : (tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32>) -> tensor<128x128xf32>
  %e = "tile.load"(%w, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: 1, -1>, 16 : i64>, i32, i32) -> tensor<128x64xbf16>
  "tile.store"(%a, %i, %k, %e) {order = array<i64: 0, 1>} : (!tile.array<bf16, array<i64: 1, -1>, 16 : i64>, i32, i32, tensor<128x64xbf16>) -> ()
  return
}

// -----

// An 8-bit column-major A is left alone: wgmma reads 8-bit operands K-major only.
// CHECK-LABEL: @fp8_column_major_a
// CHECK-NOT: "tile.array_permute"(%arg0)
// CHECK: "tile.array_permute"(%arg1)
func.func @fp8_column_major_a(%a: !tile.array<f8E4M3FN, array<i64: 1, -1>, 16 : i64>,
                              %b: !tile.array<f8E4M3FN, array<i64: 1, -1>, 16 : i64>, %k: i32, %j: i32) {
  %c0 = "tile.constant"() {value = 0 : i32} : () -> i32
  %x = "tile.load"(%a, %c0, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f8E4M3FN, array<i64: 1, -1>, 16 : i64>, i32, i32) -> tensor<128x128xf8E4M3FN>
  %y = "tile.load"(%b, %k, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f8E4M3FN, array<i64: 1, -1>, 16 : i64>, i32, i32) -> tensor<128x128xf8E4M3FN>
  %z = "tile.constant"() {value = 0.0 : f32} : () -> f32
  %acc = "tile.splat"(%z) : (f32) -> tensor<128x128xf32>
  %p = "tile.mma"(%x, %y, %acc) : (tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>, tensor<128x128xf32>) -> tensor<128x128xf32>
  return
}
