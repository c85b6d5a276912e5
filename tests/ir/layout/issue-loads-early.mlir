// RUN: tilelang-opt %s --split-input-file -p tile-issue-loads-early | filecheck %s

// A GEMM's bias row, loaded after the K loop with indices known before it, is issued before
// the loop (its latency passes during the products); the conversion to the layout the add
// wants stays after the loop (it holds 64 columns a thread: too many to carry across).
// CHECK-LABEL: func.func @bias_after_k_loop
// CHECK: "tile.load"(%{{.*}}, %{{.*}}) {order = array<i64: 0>
// CHECK-NEXT: scf.for
// CHECK: tile.mma
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: "tile.convert_layout"
func.func @bias_after_k_loop(%a: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %b: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %bias: !tile.array<bf16, array<i64: 1>, 16 : i64>, %c: !tile.array<f32, array<i64: -1, 1>, 16 : i64>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %j = "tile.bid"() {axis = 1 : i64} : () -> i32
  %zero = "tile.constant"() {value = 0.000000e+00 : f32} : () -> f32
  %acc0 = "tile.splat"(%zero) : (f32) -> tensor<64x64xf32, #tile.layout<"shape=[64,64] register=[[0,1],[8,0],[0,8],[0,16],[0,32]] lane=[[0,2],[0,4],[1,0],[2,0],[4,0]] warp=[[16,0],[32,0]]">>
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<64x64xf32, #tile.layout<"shape=[64,64] register=[[0,1],[8,0],[0,8],[0,16],[0,32]] lane=[[0,2],[0,4],[1,0],[2,0],[4,0]] warp=[[16,0],[32,0]]">>) : i32 {
    %x = "tile.load"(%a, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x64xbf16, #tile.layout<"shape=[64,64] register=[[0,1],[0,2],[0,4],[16,0],[32,0]] lane=[[0,8],[0,16],[0,32],[1,0],[2,0]] warp=[[4,0],[8,0]]">>
    %w = "tile.load"(%b, %k, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x64xbf16, #tile.layout<"shape=[64,64] register=[[0,1],[0,2],[0,4],[16,0],[32,0]] lane=[[0,8],[0,16],[0,32],[1,0],[2,0]] warp=[[4,0],[8,0]]">>
    %p = "tile.mma"(%x, %w, %acc) : (tensor<64x64xbf16, #tile.layout<"shape=[64,64] register=[[0,1],[0,2],[0,4],[16,0],[32,0]] lane=[[0,8],[0,16],[0,32],[1,0],[2,0]] warp=[[4,0],[8,0]]">>, tensor<64x64xbf16, #tile.layout<"shape=[64,64] register=[[0,1],[0,2],[0,4],[16,0],[32,0]] lane=[[0,8],[0,16],[0,32],[1,0],[2,0]] warp=[[4,0],[8,0]]">>, tensor<64x64xf32, #tile.layout<"shape=[64,64] register=[[0,1],[8,0],[0,8],[0,16],[0,32]] lane=[[0,2],[0,4],[1,0],[2,0],[4,0]] warp=[[16,0],[32,0]]">>) -> tensor<64x64xf32, #tile.layout<"shape=[64,64] register=[[0,1],[8,0],[0,8],[0,16],[0,32]] lane=[[0,2],[0,4],[1,0],[2,0],[4,0]] warp=[[16,0],[32,0]]">>
    scf.yield %p : tensor<64x64xf32, #tile.layout<"shape=[64,64] register=[[0,1],[8,0],[0,8],[0,16],[0,32]] lane=[[0,2],[0,4],[1,0],[2,0],[4,0]] warp=[[16,0],[32,0]]">>
  }
  %row = "tile.load"(%bias, %j) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: 1>, 16 : i64>, i32) -> tensor<64xbf16, #tile.layout<"shape=[64] register=[[1],[2],[4]] lane=[[8],[16],[32],[0],[0]] warp=[[0],[0]]">>
  %rowc = "tile.convert_layout"(%row) : (tensor<64xbf16, #tile.layout<"shape=[64] register=[[1],[2],[4]] lane=[[8],[16],[32],[0],[0]] warp=[[0],[0]]">>) -> tensor<64xbf16, #tile.layout<"shape=[64] register=[[1],[0],[8],[16],[32]] lane=[[2],[4],[0],[0],[0]] warp=[[0],[0]]">>
  %rowf = "tile.cast"(%rowc) : (tensor<64xbf16, #tile.layout<"shape=[64] register=[[1],[0],[8],[16],[32]] lane=[[2],[4],[0],[0],[0]] warp=[[0],[0]]">>) -> tensor<64xf32, #tile.layout<"shape=[64] register=[[1],[0],[8],[16],[32]] lane=[[2],[4],[0],[0],[0]] warp=[[0],[0]]">>
  %row2 = "tile.reshape"(%rowf) : (tensor<64xf32, #tile.layout<"shape=[64] register=[[1],[0],[8],[16],[32]] lane=[[2],[4],[0],[0],[0]] warp=[[0],[0]]">>) -> tensor<1x64xf32, #tile.layout<"shape=[1,64] register=[[0,1],[0,0],[0,8],[0,16],[0,32]] lane=[[0,2],[0,4],[0,0],[0,0],[0,0]] warp=[[0,0],[0,0]]">>
  %rowb = "tile.broadcast"(%row2) : (tensor<1x64xf32, #tile.layout<"shape=[1,64] register=[[0,1],[0,0],[0,8],[0,16],[0,32]] lane=[[0,2],[0,4],[0,0],[0,0],[0,0]] warp=[[0,0],[0,0]]">>) -> tensor<64x64xf32, #tile.layout<"shape=[64,64] register=[[0,1],[8,0],[0,8],[0,16],[0,32]] lane=[[0,2],[0,4],[1,0],[2,0],[4,0]] warp=[[16,0],[32,0]]">>
  %sum = "tile.add"(%r, %rowb) : (tensor<64x64xf32, #tile.layout<"shape=[64,64] register=[[0,1],[8,0],[0,8],[0,16],[0,32]] lane=[[0,2],[0,4],[1,0],[2,0],[4,0]] warp=[[16,0],[32,0]]">>, tensor<64x64xf32, #tile.layout<"shape=[64,64] register=[[0,1],[8,0],[0,8],[0,16],[0,32]] lane=[[0,2],[0,4],[1,0],[2,0],[4,0]] warp=[[16,0],[32,0]]">>) -> tensor<64x64xf32, #tile.layout<"shape=[64,64] register=[[0,1],[8,0],[0,8],[0,16],[0,32]] lane=[[0,2],[0,4],[1,0],[2,0],[4,0]] warp=[[16,0],[32,0]]">>
  "tile.store"(%c, %i, %j, %sum) {order = array<i64: 0, 1>} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<64x64xf32, #tile.layout<"shape=[64,64] register=[[0,1],[8,0],[0,8],[0,16],[0,32]] lane=[[0,2],[0,4],[1,0],[2,0],[4,0]] warp=[[16,0],[32,0]]">>) -> ()
  return
}

// -----

// Not moved: a load after a store that follows the loop (it may read what the store wrote),
// and a load whose index is the loop's result.
// CHECK-LABEL: func.func @after_a_store
// CHECK: scf.for
// CHECK: "tile.store"
// CHECK-NEXT: "tile.load"
func.func @after_a_store(%a: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %s: !tile.array<f32, array<i64: 1>, 16 : i64>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %zero = "tile.constant"() {value = 0.000000e+00 : f32} : () -> f32
  %acc0 = "tile.splat"(%zero) : (f32) -> tensor<64x64xf32, #tile.layout<"shape=[64,64] register=[[0,1],[8,0],[0,8],[0,16],[0,32]] lane=[[0,2],[0,4],[1,0],[2,0],[4,0]] warp=[[16,0],[32,0]]">>
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<64x64xf32, #tile.layout<"shape=[64,64] register=[[0,1],[8,0],[0,8],[0,16],[0,32]] lane=[[0,2],[0,4],[1,0],[2,0],[4,0]] warp=[[16,0],[32,0]]">>) : i32 {
    %x = "tile.load"(%a, %k, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x64xbf16, #tile.layout<"shape=[64,64] register=[[0,1],[0,2],[0,4],[16,0],[32,0]] lane=[[0,8],[0,16],[0,32],[1,0],[2,0]] warp=[[4,0],[8,0]]">>
    %p = "tile.mma"(%x, %x, %acc) : (tensor<64x64xbf16, #tile.layout<"shape=[64,64] register=[[0,1],[0,2],[0,4],[16,0],[32,0]] lane=[[0,8],[0,16],[0,32],[1,0],[2,0]] warp=[[4,0],[8,0]]">>, tensor<64x64xbf16, #tile.layout<"shape=[64,64] register=[[0,1],[0,2],[0,4],[16,0],[32,0]] lane=[[0,8],[0,16],[0,32],[1,0],[2,0]] warp=[[4,0],[8,0]]">>, tensor<64x64xf32, #tile.layout<"shape=[64,64] register=[[0,1],[8,0],[0,8],[0,16],[0,32]] lane=[[0,2],[0,4],[1,0],[2,0],[4,0]] warp=[[16,0],[32,0]]">>) -> tensor<64x64xf32, #tile.layout<"shape=[64,64] register=[[0,1],[8,0],[0,8],[0,16],[0,32]] lane=[[0,2],[0,4],[1,0],[2,0],[4,0]] warp=[[16,0],[32,0]]">>
    scf.yield %p : tensor<64x64xf32, #tile.layout<"shape=[64,64] register=[[0,1],[8,0],[0,8],[0,16],[0,32]] lane=[[0,2],[0,4],[1,0],[2,0],[4,0]] warp=[[16,0],[32,0]]">>
  }
  %one = "tile.constant"() {value = 1.000000e+00 : f32} : () -> f32
  "tile.store"(%s, %lb, %one) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, f32) -> ()
  %back = "tile.load"(%s, %lb) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<4xf32, #tile.layout<"shape=[4] register=[[1],[2]] lane=[[0],[0],[0],[0],[0]] warp=[[0],[0]]">>
  "tile.store"(%s, %step, %back) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<4xf32, #tile.layout<"shape=[4] register=[[1],[2]] lane=[[0],[0],[0],[0],[0]] warp=[[0],[0]]">>) -> ()
  return
}
