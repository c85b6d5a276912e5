// RUN: tilelang-opt %s --split-input-file -p tile-assign-layouts | filecheck %s

// A load gets the coalesced layout (4 contiguous f32 per thread, 128 threads along the tile);
// the splat is rebuilt in that layout, so nothing is converted.
// CHECK-LABEL: @scale
// CHECK: "tile.load"{{.*}} -> tensor<512xf32, #tile.layout<"shape=[512] register=[[1],[2]] lane=[[4],[8],[16],[32],[64]] warp=[[128],[256]]">>
// CHECK: "tile.splat"{{.*}} -> tensor<512xf32, #tile.layout<"shape=[512] register=[[1],[2]] lane=[[4],[8],[16],[32],[64]] warp=[[128],[256]]">>
// CHECK: "tile.mul"
// CHECK-NOT: "tile.convert_layout"
// CHECK: "tile.store"
func.func @scale(%x: !tile.array<f32, array<i64: 1>, 16 : i64>, %y: !tile.array<f32, array<i64: 1>, 16 : i64>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %t = "tile.load"(%x, %i) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<512xf32>
  %c = "tile.constant"() {value = 2.0 : f32} : () -> f32
  %s = "tile.splat"(%c) : (f32) -> tensor<512xf32>
  %m = "tile.mul"(%t, %s) : (tensor<512xf32>, tensor<512xf32>) -> tensor<512xf32>
  "tile.store"(%y, %i, %m) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<512xf32>) -> ()
  return
}

// -----

// A transposed load is contiguous along tile axis 0, the store along axis 1: one conversion.
// CHECK-LABEL: @transpose
// CHECK: %[[T:.*]] = "tile.load"{{.*}}register=[[1,0],[2,0]
// CHECK: %[[C:.*]] = "tile.convert_layout"(%[[T]]){{.*}}register=[[0,1],[0,2]
// CHECK: "tile.store"(%arg1, %{{.*}}, %{{.*}}, %[[C]])
func.func @transpose(%x: !tile.array<f32, array<i64: -1, 1>, 16 : i64>, %y: !tile.array<f32, array<i64: -1, 1>, 16 : i64>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %t = "tile.load"(%x, %i, %i) {order = array<i64: 1, 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<32x32xf32>
  "tile.store"(%y, %i, %i, %t) {order = array<i64: 0, 1>} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<32x32xf32>) -> ()
  return
}

// -----

// A broadcast operand is converted (small), never the broadcast tile; the broadcast result
// takes its consumer's layout.
// CHECK-LABEL: @row_bias
// CHECK: %[[X:.*]] = "tile.load"(%arg0{{.*}} -> tensor<32x64xf32, #tile.layout<"[[L:[^"]*]]">>
// CHECK: %[[B:.*]] = "tile.load"(%arg1{{.*}} -> tensor<64xf32
// CHECK: "tile.convert_layout"(%[[B]]) {{.*}} -> tensor<64xf32
// CHECK: "tile.broadcast"{{.*}} -> tensor<32x64xf32, #tile.layout<"[[L]]">>
// CHECK: "tile.add"(%[[X]],
func.func @row_bias(%x: !tile.array<f32, array<i64: -1, 1>, 16 : i64>, %b: !tile.array<f32, array<i64: 1>, 16 : i64>, %y: !tile.array<f32, array<i64: -1, 1>, 16 : i64>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %t = "tile.load"(%x, %i, %i) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<32x64xf32>
  %v = "tile.load"(%b, %i) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<64xf32>
  %r = "tile.reshape"(%v) : (tensor<64xf32>) -> tensor<1x64xf32>
  %w = "tile.broadcast"(%r) : (tensor<1x64xf32>) -> tensor<32x64xf32>
  %s = "tile.add"(%t, %w) : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x64xf32>
  "tile.store"(%y, %i, %i, %s) {order = array<i64: 0, 1>} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<32x64xf32>) -> ()
  return
}

// -----

// A loop-carried accumulator starting from a splat takes the layout of what the body adds.
// CHECK-LABEL: @accumulate
// CHECK: %[[Z:.*]] = "tile.splat"{{.*}} -> tensor<256xf32, #tile.layout<"[[L:[^"]*]]">>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[Z]]) -> (tensor<256xf32, #tile.layout<"[[L]]">>)
// CHECK-NOT: "tile.convert_layout"
// CHECK: return
func.func @accumulate(%x: !tile.array<f32, array<i64: 1>, 16 : i64>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = "tile.constant"() {value = 0 : i32} : () -> i32
  %c1 = "tile.constant"() {value = 1 : i32} : () -> i32
  %f = "tile.constant"() {value = 0.0 : f32} : () -> f32
  %z = "tile.splat"(%f) : (f32) -> tensor<256xf32>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<256xf32>) : i32 {
    %t = "tile.load"(%x, %k) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<256xf32>
    %a = "tile.add"(%acc, %t) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    scf.yield %a : tensor<256xf32>
  }
  "tile.store"(%x, %c0, %r) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<256xf32>) -> ()
  return
}
