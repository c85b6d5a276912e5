// RUN: tilelang-opt %s --split-input-file -p tile-assign-layouts | filecheck %s

// A gather of deferred indices is never deferred itself: it gets the default layout, its index
// (an arange) and its mask and padding (splats) are rebuilt in it, and nothing is converted.
// CHECK-LABEL: @gather_arange
// CHECK: %[[I:.*]] = "tile.arange"() : () -> tensor<256xi32, #tile.layout<"[[L:[^"]*]]">>
// CHECK: "tile.gather"(%arg0, %[[I]], {{.*}}) {{.*}} -> tensor<256xf32, #tile.layout<"[[L]]">>
// CHECK-NOT: "tile.convert_layout"
// CHECK: "tile.store"
func.func @gather_arange(%x: !tile.array<f32, array<i64: 1>, 16 : i64>, %y: !tile.array<f32, array<i64: 1>, 16 : i64>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = "tile.arange"() : () -> tensor<256xi32>
  %t = "tile.constant"() {value = true} : () -> i1
  %m = "tile.splat"(%t) : (i1) -> tensor<256xi1>
  %z = "tile.constant"() {value = 0.0 : f32} : () -> f32
  %p = "tile.splat"(%z) : (f32) -> tensor<256xf32>
  %g = "tile.gather"(%x, %i, %m, %p) {check_bounds = true} : (!tile.array<f32, array<i64: 1>, 16 : i64>, tensor<256xi32>, tensor<256xi1>, tensor<256xf32>) -> tensor<256xf32>
  %b = "tile.constant"() {value = 0 : i32} : () -> i32
  "tile.store"(%y, %b, %g) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<256xf32>) -> ()
  return
}

// -----

// An atomic takes the layout of its first concrete operand (the loaded indices); the update,
// loaded in another layout (f64: 2 per thread instead of 4 i32), is converted to it.
// CHECK-LABEL: @atomic_loaded
// CHECK: %[[I:.*]] = "tile.load"(%arg1{{.*}} -> tensor<512xi32, #tile.layout<"[[L:[^"]*]]">>
// CHECK: %[[U:.*]] = "tile.load"(%arg2
// CHECK: %[[C:.*]] = "tile.convert_layout"(%[[U]]) {{.*}} -> tensor<512xf64, #tile.layout<"[[L]]">>
// CHECK: "tile.atomic_rmw"(%arg0, %[[I]], %[[C]]) {{.*}} -> tensor<512xf64, #tile.layout<"[[L]]">>
func.func @atomic_loaded(%h: !tile.array<f64, array<i64: 1>, 16 : i64>, %idx: !tile.array<i32, array<i64: 1>, 16 : i64>, %u: !tile.array<f64, array<i64: 1>, 16 : i64>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %b = "tile.bid"() {axis = 0 : i64} : () -> i32
  %i = "tile.load"(%idx, %b) {order = array<i64: 0>, padding_mode = "neg_inf"} : (!tile.array<i32, array<i64: 1>, 16 : i64>, i32) -> tensor<512xi32>
  %v = "tile.load"(%u, %b) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f64, array<i64: 1>, 16 : i64>, i32) -> tensor<512xf64>
  %o = "tile.atomic_rmw"(%h, %i, %v) {kind = "add", memory_order = "relaxed", memory_scope = "device", check_bounds = true} : (!tile.array<f64, array<i64: 1>, 16 : i64>, tensor<512xi32>, tensor<512xf64>) -> tensor<512xf64>
  return
}

// -----

// A scatter has no result: all its tile operands are brought to its first concrete operand's
// layout (here the loaded value, since the indices are deferred).
// CHECK-LABEL: @scatter_value
// CHECK: %[[V:.*]] = "tile.load"{{.*}} -> tensor<128xf16, #tile.layout<"[[L:[^"]*]]">>
// CHECK: %[[I:.*]] = "tile.arange"() : () -> tensor<128xi32, #tile.layout<"[[L]]">>
// CHECK-NOT: "tile.convert_layout"
// CHECK: "tile.scatter"(%arg1, %[[I]], %[[V]], %{{.*}}) {{.*}}tensor<128xi1, #tile.layout<"[[L]]">>) -> ()
func.func @scatter_value(%x: !tile.array<f16, array<i64: 1>, 16 : i64>, %y: !tile.array<f16, array<i64: 1>, 16 : i64>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %b = "tile.bid"() {axis = 0 : i64} : () -> i32
  %v = "tile.load"(%x, %b) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f16, array<i64: 1>, 16 : i64>, i32) -> tensor<128xf16>
  %i = "tile.arange"() : () -> tensor<128xi32>
  %t = "tile.constant"() {value = true} : () -> i1
  %m = "tile.splat"(%t) : (i1) -> tensor<128xi1>
  "tile.scatter"(%y, %i, %v, %m) {check_bounds = true} : (!tile.array<f16, array<i64: 1>, 16 : i64>, tensor<128xi32>, tensor<128xf16>, tensor<128xi1>) -> ()
  return
}
