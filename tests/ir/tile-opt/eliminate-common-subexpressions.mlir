// RUN: tilelang-opt %s --split-input-file -p tile-eliminate-common-subexpressions | filecheck %s

// CHECK-LABEL: @duplicates
// CHECK-COUNT-1: "tile.bid"
// CHECK-NOT: "tile.bid"
// CHECK: "tile.add"(%0, %0)
func.func @duplicates() -> i32 {
  %a = "tile.bid"() {axis = 0 : i64} : () -> i32
  %b = "tile.bid"() {axis = 0 : i64} : () -> i32
  %c = "tile.add"(%a, %b) : (i32, i32) -> i32
  return %c : i32
}

// -----

// Different attributes are different values.
// CHECK-LABEL: @different_axes
// CHECK-COUNT-2: "tile.bid"
func.func @different_axes() -> i32 {
  %a = "tile.bid"() {axis = 0 : i64} : () -> i32
  %b = "tile.bid"() {axis = 1 : i64} : () -> i32
  %c = "tile.add"(%a, %b) : (i32, i32) -> i32
  return %c : i32
}

// -----

// A value computed before an scf.if is reused inside it, but not the other way round; two
// identical loads with nothing between them are one.
// CHECK-LABEL: @nested
// CHECK: "tile.dim"
// CHECK: scf.if
// CHECK-NOT: "tile.dim"
// CHECK: scf.yield
// CHECK: %[[T:.*]] = "tile.load"
// CHECK-NOT: "tile.load"
// CHECK: "tile.store"(%arg0, %{{.*}}, %[[T]])
// CHECK: "tile.store"(%arg0, %{{.*}}, %[[T]])
func.func @nested(%x: !tile.array<f32, array<i64: 1>, 16 : i64>, %p: i1) -> i32 {
  %d = "tile.dim"(%x) {dim = 0 : i64} : (!tile.array<f32, array<i64: 1>, 16 : i64>) -> i32
  %r = scf.if %p -> (i32) {
    %e = "tile.dim"(%x) {dim = 0 : i64} : (!tile.array<f32, array<i64: 1>, 16 : i64>) -> i32
    scf.yield %e : i32
  } else {
    scf.yield %d : i32
  }
  %t0 = "tile.load"(%x, %r) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<4xf32>
  %t1 = "tile.load"(%x, %r) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<4xf32>
  "tile.store"(%x, %r, %t0) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<4xf32>) -> ()
  "tile.store"(%x, %r, %t1) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<4xf32>) -> ()
  return %r : i32
}

// -----

// A write between two loads (a store, or a loop or branch holding one) keeps both; a load in
// a loop is not merged with one before it, even in a loop that writes nothing.
// CHECK-LABEL: @loads_and_writes
// CHECK: "tile.load"
// CHECK: "tile.store"
// CHECK: "tile.load"
// CHECK: scf.if
// CHECK: "tile.store"
// CHECK: "tile.load"
// CHECK: scf.for
// CHECK: "tile.load"
func.func @loads_and_writes(%x: !tile.array<f32, array<i64: 1>, 16 : i64>, %y: !tile.array<f32, array<i64: 1>, 16 : i64>, %i: i32, %p: i1, %n: i32) {
  %t0 = "tile.load"(%x, %i) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<4xf32>
  "tile.store"(%y, %i, %t0) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<4xf32>) -> ()
  %t1 = "tile.load"(%x, %i) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<4xf32>
  scf.if %p {
    "tile.store"(%y, %i, %t1) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<4xf32>) -> ()
  }
  %t2 = "tile.load"(%x, %i) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<4xf32>
  %c0 = "tile.constant"() {value = 0 : i32} : () -> i32
  %c1 = "tile.constant"() {value = 1 : i32} : () -> i32
  %s = scf.for %j = %c0 to %n step %c1 iter_args(%a = %t2) -> (tensor<4xf32>) : i32 {
    %t3 = "tile.load"(%x, %i) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<4xf32>
    %b = "tile.add"(%a, %t3) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    scf.yield %b : tensor<4xf32>
  }
  "tile.store"(%y, %i, %s) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<4xf32>) -> ()
  return
}

// -----

// Loads that feed products (here keys read once transposed for the scores and once as values)
// stay apart: each is the staged path's to copy.
// CHECK-LABEL: @product_operands
// CHECK-COUNT-2: "tile.load"
func.func @product_operands(%k: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %q: tensor<64x64xbf16>, %p: tensor<64x64xbf16>, %j: i32) -> tensor<64x64xf32> {
  %c0 = "tile.constant"() {value = 0 : i32} : () -> i32
  %zero = "tile.constant"() {value = 0.0 : f32} : () -> f32
  %z = "tile.splat"(%zero) : (f32) -> tensor<64x64xf32>
  %keys = "tile.load"(%k, %j, %c0) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x64xbf16>
  %kt = "tile.permute"(%keys) {axes = array<i64: 1, 0>} : (tensor<64x64xbf16>) -> tensor<64x64xbf16>
  %s = "tile.mma"(%q, %kt, %z) : (tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %vals = "tile.load"(%k, %j, %c0) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x64xbf16>
  %o = "tile.mma"(%p, %vals, %s) : (tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %o : tensor<64x64xf32>
}

// -----

// A loop between two loads keeps both, even one that writes nothing: the first tile would
// otherwise stay live across the loop.
// CHECK-LABEL: @loop_between
// CHECK: "tile.load"
// CHECK: scf.for
// CHECK: "tile.load"
func.func @loop_between(%x: !tile.array<f32, array<i64: 1>, 16 : i64>, %i: i32, %n: i32) -> tensor<4xf32> {
  %t0 = "tile.load"(%x, %i) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<4xf32>
  %c0 = "tile.constant"() {value = 0 : i32} : () -> i32
  %c1 = "tile.constant"() {value = 1 : i32} : () -> i32
  %s = scf.for %j = %c0 to %n step %c1 iter_args(%a = %t0) -> (tensor<4xf32>) : i32 {
    %b = "tile.add"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    scf.yield %b : tensor<4xf32>
  }
  %t1 = "tile.load"(%x, %i) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<4xf32>
  %r = "tile.add"(%s, %t1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
