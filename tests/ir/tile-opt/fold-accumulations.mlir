// RUN: tilelang-opt %s --split-input-file -p tile-fold-accumulations | filecheck %s

// acc + mma(x, y, 0), in either order, is mma(x, y, acc).
// CHECK-LABEL: @triton_style
// CHECK: scf.for
// CHECK-NEXT: [[M:%[0-9a-z]+]] = "tile.mma"(%arg0, %arg1, %arg5)
// CHECK-NEXT: scf.yield [[M]]
// CHECK: "tile.mma"(%arg0, %arg1, %arg2)
// CHECK-NOT: "tile.add"
func.func @triton_style(%x: tensor<64x32xbf16>, %y: tensor<32x64xbf16>, %acc0: tensor<64x64xf32>, %n: i32) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %zero = "tile.constant"() {value = 0.0 : f32} : () -> f32
  %z = "tile.splat"(%zero) : (f32) -> tensor<64x64xf32>
  %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<64x64xf32>) : i32 {
    %p = "tile.mma"(%x, %y, %z) : (tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %s = "tile.add"(%acc, %p) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    scf.yield %s : tensor<64x64xf32>
  }
  %q = "tile.mma"(%x, %y, %z) : (tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %t = "tile.add"(%q, %acc0) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r, %t : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// Kept: a product used twice, a nonzero start, a rounding mode on the add.
// CHECK-LABEL: @kept
// CHECK-COUNT-3: "tile.add"
func.func @kept(%x: tensor<64x32xbf16>, %y: tensor<32x64xbf16>, %acc: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) {
  %zero = "tile.constant"() {value = 0.0 : f32} : () -> f32
  %z = "tile.splat"(%zero) : (f32) -> tensor<64x64xf32>
  %p = "tile.mma"(%x, %y, %z) : (tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %a = "tile.add"(%acc, %p) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %q = "tile.mma"(%x, %y, %c) : (tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %b = "tile.add"(%acc, %q) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = "tile.mma"(%x, %y, %z) : (tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %d = "tile.add"(%acc, %r) {rounding_mode = "zero"} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %a, %p, %b, %d : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>
}
