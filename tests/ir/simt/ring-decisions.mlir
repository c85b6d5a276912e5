// RUN: tilelang-opt %s --split-input-file -p 'tile-distribute-to-threads{chip=sm_90 features=+ptx80}' | filecheck %s

// The lowering follows the ring decisions recorded on the IR (tile-plan-rings, tile-specialize-
// warps), here written by hand in place of theirs (4 stages, TMA, a producer warpgroup with
// setmaxnreg). A K loop of 128x64 @ 64x256 bf16 tiles with a ring of 3 stages filled by
// cp.async: 3 stages of 48 KiB (the buffer is declared 1024-byte aligned); the copies run one stage ahead
// of wgmma (stages - 2).
// CHECK-LABEL: gpu.func @three_stages
// CHECK-SAME: nvvm.reqntid = array<i32: 256, 1, 1>
// CHECK-SAME: tile.shared_bytes = 147456
// CHECK: nvvm.cp.async.shared.global
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: nvvm.wgmma.mma_async
#L0 = #tile.layout<"shape=[128,256] register=[[0,1],[8,0],[0,8],[0,16],[0,32],[0,64],[0,128]] lane=[[0,2],[0,4],[1,0],[2,0],[4,0]] warp=[[16,0],[32,0],[64,0]]">
#L1 = #tile.layout<"shape=[128,64] register=[[0,1],[0,2],[0,4],[32,0],[64,0]] lane=[[0,8],[0,16],[0,32],[1,0],[2,0]] warp=[[4,0],[8,0],[16,0]]">
#L2 = #tile.layout<"shape=[64,256] register=[[0,1],[0,2],[0,4],[8,0],[16,0],[32,0]] lane=[[0,8],[0,16],[0,32],[0,64],[0,128]] warp=[[1,0],[2,0],[4,0]]">
func.func @three_stages(%arg0: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %arg1: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %arg2: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %0 = "tile.bid"() {axis = 0 : i64} : () -> i32
  %1 = "tile.bid"() {axis = 1 : i64} : () -> i32
  %2 = "tile.constant"() {value = 0.000000e+00 : f32} : () -> f32
  %3 = "tile.splat"(%2) : (f32) -> tensor<128x256xf32, #L0>
  %4 = "tile.dim"(%arg0) {dim = 1 : i64} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>) -> i32
  %5 = "tile.constant"() {value = 64 : i32} : () -> i32
  %6 = "tile.floordiv"(%4, %5) : (i32, i32) -> i32
  %7 = "tile.mod"(%4, %5) : (i32, i32) -> i32
  %8 = "tile.constant"() {value = 0 : i32} : () -> i32
  %9 = "tile.cmp"(%7, %8) {predicate = "ne"} : (i32, i32) -> i1
  %10 = "tile.cast"(%9) : (i1) -> i32
  %11 = "tile.add"(%6, %10) : (i32, i32) -> i32
  %12 = "tile.constant"() {value = 1 : i32} : () -> i32
  %13 = scf.for %arg3 = %8 to %11 step %12 iter_args(%arg4 = %3) -> (tensor<128x256xf32, #L0>)  : i32 {
    %15 = "tile.load"(%arg0, %0, %arg3) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x64xbf16, #L1>
    %16 = "tile.load"(%arg1, %arg3, %1) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x256xbf16, #L2>
    %17 = "tile.mma"(%15, %16, %arg4) : (tensor<128x64xbf16, #L1>, tensor<64x256xbf16, #L2>, tensor<128x256xf32, #L0>) -> tensor<128x256xf32, #L0>
    scf.yield %17 : tensor<128x256xf32, #L0>
  } {tile.ring = {copy = "cp.async", engine = "wgmma", loop = "matmul", stages = 3 : i64}}
  %14 = "tile.cast"(%13) : (tensor<128x256xf32, #L0>) -> tensor<128x256xbf16, #L0>
  "tile.store"(%arg2, %0, %1, %14) {order = array<i64: 0, 1>} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<128x256xbf16, #L0>) -> ()
  return
}

// -----

// The same loop filled by TMA, in a kernel with a producer warpgroup (4 more warps) and a ring
// of 2 stages, without setmaxnreg: 2 stages and their 2 x 2 mbarriers.
// CHECK-LABEL: gpu.func @producer
// CHECK-SAME: nvvm.reqntid = array<i32: 384, 1, 1>
// CHECK-SAME: tile.shared_bytes = 98336
// CHECK-COUNT-4: nvvm.mbarrier.init
// CHECK-NOT: nvvm.setmaxnreg
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.barrier
#L0 = #tile.layout<"shape=[128,256] register=[[0,1],[8,0],[0,8],[0,16],[0,32],[0,64],[0,128]] lane=[[0,2],[0,4],[1,0],[2,0],[4,0]] warp=[[16,0],[32,0],[64,0]]">
#L1 = #tile.layout<"shape=[128,64] register=[[0,1],[0,2],[0,4],[32,0],[64,0]] lane=[[0,8],[0,16],[0,32],[1,0],[2,0]] warp=[[4,0],[8,0],[16,0]]">
#L2 = #tile.layout<"shape=[64,256] register=[[0,1],[0,2],[0,4],[8,0],[16,0],[32,0]] lane=[[0,8],[0,16],[0,32],[0,64],[0,128]] warp=[[1,0],[2,0],[4,0]]">
func.func @producer(%arg0: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %arg1: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %arg2: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>) attributes {tile.kernel, tile.num_warps = 8 : i32, tile.warp_specialize = {consumer_registers = 0 : i64, producer_registers = 0 : i64, stages = 2 : i64}} {
  %0 = "tile.bid"() {axis = 0 : i64} : () -> i32
  %1 = "tile.bid"() {axis = 1 : i64} : () -> i32
  %2 = "tile.constant"() {value = 0.000000e+00 : f32} : () -> f32
  %3 = "tile.splat"(%2) : (f32) -> tensor<128x256xf32, #L0>
  %4 = "tile.dim"(%arg0) {dim = 1 : i64} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>) -> i32
  %5 = "tile.constant"() {value = 64 : i32} : () -> i32
  %6 = "tile.floordiv"(%4, %5) : (i32, i32) -> i32
  %7 = "tile.mod"(%4, %5) : (i32, i32) -> i32
  %8 = "tile.constant"() {value = 0 : i32} : () -> i32
  %9 = "tile.cmp"(%7, %8) {predicate = "ne"} : (i32, i32) -> i1
  %10 = "tile.cast"(%9) : (i1) -> i32
  %11 = "tile.add"(%6, %10) : (i32, i32) -> i32
  %12 = "tile.constant"() {value = 1 : i32} : () -> i32
  %13 = scf.for %arg3 = %8 to %11 step %12 iter_args(%arg4 = %3) -> (tensor<128x256xf32, #L0>)  : i32 {
    %15 = "tile.load"(%arg0, %0, %arg3) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x64xbf16, #L1>
    %16 = "tile.load"(%arg1, %arg3, %1) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x256xbf16, #L2>
    %17 = "tile.mma"(%15, %16, %arg4) : (tensor<128x64xbf16, #L1>, tensor<64x256xbf16, #L2>, tensor<128x256xf32, #L0>) -> tensor<128x256xf32, #L0>
    scf.yield %17 : tensor<128x256xf32, #L0>
  } {tile.ring = {copy = "tma", engine = "wgmma", loop = "matmul", stages = 4 : i64}}
  %14 = "tile.cast"(%13) : (tensor<128x256xf32, #L0>) -> tensor<128x256xbf16, #L0>
  "tile.store"(%arg2, %0, %1, %14) {order = array<i64: 0, 1>} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<128x256xbf16, #L0>) -> ()
  return
}
