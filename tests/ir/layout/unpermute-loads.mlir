// RUN: tilelang-opt %s --split-input-file -p 'tile-unpermute-loads{arch=sm_90}' | filecheck %s

// Keys read transposed by the load (cuTile's FMHA spelling) become a plain load of the
// untransposed tile (indices of the last two axes swapped) and a transpose between reshapes.
// CHECK-LABEL: @keys_by_order
// CHECK: [[L:%[0-9a-z]+]] = "tile.load"(%arg0, %arg2, %arg3, [[J:%arg[0-9]+]], %arg4) {order = array<i64: 0, 1, 2, 3>, padding_mode = "zero"} : ({{.*}}) -> tensor<1x1x32x64xf16>
// CHECK-NEXT: [[R:%[0-9a-z]+]] = "tile.reshape"([[L]]) : (tensor<1x1x32x64xf16>) -> tensor<32x64xf16>
// CHECK-NEXT: [[P:%[0-9a-z]+]] = "tile.permute"([[R]]) {axes = array<i64: 1, 0>} : (tensor<32x64xf16>) -> tensor<64x32xf16>
// CHECK-NEXT: [[B:%[0-9a-z]+]] = "tile.reshape"([[P]]) : (tensor<64x32xf16>) -> tensor<1x1x64x32xf16>
// CHECK-NEXT: [[K:%[0-9a-z]+]] = "tile.reshape"([[B]]) : (tensor<1x1x64x32xf16>) -> tensor<64x32xf16>
// CHECK-NEXT: "tile.mma"(%arg1, [[K]], {{%[0-9a-z]+}})
func.func @keys_by_order(%k: !tile.array<f16, array<i64: -1, -1, -1, 1>, 16 : i64>,
                         %q: tensor<64x64xf16>, %b: i32, %h: i32, %z: i32, %n: i32,
                         %acc0: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %j = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<64x32xf32>) : i32 {
    %t = "tile.load"(%k, %b, %h, %z, %j) {order = array<i64: 0, 1, 3, 2>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, -1, -1, 1>, 16 : i64>, i32, i32, i32, i32) -> tensor<1x1x64x32xf16>
    %kt = "tile.reshape"(%t) : (tensor<1x1x64x32xf16>) -> tensor<64x32xf16>
    %s = "tile.mma"(%q, %kt, %acc) : (tensor<64x64xf16>, tensor<64x32xf16>, tensor<64x32xf32>) -> tensor<64x32xf32>
    scf.yield %s : tensor<64x32xf32>
  }
  return %r : tensor<64x32xf32>
}

// -----

// A 2-d transposed load: the load and a transpose, no reshapes.
// CHECK-LABEL: @two_d
// CHECK: [[L:%[0-9a-z]+]] = "tile.load"(%arg0, {{%arg[0-9]+}}, %arg2) {order = array<i64: 0, 1>, padding_mode = "zero"} : ({{.*}}) -> tensor<32x64xf16>
// CHECK-NEXT: [[P:%[0-9a-z]+]] = "tile.permute"([[L]]) {axes = array<i64: 1, 0>} : (tensor<32x64xf16>) -> tensor<64x32xf16>
// CHECK-NEXT: "tile.mma"(%arg1, [[P]], {{%[0-9a-z]+}})
func.func @two_d(%k: !tile.array<f16, array<i64: -1, 1>, 16 : i64>, %q: tensor<64x64xf16>,
                 %z: i32, %n: i32, %acc0: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %j = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<64x32xf32>) : i32 {
    %t = "tile.load"(%k, %z, %j) {order = array<i64: 1, 0>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x32xf16>
    %s = "tile.mma"(%q, %t, %acc) : (tensor<64x64xf16>, tensor<64x32xf16>, tensor<64x32xf32>) -> tensor<64x32xf32>
    scf.yield %s : tensor<64x32xf32>
  }
  return %r : tensor<64x32xf32>
}

// -----

// Left alone: a transposed load that feeds the A operand (A stays in registers).
// CHECK-LABEL: @left_alone
// CHECK: "tile.load"(%arg0, %arg2, {{%arg[0-9]+}}) {order = array<i64: 1, 0>
// CHECK-NOT: "tile.permute"
func.func @left_alone(%k: !tile.array<f16, array<i64: -1, 1>, 16 : i64>, %w: tensor<64x32xf16>,
                      %z: i32, %n: i32, %acc0: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %j = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<64x32xf32>) : i32 {
    %t = "tile.load"(%k, %z, %j) {order = array<i64: 1, 0>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x64xf16>
    %s = "tile.mma"(%t, %w, %acc) : (tensor<64x64xf16>, tensor<64x32xf16>, tensor<64x32xf32>) -> tensor<64x32xf32>
    scf.yield %s : tensor<64x32xf32>
  }
  return %r : tensor<64x32xf32>
}
