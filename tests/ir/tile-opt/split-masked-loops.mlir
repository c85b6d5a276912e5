// RUN: tilelang-opt %s --split-input-file -p tile-split-masked-loops | filecheck %s

// A loop masking the elements past %n (cols = j * 4 + arange(4) < n): the iterations before
// the first partial block, j < -floor((3 - n) / 4), run without the select; the rest as written.
// CHECK-LABEL: @keys_past_the_end
// CHECK: %[[Q:.*]] = "tile.floordiv"
// CHECK: %[[U:.*]] = "tile.sub"(%{{.*}}, %[[Q]])
// CHECK: %[[M:.*]] = "tile.minimum"(%arg1, %[[U]])
// CHECK: %[[S:.*]] = "tile.maximum"(%{{.*}}, %[[M]])
// CHECK: %[[A:.*]] = scf.for %{{.*}} = %{{.*}} to %[[S]]
// CHECK-NOT: "tile.select"
// CHECK: scf.yield
// CHECK: %[[B:.*]] = scf.for %{{.*}} = %[[S]] to %arg1 step %{{.*}} iter_args(%{{.*}} = %[[A]])
// CHECK: "tile.select"
// CHECK: return %[[B]]
func.func @keys_past_the_end(%n: i32, %ub: i32, %x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = "tile.constant"() {value = 0 : i32} : () -> i32
  %c1 = "tile.constant"() {value = 1 : i32} : () -> i32
  %c4 = "tile.constant"() {value = 4 : i32} : () -> i32
  %zero = "tile.constant"() {value = 0.0 : f32} : () -> f32
  %z = "tile.splat"(%zero) : (f32) -> tensor<4xf32>
  %r = scf.for %j = %c0 to %ub step %c1 iter_args(%acc = %z) -> (tensor<4xf32>) : i32 {
    %base = "tile.mul"(%j, %c4) : (i32, i32) -> i32
    %b = "tile.splat"(%base) : (i32) -> tensor<4xi32>
    %ar = "tile.arange"() : () -> tensor<4xi32>
    %cols = "tile.add"(%b, %ar) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %ns = "tile.splat"(%n) : (i32) -> tensor<4xi32>
    %keep = "tile.cmp"(%cols, %ns) {predicate = "lt"} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %m = "tile.select"(%keep, %x, %z) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %next = "tile.add"(%acc, %m) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    scf.yield %next : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A window's start (cols >= w, the index's coefficient positive on the left of >=) gives a
// lower bound: the first iterations keep the select, the rest run without it.
// CHECK-LABEL: @window_start
// CHECK: "tile.floordiv"
// CHECK: %[[L:.*]] = "tile.add"
// CHECK: %[[X:.*]] = "tile.maximum"(%{{.*}}, %[[L]])
// CHECK: %[[S:.*]] = "tile.minimum"(%arg1, %[[X]])
// CHECK: %[[A:.*]] = scf.for %{{.*}} = %{{.*}} to %[[S]]
// CHECK: "tile.select"
// CHECK: scf.for %{{.*}} = %[[S]] to %arg1
// CHECK-NOT: "tile.select"
// CHECK: return
func.func @window_start(%w: i32, %ub: i32, %x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = "tile.constant"() {value = 0 : i32} : () -> i32
  %c1 = "tile.constant"() {value = 1 : i32} : () -> i32
  %c4 = "tile.constant"() {value = 4 : i32} : () -> i32
  %zero = "tile.constant"() {value = 0.0 : f32} : () -> f32
  %z = "tile.splat"(%zero) : (f32) -> tensor<4xf32>
  %r = scf.for %j = %c0 to %ub step %c1 iter_args(%acc = %z) -> (tensor<4xf32>) : i32 {
    %base = "tile.mul"(%j, %c4) : (i32, i32) -> i32
    %b = "tile.splat"(%base) : (i32) -> tensor<4xi32>
    %ar = "tile.arange"() : () -> tensor<4xi32>
    %cols = "tile.add"(%b, %ar) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %ws = "tile.splat"(%w) : (i32) -> tensor<4xi32>
    %keep = "tile.cmp"(%cols, %ws) {predicate = "ge"} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %m = "tile.select"(%keep, %x, %z) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %next = "tile.add"(%acc, %m) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    scf.yield %next : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A mask that is not an affine function of the index (a loaded value, an `or`, an unsigned
// or equality comparison) leaves the loop as it is.
// CHECK-LABEL: @kept
// CHECK-COUNT-1: scf.for
// CHECK-NOT: scf.for
func.func @kept(%v: tensor<4xi32>, %ub: i32, %x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = "tile.constant"() {value = 0 : i32} : () -> i32
  %c1 = "tile.constant"() {value = 1 : i32} : () -> i32
  %zero = "tile.constant"() {value = 0.0 : f32} : () -> f32
  %z = "tile.splat"(%zero) : (f32) -> tensor<4xf32>
  %r = scf.for %j = %c0 to %ub step %c1 iter_args(%acc = %z) -> (tensor<4xf32>) : i32 {
    %js = "tile.splat"(%j) : (i32) -> tensor<4xi32>
    %a = "tile.cmp"(%js, %v) {predicate = "eq"} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %m = "tile.select"(%a, %x, %z) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %next = "tile.add"(%acc, %m) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    scf.yield %next : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
