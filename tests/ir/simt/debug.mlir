// RUN: tilelang-opt %s --split-input-file -p 'tile-order-accesses,tile-distribute-to-threads{chip=sm_90 features=+ptx80}' | filecheck %s

// A print gathers its tile through the shared buffer (between barriers); thread 0 reads it
// back and calls vprintf with one conversion per element (the format is a global constant),
// floats as doubles, 64-bit integers with `ll`, the arguments stored in one buffer allocated
// at the kernel's entry; a last barrier keeps the buffer until thread 0 is done.
// CHECK: llvm.mlir.global internal constant @__tile_printf_0("x=[%.2f, %.2f, %.2f, %.2f] n=%lld 100%%\0A\00")
// CHECK: llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
// CHECK-LABEL: gpu.func @show
// CHECK: %[[BUF:.*]] = llvm.alloca {{.*}} x !llvm.array<256 x i8>
// CHECK: gpu.barrier
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: arith.cmpi eq
// CHECK-NEXT: scf.if
// CHECK-COUNT-4: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK-COUNT-4: llvm.store {{.*}} : f64, !llvm.ptr
// CHECK: llvm.store {{.*}} : i64, !llvm.ptr
// CHECK: %[[FMT:.*]] = llvm.mlir.addressof @__tile_printf_0
// CHECK: llvm.call @vprintf(%[[FMT]], %[[BUF]])
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
// CHECK: @__tile_printf_0("%x %d\0A\00")
// CHECK-LABEL: gpu.func @scalars
// CHECK-NOT: gpu.barrier
// CHECK: arith.extsi {{.*}} : i8 to i32
// CHECK: arith.extui {{.*}} : i1 to i32
// CHECK: llvm.call @vprintf
func.func @scalars(%a: i8, %b: i1) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  "tile.print"(%a, %b) {format = "%x %d\0A", operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (i8, i1) -> ()
  return
}

// -----

// A failed assert: thread 0 prints where and which block, then calls __assertfail (cf.assert).
// CHECK: @__tile_printf_0("{{.*}}block (%d, %d, %d): assertion failed: must hold\0A\00")
// CHECK-LABEL: gpu.func @check
// CHECK: scf.if
// CHECK: gpu.block_id  x
// CHECK: llvm.call @vprintf
// CHECK: cf.assert %{{.*}}, "must hold"
func.func @check(%c: i1) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  "tile.assert"(%c) {message = "must hold"} : (i1) -> ()
  return
}
