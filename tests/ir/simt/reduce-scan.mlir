// RUN: tilelang-opt %s --split-input-file -p 'tile-order-accesses,tile-distribute-to-threads{chip=sm_90 features=+ptx80}' | filecheck %s

// A row sum of an 8x64 tile: each thread adds its 2 registers, then 4 butterfly shuffles over the
// lanes along the row (xor 1, 2, 4, 8); no lane or warp bit of the rows is combined, so no shared
// memory.
// CHECK-LABEL: gpu.func @row_sums
// CHECK-SAME: tile.shared_bytes = 0 : i64
// CHECK: arith.addf
// CHECK: gpu.shuffle xor
// CHECK: gpu.shuffle xor
// CHECK: gpu.shuffle xor
// CHECK: gpu.shuffle xor
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.return
#L = #tile.layout<"shape=[8,64] register=[[0,1],[0,2]] lane=[[0,4],[0,8],[0,16],[0,32],[1,0]] warp=[[2,0],[4,0]]">
#R = #tile.layout<"shape=[8,1] register=[] lane=[[0,0],[0,0],[0,0],[0,0],[1,0]] warp=[[2,0],[4,0]]">
func.func @row_sums(%x: !tile.array<f32, array<i64: -1, 1>, 16 : i64>, %y: !tile.array<f32, array<i64: -1, 1>, 16 : i64>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %t = "tile.load"(%x, %i, %i) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<8x64xf32, #L>
  %s = "tile.reduce"(%t) ({
  ^bb0(%a: f32, %b: f32):
    %c = "tile.add"(%a, %b) : (f32, f32) -> f32
    gpu.yield %c : f32
  }) {axes = array<i64: 1>, identities = [0.0 : f32], operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<8x64xf32, #L>) -> tensor<8x1xf32, #R>
  "tile.store"(%y, %i, %i, %s) {order = array<i64: 0, 1>} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<8x1xf32, #R>) -> ()
  return
}

// -----

// Summing a 512-element row spread over 4 warps: butterflies within each warp, then the warps'
// partials go through shared memory between barriers, and each thread adds the 4 partials.
// CHECK-LABEL: gpu.func @total
// CHECK-SAME: tile.shared_bytes = 16 : i64
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK: gpu.barrier
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK-COUNT-4: llvm.load {{.*}} : !llvm.ptr<3> -> f32
#A = #tile.layout<"shape=[512] register=[[1],[2]] lane=[[4],[8],[16],[32],[64]] warp=[[128],[256]]">
#S = #tile.layout<"shape=[1] register=[] lane=[[0],[0],[0],[0],[0]] warp=[[0],[0]]">
func.func @total(%x: !tile.array<f32, array<i64: 1>, 16 : i64>, %y: !tile.array<f32, array<i64: 1>, 16 : i64>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %t = "tile.load"(%x, %i) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<512xf32, #A>
  %s = "tile.reduce"(%t) ({
  ^bb0(%a: f32, %b: f32):
    %c = "tile.add"(%a, %b) : (f32, f32) -> f32
    gpu.yield %c : f32
  }) {axes = array<i64: 0>, identities = [0.0 : f32], operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<512xf32, #A>) -> tensor<1xf32, #S>
  "tile.store"(%y, %i, %s) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<1xf32, #S>) -> ()
  return
}

// -----

// A scan of 1024 elements, 8 per thread: a running sum in registers, 5 Hillis-Steele steps of
// shuffles up the lanes and one more for the previous lane's total, then the totals of earlier
// warps through shared memory.
// CHECK-LABEL: gpu.func @running_sum
// CHECK-COUNT-6: gpu.shuffle up
// CHECK: gpu.barrier
// CHECK: llvm.store {{.*}} : i32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> i32
#C = #tile.layout<"shape=[1024] register=[[1],[2],[4]] lane=[[8],[16],[32],[64],[128]] warp=[[256],[512]]">
func.func @running_sum(%x: !tile.array<i32, array<i64: 1>, 16 : i64>, %y: !tile.array<i32, array<i64: 1>, 16 : i64>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %t = "tile.load"(%x, %i) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<i32, array<i64: 1>, 16 : i64>, i32) -> tensor<1024xi32, #C>
  %s = "tile.scan"(%t) ({
  ^bb0(%a: i32, %b: i32):
    %c = "tile.add"(%a, %b) : (i32, i32) -> i32
    gpu.yield %c : i32
  }) {axis = 0 : i64, reverse = 0 : i64, identities = [0 : i32], operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<1024xi32, #C>) -> tensor<1024xi32, #C>
  "tile.store"(%y, %i, %s) {order = array<i64: 0>} : (!tile.array<i32, array<i64: 1>, 16 : i64>, i32, tensor<1024xi32, #C>) -> ()
  return
}
