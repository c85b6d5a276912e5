// RUN: tilelang-opt %s --split-input-file -p 'tile-pipeline-products{arch=sm_90}' | filecheck %s

// An attention-like loop on wgmma (passes/staged_loops.py): s = q @ k(j).T comes first, and its
// operands are q (from before the loop) and a staged load of j. Iteration lb's product is a loop
// of one iteration; the main loop carries s and computes the next iteration's (j + 1) in place
// of its own.
// CHECK-LABEL: @attention_loop
// CHECK: [[UB1:%[0-9a-z]+]] = "tile.add"([[LB:%[0-9a-z]+]], [[STEP:%[0-9a-z]+]])
// CHECK: [[S0:%[0-9a-z]+]] = scf.for [[J0:%[0-9a-z]+]] = [[LB]] to [[UB1]] step [[STEP]]
// CHECK: "tile.load"(%arg1, %arg4, [[J0]], [[LB]])
// CHECK: [[P0:%[0-9a-z]+]] = "tile.mma"
// CHECK-NEXT: scf.yield [[P0]]
// CHECK: scf.for [[J:%[0-9a-z]+]] = [[LB]] to %arg5 step [[STEP]] iter_args([[ACC:%[0-9a-z]+]] = %arg6, [[S:%[0-9a-z]+]] = [[S0]])
// CHECK-NEXT: [[NEXT:%[0-9a-z]+]] = "tile.add"([[J]], [[STEP]])
// CHECK: "tile.load"(%arg1, %arg4, [[NEXT]], [[LB]])
// CHECK: [[SN:%[0-9a-z]+]] = "tile.mma"
// CHECK: "tile.exp2"([[S]])
// CHECK: [[O:%[0-9a-z]+]] = "tile.mma"
// CHECK: scf.yield [[O]], [[SN]]
func.func @attention_loop(%q: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>,
                          %k: !tile.array<bf16, array<i64: -1, -1, 1>, 16 : i64>,
                          %v: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>,
                          %i: i32, %zero_i: i32, %n: i32,
                          %acc0: tensor<128x64xf32>) -> tensor<128x64xf32>
    attributes {tile.num_warps = 8 : i32} {
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %zero = "tile.constant"() {value = 0.0 : f32} : () -> f32
  %x = "tile.load"(%q, %i, %lb) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x64xbf16>
  %r = scf.for %j = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<128x64xf32>) : i32 {
    %keys = "tile.load"(%k, %zero_i, %j, %lb) {order = array<i64: 0, 1, 2>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, -1, 1>, 16 : i64>, i32, i32, i32) -> tensor<1x64x64xbf16>
    %kr = "tile.reshape"(%keys) : (tensor<1x64x64xbf16>) -> tensor<64x64xbf16>
    %kt = "tile.permute"(%kr) {axes = array<i64: 1, 0>} : (tensor<64x64xbf16>) -> tensor<64x64xbf16>
    %z = "tile.splat"(%zero) : (f32) -> tensor<128x64xf32>
    %s = "tile.mma"(%x, %kt, %z) : (tensor<128x64xbf16>, tensor<64x64xbf16>, tensor<128x64xf32>) -> tensor<128x64xf32>
    %p = "tile.exp2"(%s) : (tensor<128x64xf32>) -> tensor<128x64xf32>
    %pb = "tile.cast"(%p) : (tensor<128x64xf32>) -> tensor<128x64xbf16>
    %vals = "tile.load"(%v, %j, %lb) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x64xbf16>
    %o = "tile.mma"(%pb, %vals, %acc) : (tensor<128x64xbf16>, tensor<64x64xbf16>, tensor<128x64xf32>) -> tensor<128x64xf32>
    scf.yield %o : tensor<128x64xf32>
  }
  return %r : tensor<128x64xf32>
}

// -----

// A loop with one product (a K loop) is left alone: there is nothing to overlap it with.
// CHECK-LABEL: @k_loop
// CHECK: scf.for {{.*}} iter_args({{%[0-9a-z]+}} = %arg4) ->
// CHECK-NEXT: "tile.load"
func.func @k_loop(%a: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>,
                  %b: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>,
                  %i: i32, %n: i32, %acc0: tensor<128x64xf32>) -> tensor<128x64xf32>
    attributes {tile.num_warps = 8 : i32} {
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<128x64xf32>) : i32 {
    %x = "tile.load"(%a, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x32xbf16>
    %y = "tile.load"(%b, %k, %lb) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<32x64xbf16>
    %m = "tile.mma"(%x, %y, %acc) : (tensor<128x32xbf16>, tensor<32x64xbf16>, tensor<128x64xf32>) -> tensor<128x64xf32>
    scf.yield %m : tensor<128x64xf32>
  }
  return %r : tensor<128x64xf32>
}
