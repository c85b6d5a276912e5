// RUN: tilelang-opt %s --split-input-file -p canonicalize,tile-restore-branches | filecheck %s

// Canonicalize turns an scf.if that picks one of two tiles defined before it into arith.select;
// the pass makes it an scf.if again (no arith op is left in the tile stages).
// CHECK-LABEL: @pick_tile
// CHECK-NOT: arith.
// CHECK: [[R:%.+]] = scf.if %arg0 -> (tensor<4xf32>) {
// CHECK-NEXT: scf.yield %arg1 : tensor<4xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %arg2 : tensor<4xf32>
// CHECK: return [[R]]
func.func @pick_tile(%c: i1, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = scf.if %c -> tensor<4xf32> {
    scf.yield %a : tensor<4xf32>
  } else {
    scf.yield %b : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// The same for arrays (an array variable that differs between the branches).
// CHECK-LABEL: @pick_array
// CHECK-NOT: arith.
// CHECK: scf.if %arg0 -> (!tile.array<f32, array<i64: 1>, 16 : i64>)
func.func @pick_array(%c: i1, %x: !tile.array<f32, array<i64: 1>, 16 : i64>,
                      %y: !tile.array<f32, array<i64: 1>, 16 : i64>) {
  %a = scf.if %c -> !tile.array<f32, array<i64: 1>, 16 : i64> {
    scf.yield %x : !tile.array<f32, array<i64: 1>, 16 : i64>
  } else {
    scf.yield %y : !tile.array<f32, array<i64: 1>, 16 : i64>
  }
  %i = "tile.constant"() {value = 0 : i32} : () -> i32
  %t = "tile.load"(%a, %i) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<4xf32>
  "tile.store"(%x, %i, %t) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<4xf32>) -> ()
  return
}

// -----

// Inside the body of an scf.while the condition is known true: canonicalize uses an
// arith.constant for it there (and stops forwarding it), which becomes a tile.constant.
// CHECK-LABEL: @while_condition
// CHECK-NOT: arith.
// CHECK: [[TRUE:%.+]] = "tile.constant"() {value = true} : () -> i1
// CHECK: scf.while
// CHECK: } do {
// CHECK: "tile.and"({{%.+}}, [[TRUE]])
func.func @while_condition(%flag: i1, %n: i32) -> i32 {
  %r:2 = scf.while (%f = %flag, %k = %n) : (i1, i32) -> (i1, i32) {
    scf.condition(%f) %f, %k : i1, i32
  } do {
  ^bb0(%f2: i1, %k2: i32):
    %one = "tile.constant"() {value = 1 : i32} : () -> i32
    %next = "tile.add"(%k2, %one) : (i32, i32) -> i32
    %g = "tile.cmp"(%next, %n) {predicate = "lt"} : (i32, i32) -> i1
    %h = "tile.and"(%g, %f2) : (i1, i1) -> i1
    scf.yield %h, %next : i1, i32
  }
  return %r#1 : i32
}
