// RUN: tilelang-opt %s --split-input-file -p tile-rewrite-gathers | filecheck %s

// A row chunk gathered at j * 256 + arange(256) is a (1, 256) tile load at (row, j), reshaped;
// the scatter of the same run is a store.
// CHECK-LABEL: @row_chunk
// CHECK: [[K:%[0-9a-z]+]] = "tile.mul"(%arg2, [[T:%[0-9a-z]+]])
// CHECK: [[L:%[0-9a-z]+]] = "tile.load"(%arg0, %arg1, %arg2) {order = array<i64: 0, 1>, padding_mode = "zero"} : {{.*}} -> tensor<1x256xf32>
// CHECK: [[R:%[0-9a-z]+]] = "tile.reshape"([[L]]) : (tensor<1x256xf32>) -> tensor<256xf32>
// CHECK: [[V:%[0-9a-z]+]] = "tile.reshape"([[R]]) : (tensor<256xf32>) -> tensor<1x256xf32>
// CHECK: "tile.store"(%arg0, %arg1, %arg2, [[V]]) {order = array<i64: 0, 1>}
// CHECK-NOT: "tile.gather"
// CHECK-NOT: "tile.scatter"
func.func @row_chunk(%a: !tile.array<f32, array<i64: -1, 1>, 16 : i64>, %row: i32, %j: i32) {
  %t = "tile.constant"() {value = 256 : i32} : () -> i32
  %base = "tile.mul"(%j, %t) : (i32, i32) -> i32
  %iota = "tile.arange"() : () -> tensor<256xi32>
  %b = "tile.splat"(%base) : (i32) -> tensor<256xi32>
  %offs = "tile.add"(%b, %iota) : (tensor<256xi32>, tensor<256xi32>) -> tensor<256xi32>
  %rows = "tile.splat"(%row) : (i32) -> tensor<256xi32>
  %yes = "tile.constant"() {value = true} : () -> i1
  %mask = "tile.splat"(%yes) : (i1) -> tensor<256xi1>
  %zero = "tile.constant"() {value = 0.0 : f32} : () -> f32
  %pad = "tile.splat"(%zero) : (f32) -> tensor<256xf32>
  %g = "tile.gather"(%a, %rows, %offs, %mask, %pad) {check_bounds = true} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, tensor<256xi32>, tensor<256xi32>, tensor<256xi1>, tensor<256xf32>) -> tensor<256xf32>
  "tile.scatter"(%a, %rows, %offs, %g, %mask) {check_bounds = true} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, tensor<256xi32>, tensor<256xi32>, tensor<256xf32>, tensor<256xi1>) -> ()
  return
}

// -----

// A constant start that is a multiple of the run, and an arange alone: tile indices 3 and 0;
// -inf padding keeps its mode.
// CHECK-LABEL: @constant_starts
// CHECK: [[C3:%[0-9a-z]+]] = "tile.constant"() {value = 3 : i32}
// CHECK-NEXT: "tile.load"(%arg0, [[C3]]) {order = array<i64: 0>, padding_mode = "neg_inf"}
// CHECK: [[C0:%[0-9a-z]+]] = "tile.constant"() {value = 0 : i32}
// CHECK-NEXT: "tile.load"(%arg0, [[C0]]) {order = array<i64: 0>, padding_mode = "neg_inf"}
func.func @constant_starts(%a: !tile.array<f16, array<i64: 1>, 16 : i64>) -> (tensor<64xf16>, tensor<64xf16>) {
  %s = "tile.constant"() {value = 192 : i32} : () -> i32
  %iota = "tile.arange"() : () -> tensor<64xi32>
  %b = "tile.splat"(%s) : (i32) -> tensor<64xi32>
  %offs = "tile.add"(%iota, %b) : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>
  %yes = "tile.constant"() {value = true} : () -> i1
  %mask = "tile.splat"(%yes) : (i1) -> tensor<64xi1>
  %inf = "tile.constant"() {value = 0xFC00 : f16} : () -> f16
  %pad = "tile.splat"(%inf) : (f16) -> tensor<64xf16>
  %g = "tile.gather"(%a, %offs, %mask, %pad) {check_bounds = true} : (!tile.array<f16, array<i64: 1>, 16 : i64>, tensor<64xi32>, tensor<64xi1>, tensor<64xf16>) -> tensor<64xf16>
  %h = "tile.gather"(%a, %iota, %mask, %pad) {check_bounds = true} : (!tile.array<f16, array<i64: 1>, 16 : i64>, tensor<64xi32>, tensor<64xi1>, tensor<64xf16>) -> tensor<64xf16>
  return %g, %h : tensor<64xf16>, tensor<64xf16>
}

// -----

// Left alone, and no constant made for them: a start not known to be a multiple of the run, a
// real mask, a stride of 2, unchecked bounds, a padding no mode names.
// CHECK-LABEL: @kept
// CHECK-NOT: value = 0 : i32
// CHECK-COUNT-5: "tile.gather"
func.func @kept(%a: !tile.array<f32, array<i64: 1>, 16 : i64>, %s: i32, %m: tensor<64xi1>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %iota = "tile.arange"() : () -> tensor<64xi32>
  %b = "tile.splat"(%s) : (i32) -> tensor<64xi32>
  %offs = "tile.add"(%b, %iota) : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>
  %two = "tile.constant"() {value = 2 : i32} : () -> i32
  %twos = "tile.splat"(%two) : (i32) -> tensor<64xi32>
  %even = "tile.mul"(%iota, %twos) : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>
  %yes = "tile.constant"() {value = true} : () -> i1
  %mask = "tile.splat"(%yes) : (i1) -> tensor<64xi1>
  %zero = "tile.constant"() {value = 0.0 : f32} : () -> f32
  %pad = "tile.splat"(%zero) : (f32) -> tensor<64xf32>
  %one = "tile.constant"() {value = 1.0 : f32} : () -> f32
  %pad1 = "tile.splat"(%one) : (f32) -> tensor<64xf32>
  %g1 = "tile.gather"(%a, %offs, %mask, %pad) {check_bounds = true} : (!tile.array<f32, array<i64: 1>, 16 : i64>, tensor<64xi32>, tensor<64xi1>, tensor<64xf32>) -> tensor<64xf32>
  %g2 = "tile.gather"(%a, %iota, %m, %pad) {check_bounds = true} : (!tile.array<f32, array<i64: 1>, 16 : i64>, tensor<64xi32>, tensor<64xi1>, tensor<64xf32>) -> tensor<64xf32>
  %g3 = "tile.gather"(%a, %even, %mask, %pad) {check_bounds = true} : (!tile.array<f32, array<i64: 1>, 16 : i64>, tensor<64xi32>, tensor<64xi1>, tensor<64xf32>) -> tensor<64xf32>
  %g4 = "tile.gather"(%a, %iota, %mask, %pad) {check_bounds = false} : (!tile.array<f32, array<i64: 1>, 16 : i64>, tensor<64xi32>, tensor<64xi1>, tensor<64xf32>) -> tensor<64xf32>
  %g5 = "tile.gather"(%a, %iota, %mask, %pad1) {check_bounds = true} : (!tile.array<f32, array<i64: 1>, 16 : i64>, tensor<64xi32>, tensor<64xi1>, tensor<64xf32>) -> tensor<64xf32>
  return %g1, %g2, %g3, %g4, %g5 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}
