// RUN: tilelang-opt %s --split-input-file -p tile-assign-layouts | filecheck %s

// A row sum works in the load's layout (its bases lie along the rows or the columns): the
// result keeps the row bits, loses the column register bits, and its column lane bits become
// replicas (zero bases).
// CHECK-LABEL: @row_sums
// CHECK: "tile.load"{{.*}} -> tensor<8x64xf32, #tile.layout<"shape=[8,64] register=[[0,1],[0,2]] lane=[[0,4],[0,8],[0,16],[0,32],[1,0]] warp=[[2,0],[4,0]]">>
// CHECK-NOT: "tile.convert_layout"
// CHECK: "tile.reduce"
// CHECK: -> tensor<8x1xf32, #tile.layout<"shape=[8,1] register=[] lane=[[0,0],[0,0],[0,0],[0,0],[1,0]] warp=[[2,0],[4,0]]">>
func.func @row_sums(%x: !tile.array<f32, array<i64: -1, 1>, 16 : i64>, %y: !tile.array<f32, array<i64: -1, 1>, 16 : i64>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %t = "tile.load"(%x, %i, %i) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<8x64xf32>
  %s = "tile.reduce"(%t) ({
  ^bb0(%a: f32, %b: f32):
    %c = "tile.add"(%a, %b) : (f32, f32) -> f32
    gpu.yield %c : f32
  }) {axes = array<i64: 1>, identities = [0.0 : f32], operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<8x64xf32>) -> tensor<8x1xf32>
  "tile.store"(%y, %i, %i, %s) {order = array<i64: 0, 1>} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<8x1xf32>) -> ()
  return
}

// -----

// A scan along a 1024-element tile cannot work in the load's layout (its top register bit
// comes after the lane and warp bits along the axis): the tile is converted to a scan-ready
// layout (8 contiguous elements per thread, then lanes, then warps), and the result keeps it.
// CHECK-LABEL: @running_sum
// CHECK: "tile.convert_layout"{{.*}} -> tensor<1024xi32, #tile.layout<"shape=[1024] register=[[1],[2],[4]] lane=[[8],[16],[32],[64],[128]] warp=[[256],[512]]">>
// CHECK: "tile.scan"
// CHECK: }) {axis = 0 : i64{{.*}} -> tensor<1024xi32, #tile.layout<"shape=[1024] register=[[1],[2],[4]] lane=[[8],[16],[32],[64],[128]] warp=[[256],[512]]">>
func.func @running_sum(%x: !tile.array<i32, array<i64: 1>, 16 : i64>, %y: !tile.array<i32, array<i64: 1>, 16 : i64>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %t = "tile.load"(%x, %i) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<i32, array<i64: 1>, 16 : i64>, i32) -> tensor<1024xi32>
  %s = "tile.scan"(%t) ({
  ^bb0(%a: i32, %b: i32):
    %c = "tile.add"(%a, %b) : (i32, i32) -> i32
    gpu.yield %c : i32
  }) {axis = 0 : i64, reverse = 0 : i64, identities = [0 : i32], operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<1024xi32>) -> tensor<1024xi32>
  "tile.store"(%y, %i, %s) {order = array<i64: 0>} : (!tile.array<i32, array<i64: 1>, 16 : i64>, i32, tensor<1024xi32>) -> ()
  return
}

// -----

// A row cut into groups of neighbours (a linear reshape of the load, deferred) is summed in
// the layout the reshape gives at no cost: each thread's four neighbours are register bits, so
// the sum stays within the thread; the loop carries the sums in the reduction's own layout
// (not the default one), so nothing converts inside the loop.
// CHECK-LABEL: @grouped_sums
// CHECK: scf.for {{.*}} -> (tensor<256xf32, #tile.layout<"shape=[256] register=[[128]] lane=[[1],[2],[4],[8],[16]] warp=[[32],[64]]">>)
// CHECK-NOT: "tile.convert_layout"
// CHECK: scf.yield
func.func @grouped_sums(%x: !tile.array<f32, array<i64: -1, 1>, 16 : i64>, %y: !tile.array<f32, array<i64: 1>, 16 : i64>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %ub = "tile.constant"() {value = 4 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %zero = "tile.constant"() {value = 0.0 : f32} : () -> f32
  %init = "tile.splat"(%zero) : (f32) -> tensor<256xf32>
  %s = scf.for %j = %lb to %ub step %step iter_args(%acc = %init) -> (tensor<256xf32>) : i32 {
    %t = "tile.load"(%x, %i, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<1x1024xf32>
    %g = "tile.reshape"(%t) : (tensor<1x1024xf32>) -> tensor<256x4xf32>
    %r = "tile.reduce"(%g) ({
    ^bb0(%a: f32, %b: f32):
      %c = "tile.add"(%a, %b) : (f32, f32) -> f32
      gpu.yield %c : f32
    }) {axes = array<i64: 1>, identities = [0.0 : f32], operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<256x4xf32>) -> tensor<256x1xf32>
    %flat = "tile.reshape"(%r) : (tensor<256x1xf32>) -> tensor<256xf32>
    %next = "tile.add"(%acc, %flat) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    scf.yield %next : tensor<256xf32>
  }
  "tile.store"(%y, %i, %s) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<256xf32>) -> ()
  return
}
