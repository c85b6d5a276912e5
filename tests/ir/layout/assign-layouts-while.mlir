// RUN: tilelang-opt %s --split-input-file -p tile-assign-layouts | filecheck %s

// An scf.while whose body gets fewer values than its condition block (canonicalize drops a
// forwarded flag the body does not use): the body's tile argument takes the layout of the
// value forwarded to it, not of the condition block's argument at the same position.
// CHECK-LABEL: @while_forwards_fewer
// CHECK: scf.while ({{%.+}} = {{%.+}}, {{%.+}} = {{%.+}}, {{%.+}} = {{%.+}}) : (i1, tensor<256xf32, #tile.layout<"[[L:[^"]*]]">>, i32) -> (tensor<256xf32, #tile.layout<"[[L]]">>, i32)
// CHECK: ^bb0({{%.+}}: tensor<256xf32, #tile.layout<"[[L]]">>, {{%.+}}: i32):
// CHECK-NOT: "tile.convert_layout"
// CHECK: return
func.func @while_forwards_fewer(%x: !tile.array<f32, array<i64: 1>, 16 : i64>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %z = "tile.constant"() {value = 0 : i32} : () -> i32
  %f = "tile.constant"() {value = false} : () -> i1
  %t0 = "tile.load"(%x, %z) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<256xf32>
  %r:2 = scf.while (%b = %f, %t = %t0, %k = %z) : (i1, tensor<256xf32>, i32) -> (tensor<256xf32>, i32) {
    %go = "tile.invert"(%b) : (i1) -> i1
    scf.condition(%go) %t, %k : tensor<256xf32>, i32
  } do {
  ^bb0(%t2: tensor<256xf32>, %k2: i32):
    %one = "tile.constant"() {value = 1 : i32} : () -> i32
    %k3 = "tile.add"(%k2, %one) : (i32, i32) -> i32
    %stop = "tile.cmp"(%k3, %n) {predicate = "ge"} : (i32, i32) -> i1
    %t3 = "tile.add"(%t2, %t2) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    scf.yield %stop, %t3, %k3 : i1, tensor<256xf32>, i32
  }
  "tile.store"(%x, %z, %r#0) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<256xf32>) -> ()
  return
}
