// RUN: tilelang-opt %s --split-input-file -p tile-hoist-invariants | filecheck %s

// A cast of a value from outside two nested loops leaves both; the work on loop values and the
// splat stay.
// CHECK-LABEL: @weights_cast_once
// CHECK: [[W:%[0-9a-z]+]] = "tile.cast"(%arg1)
// CHECK-NEXT: scf.for
// CHECK: scf.for
// CHECK-NEXT: "tile.load"
// CHECK-NEXT: "tile.cast"
// CHECK-NEXT: "tile.splat"
// CHECK-NEXT: "tile.mul"({{%[0-9a-z]+}}, [[W]])
func.func @weights_cast_once(%a: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %w: tensor<1x256xbf16>,
                             %n: i32, %s: f32) {
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  scf.for %i = %lb to %n step %step : i32 {
    scf.for %j = %lb to %n step %step : i32 {
      %x = "tile.load"(%a, %i, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<1x256xbf16>
      %xf = "tile.cast"(%x) : (tensor<1x256xbf16>) -> tensor<1x256xf32>
      %wf = "tile.cast"(%w) : (tensor<1x256xbf16>) -> tensor<1x256xf32>
      %c = "tile.splat"(%s) : (f32) -> tensor<1x256xf32>
      %y = "tile.mul"(%xf, %wf) : (tensor<1x256xf32>, tensor<1x256xf32>) -> tensor<1x256xf32>
      %z = "tile.mul"(%y, %c) : (tensor<1x256xf32>, tensor<1x256xf32>) -> tensor<1x256xf32>
      %o = "tile.cast"(%z) : (tensor<1x256xf32>) -> tensor<1x256xbf16>
      "tile.store"(%a, %i, %j, %o) {order = array<i64: 0, 1>} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<1x256xbf16>) -> ()
    }
  }
  return
}

// -----

// A value of the outer loop's iteration leaves the inner loop only.
// CHECK-LABEL: @outer_value
// CHECK: scf.for [[I:%[0-9a-z]+]] =
// CHECK-NEXT: [[R:%[0-9a-z]+]] = "tile.mul"([[I]], [[I]])
// CHECK-NEXT: scf.for
func.func @outer_value(%n: i32) -> i32 {
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %i = %lb to %n step %step iter_args(%acc = %lb) -> (i32) : i32 {
    %s = scf.for %j = %lb to %n step %step iter_args(%in = %acc) -> (i32) : i32 {
      %sq = "tile.mul"(%i, %i) : (i32, i32) -> i32
      %t = "tile.add"(%in, %sq) : (i32, i32) -> i32
      scf.yield %t : i32
    }
    scf.yield %s : i32
  }
  return %r : i32
}

// -----

// A loop with a matrix product is left as written.
// CHECK-LABEL: @product_loop
// CHECK: scf.for
// CHECK-NEXT: "tile.cast"(%arg0)
func.func @product_loop(%b: tensor<16x16xf32>, %n: i32, %acc0: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<16x16xf32>) : i32 {
    %h = "tile.cast"(%b) : (tensor<16x16xf32>) -> tensor<16x16xf16>
    %m = "tile.mma"(%h, %h, %acc) : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
    scf.yield %m : tensor<16x16xf32>
  }
  return %r : tensor<16x16xf32>
}
