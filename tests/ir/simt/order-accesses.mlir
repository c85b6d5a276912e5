// RUN: tilelang-opt %s --split-input-file -p tile-order-accesses | filecheck %s
// RUN: tilelang-opt %s --split-input-file -p 'tile-distribute-to-threads{chip=sm_90 features=+ptx80}' | filecheck %s --check-prefix=LOWER

// An array stored to and then read: every access after the first in program order needs a
// barrier (another thread stored the element it reads), the first does not. An array that is
// only read is left alone. The lowering reads the attribute alone: here, where the pass did not
// run, only the load that the input marks by hand gets a barrier.
// CHECK-LABEL: func.func @read_after_write
// CHECK: "tile.load"(%arg1, {{.*}}) {order = array<i64: 0>, padding_mode = "zero"}
// CHECK: "tile.store"(%arg0, {{.*}}) {order = array<i64: 0>}
// CHECK: "tile.load"(%arg0, {{.*}}) {order = array<i64: 0>, padding_mode = "zero", tile.barrier_before}
// CHECK: "tile.store"(%arg0, {{.*}}) {order = array<i64: 0>, tile.barrier_before}
// LOWER-LABEL: gpu.func @read_after_write
// LOWER-NOT: gpu.barrier
// LOWER: llvm.store
// LOWER: gpu.barrier
// LOWER: llvm.load
// LOWER-NOT: gpu.barrier
// LOWER: gpu.return
#V = #tile.layout<"shape=[128] register=[] lane=[[1],[2],[4],[8],[16]] warp=[[32],[64]]">
func.func @read_after_write(%x: !tile.array<i32, array<i64: 1>, 16 : i64>, %y: !tile.array<i32, array<i64: 1>, 16 : i64>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = "tile.constant"() {value = 0 : i32} : () -> i32
  %s = "tile.load"(%y, %i) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<i32, array<i64: 1>, 16 : i64>, i32) -> tensor<128xi32, #V>
  "tile.store"(%x, %i, %s) {order = array<i64: 0>} : (!tile.array<i32, array<i64: 1>, 16 : i64>, i32, tensor<128xi32, #V>) -> ()
  %t = "tile.load"(%x, %i) {order = array<i64: 0>, padding_mode = "zero", tile.barrier_before} : (!tile.array<i32, array<i64: 1>, 16 : i64>, i32) -> tensor<128xi32, #V>
  "tile.store"(%x, %i, %t) {order = array<i64: 0>} : (!tile.array<i32, array<i64: 1>, 16 : i64>, i32, tensor<128xi32, #V>) -> ()
  return
}

// -----

// In a loop, the first access is preceded by the last one of the iteration before: it needs a
// barrier too. Accesses through a slice of the array are accesses to the array.
// CHECK-LABEL: func.func @in_a_loop
// CHECK: scf.for
// CHECK: "tile.load"(%arg0, {{.*}}) {{{.*}}tile.barrier_before}
// CHECK: "tile.slice"
// CHECK: "tile.store"({{.*}}) {{{.*}}tile.barrier_before}
// LOWER-LABEL: gpu.func @in_a_loop
// LOWER-NOT: gpu.barrier
// LOWER: gpu.return
#V = #tile.layout<"shape=[128] register=[] lane=[[1],[2],[4],[8],[16]] warp=[[32],[64]]">
func.func @in_a_loop(%x: !tile.array<i32, array<i64: 1>, 16 : i64>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %one = "tile.constant"() {value = 1 : i32} : () -> i32
  scf.for %i = %lb to %n step %one : i32 {
    %t = "tile.load"(%x, %i) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<i32, array<i64: 1>, 16 : i64>, i32) -> tensor<128xi32, #V>
    %v = "tile.slice"(%x, %one, %n) {axis = 0 : i64} : (!tile.array<i32, array<i64: 1>, 16 : i64>, i32, i32) -> !tile.array<i32, array<i64: 1>, 16 : i64>
    "tile.store"(%v, %i, %t) {order = array<i64: 0>} : (!tile.array<i32, array<i64: 1>, 16 : i64>, i32, tensor<128xi32, #V>) -> ()
  }
  return
}
