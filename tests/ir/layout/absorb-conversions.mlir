// RUN: tilelang-opt %s --split-input-file -p tile-absorb-conversions | filecheck %s

// A float32 row loaded and converted to a layout of two adjacent 16-byte vectors a thread (the
// layout of a bfloat16 product it is added to) is loaded in that layout; the sum, converted back
// for its store, is stored as it is.
// CHECK-LABEL: @accumulate_row
// CHECK-NOT: "tile.convert_layout"
// CHECK: [[L:%[0-9a-z]+]] = "tile.load"(%arg0, %arg2, %arg3) {{.*}} -> tensor<1x1024xf32, #tile.layout<"shape=[1,1024] register=[[0,1],[0,2],[0,4]] lane=[[0,8],[0,16],[0,32],[0,64],[0,128]] warp=[[0,256],[0,512]]">>
// CHECK: [[S:%[0-9a-z]+]] = "tile.add"(%arg1, [[L]])
// CHECK: "tile.store"(%arg0, %arg2, %arg3, [[S]])
func.func @accumulate_row(%a: !tile.array<f32, array<i64: -1, 1>, 16 : i64>,
    %p: tensor<1x1024xf32, #tile.layout<"shape=[1,1024] register=[[0,1],[0,2],[0,4]] lane=[[0,8],[0,16],[0,32],[0,64],[0,128]] warp=[[0,256],[0,512]]">>,
    %i: i32, %j: i32) attributes {tile.num_warps = 4 : i32} {
  %x = "tile.load"(%a, %i, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<1x1024xf32, #tile.layout<"shape=[1,1024] register=[[0,1],[0,2],[0,512]] lane=[[0,4],[0,8],[0,16],[0,32],[0,64]] warp=[[0,128],[0,256]]">>
  %c = "tile.convert_layout"(%x) : (tensor<1x1024xf32, #tile.layout<"shape=[1,1024] register=[[0,1],[0,2],[0,512]] lane=[[0,4],[0,8],[0,16],[0,32],[0,64]] warp=[[0,128],[0,256]]">>) -> tensor<1x1024xf32, #tile.layout<"shape=[1,1024] register=[[0,1],[0,2],[0,4]] lane=[[0,8],[0,16],[0,32],[0,64],[0,128]] warp=[[0,256],[0,512]]">>
  %s = "tile.add"(%p, %c) : (tensor<1x1024xf32, #tile.layout<"shape=[1,1024] register=[[0,1],[0,2],[0,4]] lane=[[0,8],[0,16],[0,32],[0,64],[0,128]] warp=[[0,256],[0,512]]">>, tensor<1x1024xf32, #tile.layout<"shape=[1,1024] register=[[0,1],[0,2],[0,4]] lane=[[0,8],[0,16],[0,32],[0,64],[0,128]] warp=[[0,256],[0,512]]">>) -> tensor<1x1024xf32, #tile.layout<"shape=[1,1024] register=[[0,1],[0,2],[0,4]] lane=[[0,8],[0,16],[0,32],[0,64],[0,128]] warp=[[0,256],[0,512]]">>
  %b = "tile.convert_layout"(%s) : (tensor<1x1024xf32, #tile.layout<"shape=[1,1024] register=[[0,1],[0,2],[0,4]] lane=[[0,8],[0,16],[0,32],[0,64],[0,128]] warp=[[0,256],[0,512]]">>) -> tensor<1x1024xf32, #tile.layout<"shape=[1,1024] register=[[0,1],[0,2],[0,512]] lane=[[0,4],[0,8],[0,16],[0,32],[0,64]] warp=[[0,128],[0,256]]">>
  "tile.store"(%a, %i, %j, %b) {order = array<i64: 0, 1>} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<1x1024xf32, #tile.layout<"shape=[1,1024] register=[[0,1],[0,2],[0,512]] lane=[[0,4],[0,8],[0,16],[0,32],[0,64]] warp=[[0,128],[0,256]]">>) -> ()
  return
}

// -----

// A conversion to a layout that splits the vector (consecutive elements in consecutive lanes)
// or runs lanes across rows stays.
// CHECK-LABEL: @kept
// CHECK-COUNT-2: "tile.convert_layout"
func.func @kept(%a: !tile.array<f32, array<i64: -1, 1>, 16 : i64>, %i: i32, %j: i32) -> (tensor<1x1024xf32, #tile.layout<"shape=[1,1024] register=[[0,32],[0,64],[0,128]] lane=[[0,1],[0,2],[0,4],[0,8],[0,16]] warp=[[0,256],[0,512]]">>, tensor<32x32xf32, #tile.layout<"shape=[32,32] register=[[0,1],[0,2],[0,4],[0,8],[0,16]] lane=[[1,0],[2,0],[4,0],[8,0],[16,0]] warp=[[0,0],[0,0]]">>) attributes {tile.num_warps = 4 : i32} {
  %x = "tile.load"(%a, %i, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<1x1024xf32, #tile.layout<"shape=[1,1024] register=[[0,1],[0,2],[0,512]] lane=[[0,4],[0,8],[0,16],[0,32],[0,64]] warp=[[0,128],[0,256]]">>
  %c = "tile.convert_layout"(%x) : (tensor<1x1024xf32, #tile.layout<"shape=[1,1024] register=[[0,1],[0,2],[0,512]] lane=[[0,4],[0,8],[0,16],[0,32],[0,64]] warp=[[0,128],[0,256]]">>) -> tensor<1x1024xf32, #tile.layout<"shape=[1,1024] register=[[0,32],[0,64],[0,128]] lane=[[0,1],[0,2],[0,4],[0,8],[0,16]] warp=[[0,256],[0,512]]">>
  %y = "tile.load"(%a, %i, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<32x32xf32, #tile.layout<"shape=[32,32] register=[[0,1],[0,2],[4,0],[8,0],[16,0]] lane=[[0,4],[0,8],[0,16],[1,0],[2,0]] warp=[[0,0],[0,0]]">>
  %d = "tile.convert_layout"(%y) : (tensor<32x32xf32, #tile.layout<"shape=[32,32] register=[[0,1],[0,2],[4,0],[8,0],[16,0]] lane=[[0,4],[0,8],[0,16],[1,0],[2,0]] warp=[[0,0],[0,0]]">>) -> tensor<32x32xf32, #tile.layout<"shape=[32,32] register=[[0,1],[0,2],[0,4],[0,8],[0,16]] lane=[[1,0],[2,0],[4,0],[8,0],[16,0]] warp=[[0,0],[0,0]]">>
  return %c, %d : tensor<1x1024xf32, #tile.layout<"shape=[1,1024] register=[[0,32],[0,64],[0,128]] lane=[[0,1],[0,2],[0,4],[0,8],[0,16]] warp=[[0,256],[0,512]]">>, tensor<32x32xf32, #tile.layout<"shape=[32,32] register=[[0,1],[0,2],[0,4],[0,8],[0,16]] lane=[[1,0],[2,0],[4,0],[8,0],[16,0]] warp=[[0,0],[0,0]]">>
}
