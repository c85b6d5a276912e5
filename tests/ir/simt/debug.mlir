// RUN: tilelang-opt %s --split-input-file -p 'tile-distribute-to-threads{chip=sm_90 features=+ptx80}' | filecheck %s

// A print gathers its tile through the shared buffer (between barriers); thread 0 reads it
// back and calls printf with one conversion per element, floats as doubles, 64-bit integers
// with `ll`; a last barrier keeps the buffer until thread 0 is done.
// CHECK-LABEL: gpu.func @show
// CHECK: gpu.barrier
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: arith.cmpi eq
// CHECK-NEXT: scf.if
// CHECK-COUNT-4: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK: gpu.printf "x=[%.2f, %.2f, %.2f, %.2f] n=%lld 100%%\0A", {{.*}} : f64, f64, f64, f64, i64
// CHECK: gpu.barrier
// CHECK: gpu.return
#L = #tile.layout<"shape=[4] register=[[1],[2]] lane=[[0],[0],[0],[0],[0]] warp=[[0],[0]]">
func.func @show(%x: !tile.array<f32, array<i64: 1>, 16 : i64>, %n: i64) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %t = "tile.load"(%x, %i) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<4xf32, #L>
  "tile.print"(%t, %n) {format = "x=%.2f n=%d 100%%\0A", operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4xf32, #L>, i64) -> ()
  return
}

// -----

// Scalars need no gathering: small integers (and bools) are promoted to i32.
// CHECK-LABEL: gpu.func @scalars
// CHECK-NOT: gpu.barrier
// CHECK: arith.extsi {{.*}} : i8 to i32
// CHECK: arith.extui {{.*}} : i1 to i32
// CHECK: gpu.printf "%x %d\0A"
func.func @scalars(%a: i8, %b: i1) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  "tile.print"(%a, %b) {format = "%x %d\0A", operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (i8, i1) -> ()
  return
}

// -----

// A failed assert: thread 0 prints where and which block, then calls __assertfail (cf.assert).
// CHECK-LABEL: gpu.func @check
// CHECK: scf.if
// CHECK: gpu.block_id  x
// CHECK: gpu.printf "{{.*}}block (%d, %d, %d): assertion failed: must hold\0A"
// CHECK: cf.assert %{{.*}}, "must hold"
func.func @check(%c: i1) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  "tile.assert"(%c) {message = "must hold"} : (i1) -> ()
  return
}
