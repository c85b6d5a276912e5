// RUN: tilelang-opt %s --split-input-file -p tile-assign-layouts | filecheck %s

// A permute is free: its operand is brought to the permuted layout of the store's (one
// conversion, on the operand), and the permute result has exactly the store's layout.
// CHECK-LABEL: @permute
// CHECK: %[[T:.*]] = "tile.load"{{.*}} -> tensor<16x32xf32, #tile.layout<"shape=[16,32] register=[[0,1],[0,2]]
// CHECK: %[[C:.*]] = "tile.convert_layout"(%[[T]]){{.*}} -> tensor<16x32xf32, #tile.layout<"shape=[16,32] register=[[1,0],[2,0]]
// CHECK: %[[P:.*]] = "tile.permute"(%[[C]]){{.*}} -> tensor<32x16xf32, #tile.layout<"shape=[32,16] register=[[0,1],[0,2]]
// CHECK-NOT: "tile.convert_layout"
// CHECK: "tile.store"(%arg1, %{{.*}}, %{{.*}}, %[[P]])
func.func @permute(%x: !tile.array<f32, array<i64: -1, 1>, 16 : i64>, %y: !tile.array<f32, array<i64: -1, 1>, 16 : i64>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %t = "tile.load"(%x, %i, %i) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<16x32xf32>
  %p = "tile.permute"(%t) {axes = array<i64: 1, 0>} : (tensor<16x32xf32>) -> tensor<32x16xf32>
  "tile.store"(%y, %i, %i, %p) {order = array<i64: 0, 1>} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<32x16xf32>) -> ()
  return
}

// -----

// A cat of two tiles in one layout adds a register bit along the axis at the top: free.
// CHECK-LABEL: @cat
// CHECK: "tile.load"{{.*}} -> tensor<32x64xf32, #tile.layout<"shape=[32,64] register=[[0,1],[0,2],[8,0],[16,0]] lane=[[L:[^"]*]]">>
// CHECK-NOT: "tile.convert_layout"
// CHECK: "tile.cat"{{.*}} -> tensor<64x64xf32, #tile.layout<"shape=[64,64] register=[[0,1],[0,2],[8,0],[16,0],[32,0]] lane=[[L]]">>
// CHECK-NOT: "tile.convert_layout"
func.func @cat(%x: !tile.array<f32, array<i64: -1, 1>, 16 : i64>, %y: !tile.array<f32, array<i64: -1, 1>, 16 : i64>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %a = "tile.load"(%x, %i, %i) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<32x64xf32>
  %b = "tile.load"(%x, %i, %i) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<32x64xf32>
  %c = "tile.cat"(%a, %b) {axis = 0 : i64} : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<64x64xf32>
  "tile.store"(%y, %i, %i, %c) {order = array<i64: 0, 1>} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<64x64xf32>) -> ()
  return
}

// -----

// Rows 8, 16 and 32 of a loaded (64, 64) tile are register bits: extracting and inserting
// blocks of 8 rows selects registers, with no conversion.
// CHECK-LABEL: @rows
// CHECK: "tile.load"{{.*}}register=[[0,1],[0,2],[8,0],[16,0],[32,0]] lane=[[L:[^"]*]]">>
// CHECK-NOT: "tile.convert_layout"
// CHECK: "tile.extract"{{.*}} -> tensor<8x64xf32, #tile.layout<"shape=[8,64] register=[[0,1],[0,2]] lane=[[L]]">>
// CHECK-NOT: "tile.convert_layout"
// CHECK: "tile.insert"{{.*}} -> tensor<64x64xf32, #tile.layout<"shape=[64,64] register=[[0,1],[0,2],[8,0],[16,0],[32,0]]
func.func @rows(%x: !tile.array<f32, array<i64: -1, 1>, 16 : i64>, %y: !tile.array<f32, array<i64: -1, 1>, 16 : i64>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %z = "tile.constant"() {value = 0 : i32} : () -> i32
  %t = "tile.load"(%x, %i, %i) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x64xf32>
  %e = "tile.extract"(%t, %i, %z) : (tensor<64x64xf32>, i32, i32) -> tensor<8x64xf32>
  %d = "tile.add"(%e, %e) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  %n = "tile.insert"(%t, %d, %i, %z) : (tensor<64x64xf32>, tensor<8x64xf32>, i32, i32) -> tensor<64x64xf32>
  "tile.store"(%y, %i, %i, %n) {order = array<i64: 0, 1>} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<64x64xf32>) -> ()
  return
}

// -----

// Column halves are split across lanes: the tile first moves to a layout that holds column
// bit 32 in a register, then the extract selects registers.
// CHECK-LABEL: @columns
// CHECK: %[[T:.*]] = "tile.load"
// CHECK: %[[C:.*]] = "tile.convert_layout"(%[[T]]){{.*}}register=[{{.*}}[0,32]]
// CHECK: "tile.extract"(%[[C]], {{.*}} -> tensor<64x32xf32
func.func @columns(%x: !tile.array<f32, array<i64: -1, 1>, 16 : i64>, %y: !tile.array<f32, array<i64: -1, 1>, 16 : i64>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %z = "tile.constant"() {value = 0 : i32} : () -> i32
  %t = "tile.load"(%x, %i, %i) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x64xf32>
  %e = "tile.extract"(%t, %z, %i) : (tensor<64x64xf32>, i32, i32) -> tensor<64x32xf32>
  "tile.store"(%y, %i, %i, %e) {order = array<i64: 0, 1>} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<64x32xf32>) -> ()
  return
}
