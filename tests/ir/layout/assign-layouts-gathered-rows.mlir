// RUN: tilelang-opt %s -p 'tile-assign-layouts{arch=sm_90}' | filecheck %s

// A gathered by rows into a ring's stages (passes/staged_loops.GatheredRows) takes the layout
// of the copies (layout/wgmma.copy_layout: thread t's i-th 16-byte chunk is chunk t + 256 i of
// the tile, row by row), and so do its indices: the row indices, computed before the loop, are
// converted there once to the layout that puts each of a thread's chunks' rows in its
// registers (rows 32 and 64 apart; lanes 8 and 16 and the warps pick the row), and the product
// reads A in it, with no conversion in the loop (wgmma reads A from the stage).
// CHECK-LABEL: func.func @gathered_rows
// CHECK: "tile.convert_layout"
// CHECK-SAME: -> tensor<128xi32, #tile.layout<"shape=[128] register=[[0],[0],[0],[32],[64]] lane=[[0],[0],[0],[1],[2]] warp=[[4],[8],[16]]">>
// CHECK: scf.for
// CHECK-NOT: tile.convert_layout
// CHECK: "tile.gather"
// CHECK-SAME: -> tensor<128x64xbf16, #tile.layout<"shape=[128,64] register=[[0,1],[0,2],[0,4],[32,0],[64,0]] lane=[[0,8],[0,16],[0,32],[1,0],[2,0]] warp=[[4,0],[8,0],[16,0]]">>
// CHECK-NOT: tile.convert_layout
// CHECK: "tile.mma"
// CHECK: scf.yield
func.func @gathered_rows(%a: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %b: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %c: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %ids: !tile.array<i32, array<i64: 1>, 16 : i64>, %n: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %j = "tile.bid"() {axis = 1 : i64} : () -> i32
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %rows = "tile.load"(%ids, %i) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<i32, array<i64: 1>, 16 : i64>, i32) -> tensor<128xi32>
  %zero = "tile.constant"() {value = 0.000000e+00 : f32} : () -> f32
  %acc0 = "tile.splat"(%zero) : (f32) -> tensor<128x128xf32>
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %true = "tile.constant"() {value = true} : () -> i1
  %pad = "tile.constant"() {value = 0.000000e+00 : bf16} : () -> bf16
  %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<128x128xf32>) : i32 {
    %t = "tile.constant"() {value = 64 : i32} : () -> i32
    %s = "tile.mul"(%k, %t) : (i32, i32) -> i32
    %ar = "tile.arange"() : () -> tensor<64xi32>
    %ss = "tile.splat"(%s) : (i32) -> tensor<64xi32>
    %cols = "tile.add"(%ss, %ar) : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>
    %r2 = "tile.reshape"(%rows) : (tensor<128xi32>) -> tensor<128x1xi32>
    %c2 = "tile.reshape"(%cols) : (tensor<64xi32>) -> tensor<1x64xi32>
    %rb = "tile.broadcast"(%r2) : (tensor<128x1xi32>) -> tensor<128x64xi32>
    %cb = "tile.broadcast"(%c2) : (tensor<1x64xi32>) -> tensor<128x64xi32>
    %m = "tile.splat"(%true) : (i1) -> tensor<128x64xi1>
    %p = "tile.splat"(%pad) : (bf16) -> tensor<128x64xbf16>
    %x = "tile.gather"(%a, %rb, %cb, %m, %p) {check_bounds = true} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, tensor<128x64xi32>, tensor<128x64xi32>, tensor<128x64xi1>, tensor<128x64xbf16>) -> tensor<128x64xbf16>
    %w = "tile.load"(%b, %k, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x128xbf16>
    %prod = "tile.mma"(%x, %w, %acc) : (tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32>) -> tensor<128x128xf32>
    scf.yield %prod : tensor<128x128xf32>
  }
  %o = "tile.cast"(%r) : (tensor<128x128xf32>) -> tensor<128x128xbf16>
  "tile.store"(%c, %i, %j, %o) {order = array<i64: 0, 1>} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<128x128xbf16>) -> ()
  return
}
