// RUN: tilelang-opt %s --split-input-file -p 'tile-pair-blocks{chip=sm_90}' | filecheck %s
// RUN: tilelang-opt %s --split-input-file -p 'tile-pair-blocks{chip=sm_90 enabled=0}' | filecheck %s --check-prefix=OFF

// A warp-specialized kernel (tile-specialize-warps decided so) with one plain K loop in its
// top-level block: clusters of two, which share a tile when the run-time check finds both
// blocks read the same one (here B: the blocks of a cluster differ in bid(0) only).
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: tile.cluster = 2 : i64
// OFF-NOT: tile.cluster
func.func @matmul(%a: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %b: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %c: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %n: i32) attributes {tile.kernel, tile.num_warps = 8 : i32, tile.warp_specialize = {consumer_registers = 232 : i64, producer_registers = 40 : i64, stages = 4 : i64}} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %j = "tile.bid"() {axis = 1 : i64} : () -> i32
  %zero = "tile.constant"() {value = 0.000000e+00 : f32} : () -> f32
  %acc0 = "tile.splat"(%zero) : (f32) -> tensor<128x128xf32>
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<128x128xf32>) : i32 {
    %x = "tile.load"(%a, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x64xbf16>
    %w = "tile.load"(%b, %k, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x128xbf16>
    %p = "tile.mma"(%x, %w, %acc) : (tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32>) -> tensor<128x128xf32>
    scf.yield %p : tensor<128x128xf32>
  } {tile.ring = {copy = "tma", engine = "wgmma", loop = "matmul", stages = 4 : i64}}
  %o = "tile.cast"(%r) : (tensor<128x128xf32>) -> tensor<128x128xbf16>
  "tile.store"(%c, %i, %j, %o) {order = array<i64: 0, 1>} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<128x128xbf16>) -> ()
  return
}

// -----

// cuTile's hint num_ctas = 1 keeps each block on its own.
// CHECK-LABEL: func.func @one_cta
// CHECK-NOT: tile.cluster
func.func @one_cta(%a: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %b: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %c: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %n: i32) attributes {tile.kernel, tile.num_warps = 8 : i32, tile.num_ctas = 1 : i32, tile.warp_specialize = {consumer_registers = 232 : i64, producer_registers = 40 : i64, stages = 4 : i64}} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %j = "tile.bid"() {axis = 1 : i64} : () -> i32
  %zero = "tile.constant"() {value = 0.000000e+00 : f32} : () -> f32
  %acc0 = "tile.splat"(%zero) : (f32) -> tensor<128x128xf32>
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<128x128xf32>) : i32 {
    %x = "tile.load"(%a, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x64xbf16>
    %w = "tile.load"(%b, %k, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x128xbf16>
    %p = "tile.mma"(%x, %w, %acc) : (tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32>) -> tensor<128x128xf32>
    scf.yield %p : tensor<128x128xf32>
  } {tile.ring = {copy = "tma", engine = "wgmma", loop = "matmul", stages = 4 : i64}}
  %o = "tile.cast"(%r) : (tensor<128x128xf32>) -> tensor<128x128xbf16>
  "tile.store"(%c, %i, %j, %o) {order = array<i64: 0, 1>} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<128x128xbf16>) -> ()
  return
}

// -----

// Without a producer warpgroup (thread 0 fills the ring), no cluster.
// CHECK-LABEL: func.func @thread_zero
// CHECK-NOT: tile.cluster
func.func @thread_zero(%a: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %b: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %c: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %n: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %j = "tile.bid"() {axis = 1 : i64} : () -> i32
  %zero = "tile.constant"() {value = 0.000000e+00 : f32} : () -> f32
  %acc0 = "tile.splat"(%zero) : (f32) -> tensor<128x128xf32>
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<128x128xf32>) : i32 {
    %x = "tile.load"(%a, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x64xbf16>
    %w = "tile.load"(%b, %k, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x128xbf16>
    %p = "tile.mma"(%x, %w, %acc) : (tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32>) -> tensor<128x128xf32>
    scf.yield %p : tensor<128x128xf32>
  } {tile.ring = {copy = "tma", engine = "wgmma", loop = "matmul", stages = 4 : i64}}
  %o = "tile.cast"(%r) : (tensor<128x128xf32>) -> tensor<128x128xbf16>
  "tile.store"(%c, %i, %j, %o) {order = array<i64: 0, 1>} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<128x128xbf16>) -> ()
  return
}
