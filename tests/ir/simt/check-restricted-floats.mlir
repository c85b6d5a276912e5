// RUN: tilelang-opt %s -p 'tile-check-restricted-floats{chip=sm_90}' | filecheck %s
// RUN: not tilelang-opt %s -p 'tile-check-restricted-floats{chip=sm_80}' 2>&1 | filecheck %s --check-prefix=OLD

// The 8-bit floats need sm_90 or newer (cuTile's rule): on sm_90 the IR passes unchanged; on
// sm_80 the first op that uses one is an error at its location.
// CHECK-LABEL: func.func @widen
// CHECK: "tile.cast"
// OLD: error: TileUnsupportedFeatureError: float8_e4m3fn is not supported on sm_80
func.func @widen(%x: tensor<16xf8E4M3FN>) -> tensor<16xf32> attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %y = "tile.cast"(%x) : (tensor<16xf8E4M3FN>) -> tensor<16xf32>
  return %y : tensor<16xf32>
}
