// RUN: tilelang-opt %s --split-input-file -p 'tile-plan-rings{chip=sm_90 tma=1}' | filecheck %s --check-prefix=TMA
// RUN: tilelang-opt %s --split-input-file -p 'tile-plan-rings{chip=sm_90}' | filecheck %s --check-prefix=CP
// RUN: tilelang-opt %s --split-input-file -p 'tile-plan-rings{chip=sm_80}' | filecheck %s --check-prefix=SM80

// A plain K loop (two loads, one product) is lowered whole around a ring of shared-memory
// stages: with 48 KiB a stage (128x64 + 64x256 bf16), 4 stages fit a block's 227 KiB on sm_90.
// TMA fills it where allowed (both operands are kernel parameters, whole 128-byte panels);
// else cp.async. sm_80 multiplies with mma.sync, and the 164 KiB of its blocks hold 3 stages.
// TMA-LABEL: func.func @matmul
// TMA: } {tile.ring = {copy = "tma", engine = "wgmma", loop = "matmul", stages = 4 : i64}}
// CP-LABEL: func.func @matmul
// CP: } {tile.ring = {copy = "cp.async", engine = "wgmma", loop = "matmul", stages = 4 : i64}}
// SM80-LABEL: func.func @matmul
// SM80: } {tile.ring = {copy = "cp.async", engine = "mma.sync", loop = "matmul", stages = 3 : i64}}
func.func @matmul(%a: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %b: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %c: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %n: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
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
  }
  %o = "tile.cast"(%r) : (tensor<128x256xf32>) -> tensor<128x256xbf16>
  "tile.store"(%c, %i, %j, %o) {order = array<i64: 0, 1>} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<128x256xbf16>) -> ()
  return
}

// -----

// `latency=` hints (tile.latency on the loads) set the stage count: the largest of the loop's
// loads, here 2, raised to wgmma's least (3); sm_80's mma.sync needs only 2.
// TMA-LABEL: func.func @latency_hint
// TMA: } {tile.ring = {copy = "tma", engine = "wgmma", loop = "matmul", stages = 3 : i64}}
// CP-LABEL: func.func @latency_hint
// CP: } {tile.ring = {copy = "cp.async", engine = "wgmma", loop = "matmul", stages = 3 : i64}}
// SM80-LABEL: func.func @latency_hint
// SM80: } {tile.ring = {copy = "cp.async", engine = "mma.sync", loop = "matmul", stages = 2 : i64}}
func.func @latency_hint(%a: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %b: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %c: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %n: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %j = "tile.bid"() {axis = 1 : i64} : () -> i32
  %zero = "tile.constant"() {value = 0.000000e+00 : f32} : () -> f32
  %acc0 = "tile.splat"(%zero) : (f32) -> tensor<128x128xf32>
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<128x128xf32>) : i32 {
    %x = "tile.load"(%a, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero", tile.latency = 1 : i64} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x64xbf16>
    %w = "tile.load"(%b, %k, %j) {order = array<i64: 0, 1>, padding_mode = "zero", tile.latency = 2 : i64} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x128xbf16>
    %p = "tile.mma"(%x, %w, %acc) : (tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32>) -> tensor<128x128xf32>
    scf.yield %p : tensor<128x128xf32>
  }
  %o = "tile.cast"(%r) : (tensor<128x128xf32>) -> tensor<128x128xbf16>
  "tile.store"(%c, %i, %j, %o) {order = array<i64: 0, 1>} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<128x128xbf16>) -> ()
  return
}

// -----

// A loop whose products read staged operands with other work between them (attention's key
// loop: passes/staged_loops.py) runs on wgmma, so on sm_90 only, with up to 4 stages.
// TMA-LABEL: func.func @attention_loop
// TMA: } {tile.ring = {copy = "tma", engine = "wgmma", loop = "staged", stages = 4 : i64}}
// CP-LABEL: func.func @attention_loop
// CP: } {tile.ring = {copy = "cp.async", engine = "wgmma", loop = "staged", stages = 4 : i64}}
// SM80-LABEL: func.func @attention_loop
// SM80-NOT: tile.ring
func.func @attention_loop(%q: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>,
                          %k: !tile.array<bf16, array<i64: -1, -1, 1>, 16 : i64>,
                          %v: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>,
                          %i: i32, %zero_i: i32, %n: i32,
                          %acc0: tensor<128x64xf32>) -> tensor<128x64xf32>
    attributes {tile.num_warps = 8 : i32} {
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %zero = "tile.constant"() {value = 0.0 : f32} : () -> f32
  %x = "tile.load"(%q, %i, %lb) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x64xbf16>
  %r = scf.for %j = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<128x64xf32>) : i32 {
    %keys = "tile.load"(%k, %zero_i, %j, %lb) {order = array<i64: 0, 1, 2>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, -1, 1>, 16 : i64>, i32, i32, i32) -> tensor<1x64x64xbf16>
    %kr = "tile.reshape"(%keys) : (tensor<1x64x64xbf16>) -> tensor<64x64xbf16>
    %kt = "tile.permute"(%kr) {axes = array<i64: 1, 0>} : (tensor<64x64xbf16>) -> tensor<64x64xbf16>
    %z = "tile.splat"(%zero) : (f32) -> tensor<128x64xf32>
    %s = "tile.mma"(%x, %kt, %z) : (tensor<128x64xbf16>, tensor<64x64xbf16>, tensor<128x64xf32>) -> tensor<128x64xf32>
    %p = "tile.exp2"(%s) : (tensor<128x64xf32>) -> tensor<128x64xf32>
    %pb = "tile.cast"(%p) : (tensor<128x64xf32>) -> tensor<128x64xbf16>
    %vals = "tile.load"(%v, %j, %lb) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x64xbf16>
    %o = "tile.mma"(%pb, %vals, %acc) : (tensor<128x64xbf16>, tensor<64x64xbf16>, tensor<128x64xf32>) -> tensor<128x64xf32>
    scf.yield %o : tensor<128x64xf32>
  }
  return %r : tensor<128x64xf32>
}

// -----

// A loop without products has no ring.
// TMA-LABEL: func.func @row_block_sums
// TMA-NOT: tile.ring
// CP-LABEL: func.func @row_block_sums
// CP-NOT: tile.ring
// SM80-LABEL: func.func @row_block_sums
// SM80-NOT: tile.ring
func.func @row_block_sums(%a: !tile.array<f32, array<i64: -1, 1>, 16 : i64>, %out: !tile.array<f32, array<i64: -1, 1>, 16 : i64>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %zero = "tile.constant"() {value = 0.000000e+00 : f32} : () -> f32
  %acc0 = "tile.splat"(%zero) : (f32) -> tensor<64x64xf32>
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<64x64xf32>) : i32 {
    %x = "tile.load"(%a, %k, %lb) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x64xf32>
    %s = "tile.add"(%acc, %x) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    scf.yield %s : tensor<64x64xf32>
  }
  "tile.store"(%out, %lb, %lb, %r) {order = array<i64: 0, 1>} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<64x64xf32>) -> ()
  return
}

// -----

// An A operand gathered by rows in the loop (a mixture of experts' tokens: each row's 64
// elements contiguous, its index computed before the loop) is copied into the stages by
// cp.async, and so is the rest of its ring, even where TMA may copy B: no box covers rows
// picked by index. A stage holds A and B (16 KiB each): 4 would fit, but 3 let two blocks
// share an SM, and the loop's accumulator (64 registers a thread) leaves them room.
// TMA-LABEL: func.func @gathered_rows
// TMA: } {tile.ring = {copy = "cp.async", engine = "wgmma", loop = "staged", stages = 3 : i64}}
// CP-LABEL: func.func @gathered_rows
// CP: } {tile.ring = {copy = "cp.async", engine = "wgmma", loop = "staged", stages = 3 : i64}}
// SM80-LABEL: func.func @gathered_rows
// SM80-NOT: tile.ring
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

// -----

// B read through a row-major view of a column-major parameter (tile-row-major-views: PyTorch's
// w.t()): TMA copies it through the parameter's map with its dimensions in the view's order.
// A view of an array picked from a list is copied by cp.async (the maps picked from would
// each need the view's order).
// TMA-LABEL: func.func @view_of_a_parameter
// CP-LABEL: func.func @view_of_a_parameter
// SM80-LABEL: func.func @view_of_a_parameter
// SM80: } {tile.ring = {copy = "cp.async", engine = "mma.sync", loop = "matmul", stages = 3 : i64}}
// TMA: } {tile.ring = {copy = "tma", engine = "wgmma", loop = "matmul", stages = 4 : i64}}
// TMA-LABEL: func.func @view_of_a_pick
// TMA: } {tile.ring = {copy = "tma", engine = "wgmma", loop = "matmul", stages = 4 : i64}}
// TMA-NEXT: scf.for
// TMA: } {tile.ring = {copy = "cp.async", engine = "wgmma", loop = "matmul", stages = 4 : i64}}
func.func @view_of_a_parameter(%a: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %b: !tile.array<bf16, array<i64: 1, -1>, 16 : i64>, %c: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %n: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %j = "tile.bid"() {axis = 1 : i64} : () -> i32
  %zero = "tile.constant"() {value = 0.000000e+00 : f32} : () -> f32
  %acc0 = "tile.splat"(%zero) : (f32) -> tensor<128x256xf32>
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %v = "tile.array_permute"(%b) {order = array<i64: 1, 0>} : (!tile.array<bf16, array<i64: 1, -1>, 16 : i64>) -> !tile.array<bf16, array<i64: -1, 1>, 16 : i64>
  %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<128x256xf32>) : i32 {
    %x = "tile.load"(%a, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x64xbf16>
    %w = "tile.load"(%v, %k, %j) {order = array<i64: 1, 0>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x256xbf16>
    %p = "tile.mma"(%x, %w, %acc) : (tensor<128x64xbf16>, tensor<64x256xbf16>, tensor<128x256xf32>) -> tensor<128x256xf32>
    scf.yield %p : tensor<128x256xf32>
  }
  %o = "tile.cast"(%r) : (tensor<128x256xf32>) -> tensor<128x256xbf16>
  "tile.store"(%c, %i, %j, %o) {order = array<i64: 0, 1>} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<128x256xbf16>) -> ()
  return
}

func.func @view_of_a_pick(%a: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %b0: !tile.array<bf16, array<i64: 1, -1>, 16 : i64>, %b1: !tile.array<bf16, array<i64: 1, -1>, 16 : i64>, %c: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, %n: i32, %g: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %i = "tile.bid"() {axis = 0 : i64} : () -> i32
  %j = "tile.bid"() {axis = 1 : i64} : () -> i32
  %zero = "tile.constant"() {value = 0.000000e+00 : f32} : () -> f32
  %acc0 = "tile.splat"(%zero) : (f32) -> tensor<128x256xf32>
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %v0 = "tile.array_permute"(%b0) {order = array<i64: 1, 0>} : (!tile.array<bf16, array<i64: 1, -1>, 16 : i64>) -> !tile.array<bf16, array<i64: -1, 1>, 16 : i64>
  %v1 = "tile.array_permute"(%b1) {order = array<i64: 1, 0>} : (!tile.array<bf16, array<i64: 1, -1>, 16 : i64>) -> !tile.array<bf16, array<i64: -1, 1>, 16 : i64>
  %picked = "tile.array_select"(%g, %b0, %b1) : (i32, !tile.array<bf16, array<i64: 1, -1>, 16 : i64>, !tile.array<bf16, array<i64: 1, -1>, 16 : i64>) -> !tile.array<bf16, array<i64: 1, -1>, 16 : i64>
  %v = "tile.array_permute"(%picked) {order = array<i64: 1, 0>} : (!tile.array<bf16, array<i64: 1, -1>, 16 : i64>) -> !tile.array<bf16, array<i64: -1, 1>, 16 : i64>
  %s = "tile.array_select"(%g, %v0, %v1) : (i32, !tile.array<bf16, array<i64: -1, 1>, 16 : i64>, !tile.array<bf16, array<i64: -1, 1>, 16 : i64>) -> !tile.array<bf16, array<i64: -1, 1>, 16 : i64>
  // a view of the picked array: the picked maps, each in the view's order
  %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<128x256xf32>) : i32 {
    %x = "tile.load"(%a, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x64xbf16>
    %w = "tile.load"(%v, %k, %j) {order = array<i64: 1, 0>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x256xbf16>
    %p = "tile.mma"(%x, %w, %acc) : (tensor<128x64xbf16>, tensor<64x256xbf16>, tensor<128x256xf32>) -> tensor<128x256xf32>
    scf.yield %p : tensor<128x256xf32>
  }
  // a pick among views: cp.async
  %r2 = scf.for %k = %lb to %n step %step iter_args(%acc = %r) -> (tensor<128x256xf32>) : i32 {
    %x = "tile.load"(%a, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x64xbf16>
    %w = "tile.load"(%s, %k, %j) {order = array<i64: 1, 0>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<64x256xbf16>
    %p = "tile.mma"(%x, %w, %acc) : (tensor<128x64xbf16>, tensor<64x256xbf16>, tensor<128x256xf32>) -> tensor<128x256xf32>
    scf.yield %p : tensor<128x256xf32>
  }
  %o = "tile.cast"(%r2) : (tensor<128x256xf32>) -> tensor<128x256xbf16>
  "tile.store"(%c, %i, %j, %o) {order = array<i64: 0, 1>} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<128x256xbf16>) -> ()
  return
}
