// RUN: tilelang-opt %s --split-input-file -p 'tile-order-accesses,tile-distribute-to-threads{chip=sm_90 features=+ptx80}' | filecheck %s

// An array chosen by a run-time `if` is carried as its pointer, extents and strides; accesses
// through it are ordered against every array argument (it may be any of them): the load of y
// after the store through the chosen array gets a barrier.
// CHECK-LABEL: gpu.func @chosen_array
// CHECK: [[A:%.+]]:3 = scf.if {{%.+}} -> (!llvm.ptr<1>, i64, i64) {
// CHECK-NEXT: scf.yield %arg0, %arg1, %arg2 : !llvm.ptr<1>, i64, i64
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %arg3, %arg4, %arg5 : !llvm.ptr<1>, i64, i64
// CHECK: llvm.getelementptr [[A]]#0
// CHECK: llvm.store
// CHECK: gpu.barrier
// CHECK: llvm.load
#L = #tile.layout<"shape=[128] register=[] lane=[[1],[2],[4],[8],[16]] warp=[[32],[64]]">
func.func @chosen_array(%x: !tile.array<f32, array<i64: 1>, 16 : i64>, %y: !tile.array<f32, array<i64: 1>, 16 : i64>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %z = "tile.constant"() {value = 0 : i32} : () -> i32
  %c = "tile.cmp"(%i, %z) {predicate = "eq"} : (i32, i32) -> i1
  %a = scf.if %c -> !tile.array<f32, array<i64: 1>, 16 : i64> {
    scf.yield %x : !tile.array<f32, array<i64: 1>, 16 : i64>
  } else {
    scf.yield %y : !tile.array<f32, array<i64: 1>, 16 : i64>
  }
  %one = "tile.constant"() {value = 1.0 : f32} : () -> f32
  %t = "tile.splat"(%one) : (f32) -> tensor<128xf32, #L>
  "tile.store"(%a, %z, %t) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<128xf32, #L>) -> ()
  %u = "tile.load"(%y, %z) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<128xf32, #L>
  "tile.store"(%x, %z, %u) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<128xf32, #L>) -> ()
  return
}

// -----

// An scf.while whose body gets fewer values than its condition block (canonicalize drops what
// the body does not use): each carried tile keeps its registers, the flag is one i1.
// CHECK-LABEL: gpu.func @loop_with_flag
// CHECK: scf.while ({{.*}}) : (f32, i1, i32) -> (f32, i32) {
// CHECK: scf.condition({{%.+}}) {{%.+}}, {{%.+}} : f32, i32
// CHECK: } do {
// CHECK: ^bb0({{%.+}}: f32, {{%.+}}: i32):
#S = #tile.layout<"shape=[128] register=[] lane=[[1],[2],[4],[8],[16]] warp=[[32],[64]]">
func.func @loop_with_flag(%x: !tile.array<f32, array<i64: 1>, 16 : i64>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %z = "tile.constant"() {value = 0 : i32} : () -> i32
  %f = "tile.constant"() {value = false} : () -> i1
  %t0 = "tile.load"(%x, %z) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<128xf32, #S>
  %r:2 = scf.while (%t = %t0, %b = %f, %k = %z) : (tensor<128xf32, #S>, i1, i32) -> (tensor<128xf32, #S>, i32) {
    %go = "tile.invert"(%b) : (i1) -> i1
    scf.condition(%go) %t, %k : tensor<128xf32, #S>, i32
  } do {
  ^bb0(%t2: tensor<128xf32, #S>, %k2: i32):
    %one = "tile.constant"() {value = 1 : i32} : () -> i32
    %k3 = "tile.add"(%k2, %one) : (i32, i32) -> i32
    %stop = "tile.cmp"(%k3, %n) {predicate = "ge"} : (i32, i32) -> i1
    %t3 = "tile.add"(%t2, %t2) : (tensor<128xf32, #S>, tensor<128xf32, #S>) -> tensor<128xf32, #S>
    scf.yield %t3, %stop, %k3 : tensor<128xf32, #S>, i1, i32
  }
  "tile.store"(%x, %z, %r#0) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<128xf32, #S>) -> ()
  return
}
