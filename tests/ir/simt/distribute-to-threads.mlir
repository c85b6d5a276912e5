// RUN: tilelang-opt %s --split-input-file -p 'tile-order-accesses,tile-distribute-to-threads{chip=sm_90 features=+ptx80}' | filecheck %s

// Arrays become pointer + extents + strides; each thread loads and stores its 4 contiguous
// floats with one 16-byte access when the whole tile is inside the array (a uniform test),
// element by element otherwise, each a predicated load (inline PTX; the register starts as the
// padding value) and a predicated store.
// CHECK-LABEL: gpu.module @tile_kernels [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">]
// CHECK: gpu.func @scale(%{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64) kernel attributes {nvvm.reqntid = array<i32: 128, 1, 1>
// CHECK: gpu.thread_id  x
// CHECK: scf.if
// CHECK: llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: } else {
// CHECK: llvm.inline_asm has_side_effects "@$2 ld.global.b32 $0, [$1];", "=r,l,b,0" {{.*}} : (!llvm.ptr<1>, i1, i32) -> i32
// CHECK: arith.mulf
// CHECK: llvm.store {{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: } else {
// CHECK: llvm.inline_asm has_side_effects "@$2 st.global.b32 [$0], $1;", "l,r,b" {{.*}} : (!llvm.ptr<1>, i32, i1) -> ()
// CHECK-NOT: "tile.
// CHECK: gpu.return
#L = #tile.layout<"shape=[512] register=[[1],[2]] lane=[[4],[8],[16],[32],[64]] warp=[[128],[256]]">
func.func @scale(%x: !tile.array<f32, array<i64: 1>, 16 : i64>, %y: !tile.array<f32, array<i64: 1>, 16 : i64>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %t = "tile.load"(%x, %i) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<512xf32, #L>
  %c = "tile.constant"() {value = 2.0 : f32} : () -> f32
  %s = "tile.splat"(%c) : (f32) -> tensor<512xf32, #L>
  %m = "tile.mul"(%t, %s) : (tensor<512xf32, #L>, tensor<512xf32, #L>) -> tensor<512xf32, #L>
  "tile.store"(%y, %i, %m) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<512xf32, #L>) -> ()
  return
}

// -----

// A conversion between layouts that spread elements differently over lanes goes through one
// shared buffer (dynamic shared memory; the kernel records its size: rows of 32 + 1 floats, the last unpadded),
// between barriers.
// CHECK: llvm.mlir.global external @__tile_shared() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: gpu.func @transpose
// CHECK-SAME: tile.shared_bytes = 4220 : i64
// CHECK: gpu.barrier
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> f32
#A = #tile.layout<"shape=[32,32] register=[[1,0],[2,0],[0,16]] lane=[[4,0],[8,0],[16,0],[0,1],[0,2]] warp=[[0,4],[0,8]]">
#B = #tile.layout<"shape=[32,32] register=[[0,1],[0,2],[16,0]] lane=[[0,4],[0,8],[0,16],[1,0],[2,0]] warp=[[4,0],[8,0]]">
func.func @transpose(%x: !tile.array<f32, array<i64: -1, 1>, 16 : i64>, %y: !tile.array<f32, array<i64: -1, 1>, 16 : i64>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %t = "tile.load"(%x, %i, %i) {order = array<i64: 1, 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<32x32xf32, #A>
  %c = "tile.convert_layout"(%t) : (tensor<32x32xf32, #A>) -> tensor<32x32xf32, #B>
  "tile.store"(%y, %i, %i, %c) {order = array<i64: 0, 1>} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<32x32xf32, #B>) -> ()
  return
}

// -----

// Conflicting accesses to one array are ordered by a barrier (store, then a load of it).
// CHECK-LABEL: gpu.func @read_after_write
// CHECK: llvm.store
// CHECK: gpu.barrier
// CHECK: llvm.load
#V = #tile.layout<"shape=[128] register=[] lane=[[1],[2],[4],[8],[16]] warp=[[32],[64]]">
func.func @read_after_write(%x: !tile.array<i32, array<i64: 1>, 16 : i64>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = "tile.constant"() {value = 0 : i32} : () -> i32
  %c = "tile.constant"() {value = 7 : i32} : () -> i32
  %s = "tile.splat"(%c) : (i32) -> tensor<128xi32, #V>
  "tile.store"(%x, %i, %s) {order = array<i64: 0>} : (!tile.array<i32, array<i64: 1>, 16 : i64>, i32, tensor<128xi32, #V>) -> ()
  %t = "tile.load"(%x, %i) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<i32, array<i64: 1>, 16 : i64>, i32) -> tensor<128xi32, #V>
  "tile.store"(%x, %i, %t) {order = array<i64: 0>} : (!tile.array<i32, array<i64: 1>, 16 : i64>, i32, tensor<128xi32, #V>) -> ()
  return
}
