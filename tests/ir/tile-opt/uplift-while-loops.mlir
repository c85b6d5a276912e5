// RUN: tilelang-opt %s --split-input-file -p tile-uplift-while-loops | filecheck %s

// `k = 0; while k < cdiv(K, 64): acc = ...; k += 1`: the bound's ops leave the condition
// region, and the loop is the scf.for from 0 to the bound by 1 carrying the accumulator.
// CHECK-LABEL: @counting
// CHECK: [[N:%[0-9a-z]+]] = "tile.dim"(%arg0)
// CHECK: [[B:%[0-9a-z]+]] = "tile.floordiv"([[N]]
// CHECK: [[S:%[0-9a-z]+]] = "tile.constant"() {value = 1 : i32}
// CHECK: [[R:%[0-9a-z]+]] = scf.for [[K:%[0-9a-z]+]] = %{{[0-9a-z]+}} to [[B]] step [[S]] iter_args([[A:%[0-9a-z]+]] = %{{[0-9a-z]+}}) -> (tensor<16xf32>)  : i32 {
// CHECK: "tile.load"(%arg0, [[K]])
// CHECK: scf.yield %{{[0-9a-z]+}} : tensor<16xf32>
// CHECK-NOT: scf.while
// CHECK: "tile.store"(%arg1, %{{[0-9a-z]+}}, [[R]])
func.func @counting(%x: !tile.array<f32, array<i64: 1>, 16 : i64>, %y: !tile.array<f32, array<i64: 1>, 16 : i64>) {
  %zero = "tile.constant"() {value = 0 : i32} : () -> i32
  %f0 = "tile.constant"() {value = 0.0 : f32} : () -> f32
  %init = "tile.splat"(%f0) : (f32) -> tensor<16xf32>
  %r:2 = scf.while (%acc = %init, %k = %zero) : (tensor<16xf32>, i32) -> (tensor<16xf32>, i32) {
    %n = "tile.dim"(%x) {dim = 0 : i64} : (!tile.array<f32, array<i64: 1>, 16 : i64>) -> i32
    %t = "tile.constant"() {value = 64 : i32} : () -> i32
    %q = "tile.floordiv"(%n, %t) : (i32, i32) -> i32
    %go = "tile.cmp"(%k, %q) {predicate = "lt"} : (i32, i32) -> i1
    scf.condition(%go) %acc, %k : tensor<16xf32>, i32
  } do {
  ^bb0(%acc: tensor<16xf32>, %k: i32):
    %v = "tile.load"(%x, %k) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<16xf32>
    %s = "tile.add"(%acc, %v) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %one = "tile.constant"() {value = 1 : i32} : () -> i32
    %k1 = "tile.add"(%k, %one) : (i32, i32) -> i32
    scf.yield %s, %k1 : tensor<16xf32>, i32
  }
  "tile.store"(%y, %zero, %r#0) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<16xf32>) -> ()
  return
}

// -----

// Left alone: the counter's final value is read after the loop; the bound changes in the
// loop (a carried value); the step is not a positive constant; the test is not `<`.
// CHECK-LABEL: @not_counting
// CHECK-COUNT-4: scf.while
// CHECK-NOT: scf.for
func.func @not_counting(%n: i32, %m: i32) -> (i32, i32, i32, i32) {
  %zero = "tile.constant"() {value = 0 : i32} : () -> i32
  %one = "tile.constant"() {value = 1 : i32} : () -> i32
  %minus = "tile.constant"() {value = -1 : i32} : () -> i32
  %a = scf.while (%k = %zero) : (i32) -> i32 {
    %go = "tile.cmp"(%k, %n) {predicate = "lt"} : (i32, i32) -> i1
    scf.condition(%go) %k : i32
  } do {
  ^bb0(%k: i32):
    %k1 = "tile.add"(%k, %one) : (i32, i32) -> i32
    scf.yield %k1 : i32
  }
  %b:2 = scf.while (%k = %zero, %bound = %n) : (i32, i32) -> (i32, i32) {
    %go = "tile.cmp"(%k, %bound) {predicate = "lt"} : (i32, i32) -> i1
    scf.condition(%go) %k, %bound : i32, i32
  } do {
  ^bb0(%k: i32, %bound: i32):
    %k1 = "tile.add"(%k, %one) : (i32, i32) -> i32
    %b1 = "tile.add"(%bound, %minus) : (i32, i32) -> i32
    scf.yield %k1, %b1 : i32, i32
  }
  %c:2 = scf.while (%k = %zero, %s = %zero) : (i32, i32) -> (i32, i32) {
    %go = "tile.cmp"(%k, %n) {predicate = "lt"} : (i32, i32) -> i1
    scf.condition(%go) %k, %s : i32, i32
  } do {
  ^bb0(%k: i32, %s: i32):
    %k1 = "tile.add"(%k, %m) : (i32, i32) -> i32
    %s1 = "tile.add"(%s, %k) : (i32, i32) -> i32
    scf.yield %k1, %s1 : i32, i32
  }
  %d:2 = scf.while (%k = %zero, %s = %zero) : (i32, i32) -> (i32, i32) {
    %go = "tile.cmp"(%k, %n) {predicate = "le"} : (i32, i32) -> i1
    scf.condition(%go) %k, %s : i32, i32
  } do {
  ^bb0(%k: i32, %s: i32):
    %k1 = "tile.add"(%k, %one) : (i32, i32) -> i32
    %s1 = "tile.add"(%s, %k) : (i32, i32) -> i32
    scf.yield %k1, %s1 : i32, i32
  }
  return %a, %b#1, %c#1, %d#1 : i32, i32, i32, i32
}

// -----

// Left alone: the bound is read from memory (a scalar gather) each time the condition runs.
// CHECK-LABEL: @gather_bound
// CHECK: scf.while
// CHECK-NOT: scf.for
func.func @gather_bound(%t: !tile.array<i32, array<i64: 1>, 16 : i64>) -> i32 {
  %zero = "tile.constant"() {value = 0 : i32} : () -> i32
  %one = "tile.constant"() {value = 1 : i32} : () -> i32
  %yes = "tile.constant"() {value = true} : () -> i1
  %a:2 = scf.while (%k = %zero, %s = %zero) : (i32, i32) -> (i32, i32) {
    %n = "tile.gather"(%t, %zero, %yes, %zero) {check_bounds = true} : (!tile.array<i32, array<i64: 1>, 16 : i64>, i32, i1, i32) -> i32
    %go = "tile.cmp"(%k, %n) {predicate = "lt"} : (i32, i32) -> i1
    scf.condition(%go) %k, %s : i32, i32
  } do {
  ^bb0(%k: i32, %s: i32):
    %k1 = "tile.add"(%k, %one) : (i32, i32) -> i32
    %s1 = "tile.add"(%s, %k) : (i32, i32) -> i32
    scf.yield %k1, %s1 : i32, i32
  }
  return %a#1 : i32
}
