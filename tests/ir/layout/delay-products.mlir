// RUN: tilelang-opt %s --split-input-file -p 'tile-delay-products{arch=sm_90}' | filecheck %s

// An attention-like loop on wgmma (passes/staged_loops.py): the last product folds p @ v(j)
// into the carried acc scaled by a row vector. Iteration lb's head is a loop of at most one
// trip yielding p and the row vector; the main loop starts at lb + step, scales the carried
// acc first, issues its own first product, then the delayed one with v(j - step); the last
// tail is a loop of at most one trip from the main loop's final iteration.
// CHECK-LABEL: @attention_loop
// CHECK: [[UB1:%[0-9a-z]+]] = "tile.minimum"
// CHECK: [[PRO:%[0-9a-z]+]]:4 = scf.for [[J0:%[0-9a-z]+]] = [[LB:%[0-9a-z]+]] to [[UB1]]
// CHECK: "tile.exp2"
// CHECK: scf.yield
// CHECK: [[MAIN:%[0-9a-z]+]]:5 = scf.for [[J:%[0-9a-z]+]] = {{%[0-9a-z]+}} to %arg5 step [[STEP:%[0-9a-z]+]] iter_args([[ACC:%[0-9a-z]+]] = [[PRO]]#0, [[M:%[0-9a-z]+]] = [[PRO]]#1, [[P:%[0-9a-z]+]] = [[PRO]]#2, [[A:%[0-9a-z]+]] = [[PRO]]#3, [[PREV:%[0-9a-z]+]] = [[LB]])
// CHECK: [[JM1:%[0-9a-z]+]] = "tile.sub"([[J]], [[STEP]])
// CHECK-NEXT: [[B:%[0-9a-z]+]] = "tile.broadcast"([[A]])
// CHECK-NEXT: [[C:%[0-9a-z]+]] = "tile.mul"([[ACC]], [[B]])
// CHECK-NEXT: [[S:%[0-9a-z]+]] = "tile.mma"
// CHECK-NEXT: "tile.load"(%arg2, [[JM1]], {{%[0-9a-z]+}})
// CHECK-NEXT: [[O:%[0-9a-z]+]] = "tile.mma"([[P]], {{%[0-9a-z]+}}, [[C]])
// CHECK-NEXT: "tile.exp2"([[S]])
// CHECK: scf.yield [[O]], {{%[0-9a-z]+}}, {{%[0-9a-z]+}}, {{%[0-9a-z]+}}, [[J]]
// CHECK: [[LAST:%[0-9a-z]+]] = "tile.add"([[MAIN]]#4, [[STEP]])
// CHECK: [[UB2:%[0-9a-z]+]] = "tile.minimum"([[LAST]], %arg5)
// CHECK: [[EPI:%[0-9a-z]+]] = scf.for [[JL:%[0-9a-z]+]] = [[MAIN]]#4 to [[UB2]] step [[STEP]] iter_args([[ACCL:%[0-9a-z]+]] = [[MAIN]]#0)
// CHECK: "tile.load"(%arg2, [[JL]], {{%[0-9a-z]+}})
// CHECK: "tile.mma"([[MAIN]]#2
// CHECK: return [[EPI]], [[MAIN]]#1
func.func @attention_loop(%q: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>,
                          %k: !tile.array<bf16, array<i64: -1, -1, 1>, 16 : i64>,
                          %v: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>,
                          %i: i32, %zero_i: i32, %n: i32,
                          %acc0: tensor<128x64xf32>, %m0: tensor<128x1xf32>)
    -> (tensor<128x64xf32>, tensor<128x1xf32>) attributes {tile.num_warps = 8 : i32} {
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %zero = "tile.constant"() {value = 0.0 : f32} : () -> f32
  %x = "tile.load"(%q, %i, %lb) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x64xbf16>
  %r:2 = scf.for %j = %lb to %n step %step iter_args(%acc = %acc0, %m = %m0) -> (tensor<128x64xf32>, tensor<128x1xf32>) : i32 {
    %keys = "tile.load"(%k, %zero_i, %j, %lb) {order = array<i64: 0, 1, 2>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, -1, 1>, 16 : i64>, i32, i32, i32) -> tensor<1x64x64xbf16>
    %kr = "tile.reshape"(%keys) : (tensor<1x64x64xbf16>) -> tensor<64x64xbf16>
    %kt = "tile.permute"(%kr) {axes = array<i64: 1, 0>} : (tensor<64x64xbf16>) -> tensor<64x64xbf16>
    %z = "tile.splat"(%zero) : (f32) -> tensor<128x64xf32>
    %s = "tile.mma"(%x, %kt, %z) : (tensor<128x64xbf16>, tensor<64x64xbf16>, tensor<128x64xf32>) -> tensor<128x64xf32>
    %p = "tile.exp2"(%s) : (tensor<128x64xf32>) -> tensor<128x64xf32>
    %mn = "tile.exp2"(%m) : (tensor<128x1xf32>) -> tensor<128x1xf32>
    %pb = "tile.cast"(%p) : (tensor<128x64xf32>) -> tensor<128x64xbf16>
    %vals = "tile.load"(%v, %j, %lb) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x64xbf16>
    %ab = "tile.broadcast"(%mn) : (tensor<128x1xf32>) -> tensor<128x64xf32>
    %scaled = "tile.mul"(%acc, %ab) : (tensor<128x64xf32>, tensor<128x64xf32>) -> tensor<128x64xf32>
    %o = "tile.mma"(%pb, %vals, %scaled) : (tensor<128x64xbf16>, tensor<64x64xbf16>, tensor<128x64xf32>) -> tensor<128x64xf32>
    scf.yield %o, %mn : tensor<128x64xf32>, tensor<128x1xf32>
  }
  return %r#0, %r#1 : tensor<128x64xf32>, tensor<128x1xf32>
}

// -----

// A loop with one product (a K loop with more work) is left alone.
// CHECK-LABEL: @one_product
// CHECK-COUNT-1: scf.for
// CHECK-NOT: scf.for
func.func @one_product(%a: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>,
                       %b: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>,
                       %n: i32, %acc0: tensor<128x64xf32>) -> tensor<128x64xf32>
    attributes {tile.num_warps = 8 : i32} {
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %x = "tile.load"(%a, %lb, %lb) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x64xbf16>
  %r = scf.for %j = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<128x64xf32>) : i32 {
    %w = "tile.load"(%b, %j, %lb) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x64xbf16>
    %scaled = "tile.mul"(%acc, %acc) : (tensor<128x64xf32>, tensor<128x64xf32>) -> tensor<128x64xf32>
    %o = "tile.mma"(%x, %w, %scaled) : (tensor<128x64xbf16>, tensor<64x64xbf16>, tensor<128x64xf32>) -> tensor<128x64xf32>
    scf.yield %o : tensor<128x64xf32>
  }
  return %r : tensor<128x64xf32>
}
