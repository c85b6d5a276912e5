// The rewrites leave the ops they bypass dead; DCE clears them so the checks see the result.
// RUN: tilelang-opt %s --split-input-file -p tile-simplify-shapes,tile-eliminate-dead-code | filecheck %s

// CHECK-LABEL: @reshape_chain
// CHECK-NEXT: %[[R:.*]] = "tile.reshape"(%arg0) : (tensor<4x8xf32>) -> tensor<32xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_chain(%a: tensor<4x8xf32>) -> tensor<32xf32> {
  %b = "tile.reshape"(%a) : (tensor<4x8xf32>) -> tensor<2x16xf32>
  %c = "tile.reshape"(%b) : (tensor<2x16xf32>) -> tensor<32xf32>
  return %c : tensor<32xf32>
}

// -----

// CHECK-LABEL: @round_trip
// CHECK-NEXT: return %arg0
func.func @round_trip(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %b = "tile.reshape"(%a) : (tensor<4x8xf32>) -> tensor<32xf32>
  %c = "tile.reshape"(%b) : (tensor<32xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: @broadcast_of_splat
// CHECK-NEXT: %[[S:.*]] = "tile.splat"(%arg0) : (f32) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[S]]
func.func @broadcast_of_splat(%x: f32) -> tensor<4x8xf32> {
  %a = "tile.splat"(%x) : (f32) -> tensor<1x8xf32>
  %b = "tile.broadcast"(%a) : (tensor<1x8xf32>) -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: @noop_cast
// CHECK-NEXT: return %arg0
func.func @noop_cast(%a: tensor<4xi32>) -> tensor<4xi32> {
  %b = "tile.cast"(%a) : (tensor<4xi32>) -> tensor<4xi32>
  return %b : tensor<4xi32>
}

// -----

// A real broadcast stays.
// CHECK-LABEL: @real_broadcast
// CHECK-NEXT: "tile.broadcast"
func.func @real_broadcast(%a: tensor<1x8xf32>) -> tensor<4x8xf32> {
  %b = "tile.broadcast"(%a) : (tensor<1x8xf32>) -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}
