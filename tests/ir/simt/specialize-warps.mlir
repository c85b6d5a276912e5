// RUN: tilelang-opt %s --split-input-file -p 'tile-specialize-warps{chip=sm_90}' | filecheck %s
// RUN: tilelang-opt %s --split-input-file -p 'tile-specialize-warps{chip=sm_90 enabled=0}' | filecheck %s --check-prefix=OFF

// A kernel whose ring loop TMA fills (tile.ring, as tile-plan-rings records it) gets a producer
// warpgroup: the ring keeps its 4 stages, and with 8 consumer warps and the producer's 4 the
// producer gives its registers up (setmaxnreg 40) for the consumers' 232.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: tile.warp_specialize = {consumer_registers = 232 : i64, producer_registers = 40 : i64, stages = 4 : i64}
// OFF-NOT: tile.warp_specialize
func.func @matmul(%a: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %b: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %c: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %n: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
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

// A 128x256 accumulator over 8 warps takes 128 registers a thread: with the producer's 4
// warps ptxas would compile every thread under 168 registers (setmaxnreg does not raise its
// cap), without them under 255; the epilogue needs the difference, so no producer.
// CHECK-LABEL: func.func @wide_accumulator
// CHECK-NOT: tile.warp_specialize
func.func @wide_accumulator(%a: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %b: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %c: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %n: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %j = "tile.bid"() {axis = 1 : i64} : () -> i32
  %zero = "tile.constant"() {value = 0.000000e+00 : f32} : () -> f32
  %acc0 = "tile.splat"(%zero) : (f32) -> tensor<128x256xf32>
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<128x256xf32>) : i32 {
    %x = "tile.load"(%a, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x64xbf16>
    %w = "tile.load"(%b, %k, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x256xbf16>
    %p = "tile.mma"(%x, %w, %acc) : (tensor<128x64xbf16>, tensor<64x256xbf16>, tensor<128x256xf32>) -> tensor<128x256xf32>
    scf.yield %p : tensor<128x256xf32>
  } {tile.ring = {copy = "tma", engine = "wgmma", loop = "matmul", stages = 4 : i64}}
  %o = "tile.cast"(%r) : (tensor<128x256xf32>) -> tensor<128x256xbf16>
  "tile.store"(%c, %i, %j, %o) {order = array<i64: 0, 1>} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<128x256xbf16>) -> ()
  return
}

// -----

// One consumer warpgroup: each thread's share of the register file at 8 warps is already the
// most a thread may use, so no setmaxnreg (0 and 0).
// CHECK-LABEL: func.func @one_warpgroup
// CHECK-SAME: tile.warp_specialize = {consumer_registers = 0 : i64, producer_registers = 0 : i64, stages = 8 : i64}
func.func @one_warpgroup(%a: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %b: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %c: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %j = "tile.bid"() {axis = 1 : i64} : () -> i32
  %zero = "tile.constant"() {value = 0.000000e+00 : f32} : () -> f32
  %acc0 = "tile.splat"(%zero) : (f32) -> tensor<64x128xf32>
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<64x128xf32>) : i32 {
    %x = "tile.load"(%a, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x64xbf16>
    %w = "tile.load"(%b, %k, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x128xbf16>
    %p = "tile.mma"(%x, %w, %acc) : (tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>) -> tensor<64x128xf32>
    scf.yield %p : tensor<64x128xf32>
  } {tile.ring = {copy = "tma", engine = "wgmma", loop = "matmul", stages = 8 : i64}}
  %o = "tile.cast"(%r) : (tensor<64x128xf32>) -> tensor<64x128xbf16>
  "tile.store"(%c, %i, %j, %o) {order = array<i64: 0, 1>} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<64x128xbf16>) -> ()
  return
}

// -----

// Two blocks an SM (the occupancy hint): the producer is one warp, without setmaxnreg (a
// block's share of the register file is too small to give any away: ptxas compiles every
// warp's code under the launch's share).
// CHECK-LABEL: func.func @two_blocks_an_sm
// CHECK-SAME: tile.warp_specialize = {consumer_registers = 0 : i64, producer_registers = 0 : i64, producer_warps = 1 : i64, stages = 8 : i64}
func.func @two_blocks_an_sm(%a: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %b: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %c: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.occupancy = 2 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %j = "tile.bid"() {axis = 1 : i64} : () -> i32
  %zero = "tile.constant"() {value = 0.000000e+00 : f32} : () -> f32
  %acc0 = "tile.splat"(%zero) : (f32) -> tensor<64x128xf32>
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<64x128xf32>) : i32 {
    %x = "tile.load"(%a, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x64xbf16>
    %w = "tile.load"(%b, %k, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x128xbf16>
    %p = "tile.mma"(%x, %w, %acc) : (tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>) -> tensor<64x128xf32>
    scf.yield %p : tensor<64x128xf32>
  } {tile.ring = {copy = "tma", engine = "wgmma", loop = "matmul", stages = 8 : i64}}
  %o = "tile.cast"(%r) : (tensor<64x128xf32>) -> tensor<64x128xbf16>
  "tile.store"(%c, %i, %j, %o) {order = array<i64: 0, 1>} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<64x128xbf16>) -> ()
  return
}

// -----

// Rings filled by cp.async: no producer.
// CHECK-LABEL: func.func @copied_by_threads
// CHECK-NOT: tile.warp_specialize
func.func @copied_by_threads(%a: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %b: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %c: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %n: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %j = "tile.bid"() {axis = 1 : i64} : () -> i32
  %zero = "tile.constant"() {value = 0.000000e+00 : f32} : () -> f32
  %acc0 = "tile.splat"(%zero) : (f32) -> tensor<128x256xf32>
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<128x256xf32>) : i32 {
    %x = "tile.load"(%a, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x64xbf16>
    %w = "tile.load"(%b, %k, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x256xbf16>
    %p = "tile.mma"(%x, %w, %acc) : (tensor<128x64xbf16>, tensor<64x256xbf16>, tensor<128x256xf32>) -> tensor<128x256xf32>
    scf.yield %p : tensor<128x256xf32>
  } {tile.ring = {copy = "cp.async", engine = "wgmma", loop = "matmul", stages = 4 : i64}}
  %o = "tile.cast"(%r) : (tensor<128x256xf32>) -> tensor<128x256xbf16>
  "tile.store"(%c, %i, %j, %o) {order = array<i64: 0, 1>} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<128x256xbf16>) -> ()
  return
}

// -----

// A persistent kernel: the ring loop sits in a top-level loop over tiles, whose epilogue's
// buffers (here a 64 KiB layout conversion) the ring lies past: 5 stages of 32 KiB fit there,
// not the ring's own 8 (tile.warp_specialize's stages replace them).
// CHECK-LABEL: func.func @persistent
// CHECK-SAME: tile.warp_specialize = {consumer_registers = 232 : i64, producer_registers = 40 : i64, stages = 5 : i64}
func.func @persistent(%a: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %b: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %c: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %tiles: i32, %n: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %first = "tile.bid"() {axis = 0 : i64} : () -> i32
  %blocks = "tile.num_blocks"() {axis = 0 : i64} : () -> i32
  %zero = "tile.constant"() {value = 0.000000e+00 : f32} : () -> f32
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  scf.for %t = %first to %tiles step %blocks : i32 {
    %acc0 = "tile.splat"(%zero) : (f32) -> tensor<128x128xf32>
    %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<128x128xf32>) : i32 {
      %x = "tile.load"(%a, %t, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x64xbf16>
      %w = "tile.load"(%b, %k, %lb) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x128xbf16>
      %p = "tile.mma"(%x, %w, %acc) : (tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32>) -> tensor<128x128xf32>
      scf.yield %p : tensor<128x128xf32>
    } {tile.ring = {copy = "tma", engine = "wgmma", loop = "matmul", stages = 8 : i64}}
    %f = "tile.convert_layout"(%r) : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %s = "tile.cast"(%f) : (tensor<128x128xf32>) -> tensor<128x128xbf16>
    "tile.store"(%c, %t, %lb, %s) {order = array<i64: 0, 1>} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<128x128xbf16>) -> ()
  }
  return
}
