// RUN: tilelang-opt %s --split-input-file -p tile-pipeline-loads | filecheck %s

// A matrix-product loop: iteration lb's tiles are loaded before the loop and carried in; each
// iteration loads the next one's (k + 1) first and multiplies the carried ones.
// CHECK-LABEL: @gemm_loop
// CHECK: [[A0:%[0-9a-z]+]] = "tile.load"(%arg0, %arg2, [[LB:%[0-9a-z]+]])
// CHECK: [[B0:%[0-9a-z]+]] = "tile.load"(%arg1, [[LB]], %arg3)
// CHECK: scf.for [[K:%[0-9a-z]+]] = [[LB]] to %arg4 step [[STEP:%[0-9a-z]+]] iter_args([[ACC:%[0-9a-z]+]] = {{%[0-9a-z]+}}, [[A:%[0-9a-z]+]] = [[A0]], [[B:%[0-9a-z]+]] = [[B0]])
// CHECK-NEXT: [[NEXT:%[0-9a-z]+]] = "tile.add"([[K]], [[STEP]])
// CHECK-NEXT: [[AN:%[0-9a-z]+]] = "tile.load"(%arg0, %arg2, [[NEXT]])
// CHECK-NEXT: [[BN:%[0-9a-z]+]] = "tile.load"(%arg1, [[NEXT]], %arg3)
// CHECK-NEXT: [[R:%[0-9a-z]+]] = "tile.mma"([[A]], [[B]], [[ACC]])
// CHECK-NEXT: scf.yield [[R]], [[AN]], [[BN]]
func.func @gemm_loop(%a: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>,
                     %b: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>,
                     %i: i32, %j: i32, %n: i32, %acc0: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<32x32xf32>) : i32 {
    %x = "tile.load"(%a, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<32x16xbf16>
    %y = "tile.load"(%b, %k, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<16x32xbf16>
    %m = "tile.mma"(%x, %y, %acc) : (tensor<32x16xbf16>, tensor<16x32xbf16>, tensor<32x32xf32>) -> tensor<32x32xf32>
    scf.yield %m : tensor<32x32xf32>
  }
  return %r : tensor<32x32xf32>
}

// -----

// A loop that stores is left alone (a prefetched load could pass a store it depends on).
// CHECK-LABEL: @stores
// CHECK: scf.for {{.*}} iter_args({{%[0-9a-z]+}} = {{%[0-9a-z]+}}) ->
// CHECK-NEXT: "tile.load"
func.func @stores(%a: !tile.array<f16, array<i64: -1, 1>, 16 : i64>, %n: i32,
                  %acc0: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<16x16xf32>) : i32 {
    %x = "tile.load"(%a, %k, %lb) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<16x16xf16>
    %m = "tile.mma"(%x, %x, %acc) : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
    "tile.store"(%a, %k, %lb, %x) {order = array<i64: 0, 1>} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<16x16xf16>) -> ()
    scf.yield %m : tensor<16x16xf32>
  }
  return %r : tensor<16x16xf32>
}

// -----

// Index computations of the induction variable are recomputed for the prologue and prefetch.
// CHECK-LABEL: @computed_index
// CHECK: [[T0:%[0-9a-z]+]] = "tile.mul"([[LB:%[0-9a-z]+]], {{%[0-9a-z]+}})
// CHECK: "tile.load"(%arg0, [[T0]], [[LB]])
// CHECK: scf.for [[K:%[0-9a-z]+]] = [[LB]]
// CHECK-NEXT: [[NEXT:%[0-9a-z]+]] = "tile.add"([[K]]
// CHECK-NEXT: [[T1:%[0-9a-z]+]] = "tile.mul"([[NEXT]]
// CHECK-NEXT: "tile.load"(%arg0, [[T1]], [[LB]])
func.func @computed_index(%a: !tile.array<f16, array<i64: -1, 1>, 16 : i64>, %n: i32,
                          %acc0: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %two = "tile.constant"() {value = 2 : i32} : () -> i32
  %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<16x16xf32>) : i32 {
    %row = "tile.mul"(%k, %two) : (i32, i32) -> i32
    %x = "tile.load"(%a, %row, %lb) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<16x16xf16>
    %m = "tile.mma"(%x, %x, %acc) : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
    scf.yield %m : tensor<16x16xf32>
  }
  return %r : tensor<16x16xf32>
}

// -----

// A loop over chunks that only reads (a norm's sum): the next chunk is loaded first; an
// invariant load stays where it is.
// CHECK-LABEL: @chunk_sum
// CHECK: [[X0:%[0-9a-z]+]] = "tile.load"(%arg0, %arg1, [[LB:%[0-9a-z]+]])
// CHECK: scf.for [[J:%[0-9a-z]+]] = [[LB]] to %arg2 step [[STEP:%[0-9a-z]+]] iter_args([[ACC:%[0-9a-z]+]] = %arg3, [[X:%[0-9a-z]+]] = [[X0]])
// CHECK-NEXT: [[NEXT:%[0-9a-z]+]] = "tile.add"([[J]], [[STEP]])
// CHECK-NEXT: [[XN:%[0-9a-z]+]] = "tile.load"(%arg0, %arg1, [[NEXT]])
// CHECK-NEXT: "tile.load"(%arg0, %arg1, [[LB]])
// CHECK: scf.yield {{%[0-9a-z]+}}, [[XN]]
func.func @chunk_sum(%a: !tile.array<f32, array<i64: -1, 1>, 16 : i64>, %row: i32, %n: i32,
                     %acc0: tensor<1x1024xf32>) -> tensor<1x1024xf32> {
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %j = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<1x1024xf32>) : i32 {
    %x = "tile.load"(%a, %row, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<1x1024xf32>
    %c = "tile.load"(%a, %row, %lb) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<1x1024xf32>
    %s = "tile.add"(%acc, %x) : (tensor<1x1024xf32>, tensor<1x1024xf32>) -> tensor<1x1024xf32>
    %t = "tile.add"(%s, %c) : (tensor<1x1024xf32>, tensor<1x1024xf32>) -> tensor<1x1024xf32>
    scf.yield %t : tensor<1x1024xf32>
  }
  return %r : tensor<1x1024xf32>
}

// -----

// Chunk loops that store into the array they load, or whose tiles would hold too many registers (64 KiB over 128
// threads), are left alone.
// CHECK-LABEL: @chunk_left_alone
// CHECK: scf.for {{.*}} iter_args({{%[0-9a-z]+}} = %arg3) ->
// CHECK-NEXT: "tile.load"
// CHECK: scf.for {{.*}} iter_args({{%[0-9a-z]+}} = %arg4) ->
// CHECK-NEXT: "tile.load"
func.func @chunk_left_alone(%a: !tile.array<f32, array<i64: -1, 1>, 16 : i64>, %row: i32, %n: i32,
                            %acc0: tensor<1x1024xf32>, %big0: tensor<16x1024xf32>) -> (tensor<1x1024xf32>, tensor<16x1024xf32>) {
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %j = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<1x1024xf32>) : i32 {
    %x = "tile.load"(%a, %row, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<1x1024xf32>
    %s = "tile.add"(%acc, %x) : (tensor<1x1024xf32>, tensor<1x1024xf32>) -> tensor<1x1024xf32>
    "tile.store"(%a, %row, %j, %s) {order = array<i64: 0, 1>} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<1x1024xf32>) -> ()
    scf.yield %s : tensor<1x1024xf32>
  }
  %q = scf.for %j = %lb to %n step %step iter_args(%acc = %big0) -> (tensor<16x1024xf32>) : i32 {
    %x = "tile.load"(%a, %row, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<16x1024xf32>
    %s = "tile.add"(%acc, %x) : (tensor<16x1024xf32>, tensor<16x1024xf32>) -> tensor<16x1024xf32>
    scf.yield %s : tensor<16x1024xf32>
  }
  return %r, %q : tensor<1x1024xf32>, tensor<16x1024xf32>
}

// -----

// A chunk loop of gathers (cuTile's gather RMS norm): the index tile is recomputed for the next
// chunk and its gather issued first; a gather that does not check its bounds stays.
// CHECK-LABEL: @chunk_gather
// CHECK: scf.for [[J:%[0-9a-z]+]] = {{.*}} iter_args({{%[0-9a-z]+}} = %arg3, [[G:%[0-9a-z]+]] = {{%[0-9a-z]+}}) ->
// CHECK-NEXT: [[NEXT:%[0-9a-z]+]] = "tile.add"([[J]]
// CHECK-NEXT: [[M:%[0-9a-z]+]] = "tile.mul"([[NEXT]]
// CHECK: "tile.gather"(%arg0, {{.*}}) {check_bounds = true}
// CHECK: "tile.gather"(%arg0, {{.*}}) {check_bounds = false}
// CHECK: "tile.add"({{%[0-9a-z]+}}, [[G]])
func.func @chunk_gather(%a: !tile.array<f32, array<i64: -1, 1>, 16 : i64>, %row: i32, %n: i32,
                        %acc0: tensor<256xf32>) -> tensor<256xf32> {
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %t = "tile.constant"() {value = 256 : i32} : () -> i32
  %yes = "tile.constant"() {value = true} : () -> i1
  %mask = "tile.splat"(%yes) : (i1) -> tensor<256xi1>
  %rows = "tile.splat"(%row) : (i32) -> tensor<256xi32>
  %r = scf.for %j = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<256xf32>) : i32 {
    %base = "tile.mul"(%j, %t) : (i32, i32) -> i32
    %iota = "tile.arange"() : () -> tensor<256xi32>
    %b = "tile.splat"(%base) : (i32) -> tensor<256xi32>
    %offs = "tile.add"(%b, %iota) : (tensor<256xi32>, tensor<256xi32>) -> tensor<256xi32>
    %g = "tile.gather"(%a, %rows, %offs, %mask, %acc0) {check_bounds = true} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, tensor<256xi32>, tensor<256xi32>, tensor<256xi1>, tensor<256xf32>) -> tensor<256xf32>
    %u = "tile.gather"(%a, %rows, %offs, %mask, %acc0) {check_bounds = false} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, tensor<256xi32>, tensor<256xi32>, tensor<256xi1>, tensor<256xf32>) -> tensor<256xf32>
    %s = "tile.add"(%acc, %g) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    %v = "tile.add"(%s, %u) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    scf.yield %v : tensor<256xf32>
  }
  return %r : tensor<256xf32>
}

// -----

// A grid-stride loop (a persistent kernel's walk over row tiles, step = the number of blocks)
// that stores into another array prefetches the loads of arrays it does not store to (arrays
// of different parameters do not overlap: the launch contract); the load of the array it
// stores to stays in its iteration. The same loop with a constant step keeps both loads in
// their iteration (other blocks on the SM hide their latency).
// CHECK-LABEL: @stores_elsewhere
// CHECK: scf.for [[J:%[0-9a-z]+]] = {{.*}} iter_args([[X:%[0-9a-z]+]] = {{%[0-9a-z]+}}) ->
// CHECK-NEXT: [[NEXT:%[0-9a-z]+]] = "tile.add"([[J]]
// CHECK-NEXT: [[XN:%[0-9a-z]+]] = "tile.load"(%arg0, [[NEXT]], %arg2)
// CHECK-NEXT: [[Y:%[0-9a-z]+]] = "tile.load"(%arg1, [[J]], %arg2)
// CHECK: "tile.store"(%arg1, [[J]], %arg2
// CHECK: scf.yield [[XN]]
// CHECK: scf.for {{.*}} : i32 {
// CHECK-NEXT: "tile.load"(%arg0
// CHECK-NEXT: "tile.load"(%arg1
func.func @stores_elsewhere(%x: !tile.array<f32, array<i64: -1, 1>, 16 : i64>,
                            %y: !tile.array<f32, array<i64: -1, 1>, 16 : i64>,
                            %col: i32, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %lb = "tile.bid"() {axis = 0 : i64} : () -> i32
  %nb = "tile.num_blocks"() {axis = 0 : i64} : () -> i32
  %one = "tile.constant"() {value = 1 : i32} : () -> i32
  scf.for %j = %lb to %n step %nb : i32 {
    %a = "tile.load"(%x, %j, %col) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<1x1024xf32>
    %b = "tile.load"(%y, %j, %col) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<1x1024xf32>
    %s = "tile.add"(%a, %b) : (tensor<1x1024xf32>, tensor<1x1024xf32>) -> tensor<1x1024xf32>
    "tile.store"(%y, %j, %col, %s) {order = array<i64: 0, 1>} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<1x1024xf32>) -> ()
  }
  scf.for %j = %lb to %n step %one : i32 {
    %a = "tile.load"(%x, %j, %col) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<1x1024xf32>
    %b = "tile.load"(%y, %j, %col) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<1x1024xf32>
    %s = "tile.add"(%a, %b) : (tensor<1x1024xf32>, tensor<1x1024xf32>) -> tensor<1x1024xf32>
    "tile.store"(%y, %j, %col, %s) {order = array<i64: 0, 1>} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<1x1024xf32>) -> ()
  }
  return
}

// -----

// An atomic in the body (a lock, or a flag another block sets) keeps every load in its
// iteration: an acquire orders other blocks' writes before the loads after it.
// CHECK-LABEL: @chunk_atomic
// CHECK: scf.for {{.*}} iter_args({{%[0-9a-z]+}} = %arg4) ->
// CHECK-NEXT: "tile.atomic_cas"
// CHECK-NEXT: "tile.load"
func.func @chunk_atomic(%x: !tile.array<f32, array<i64: -1, 1>, 16 : i64>,
                        %lock: !tile.array<i32, array<i64: 1>, 16 : i64>,
                        %row: i32, %n: i32, %acc0: tensor<1x1024xf32>) -> tensor<1x1024xf32> {
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %j = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<1x1024xf32>) : i32 {
    %old = "tile.atomic_cas"(%lock, %lb, %lb, %step) {check_bounds = true, memory_order = "acquire", memory_scope = "device"} : (!tile.array<i32, array<i64: 1>, 16 : i64>, i32, i32, i32) -> i32
    %a = "tile.load"(%x, %row, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<1x1024xf32>
    %t = "tile.add"(%acc, %a) : (tensor<1x1024xf32>, tensor<1x1024xf32>) -> tensor<1x1024xf32>
    scf.yield %t : tensor<1x1024xf32>
  }
  return %r : tensor<1x1024xf32>
}

// -----

// A grid-stride loop (a persistent kernel's walk over row tiles, step = the number of blocks)
// may carry 128 bytes a thread (2x4096 bf16 over 128 threads); the same loop with another
// step carries at most 64 and is left alone.
// CHECK-LABEL: @grid_stride
// CHECK: scf.for [[I:%[0-9a-z]+]] = %arg2 to %arg3 step [[NB:%[0-9a-z]+]] iter_args([[X:%[0-9a-z]+]] = {{%[0-9a-z]+}}) ->
// CHECK-NEXT: [[NEXT:%[0-9a-z]+]] = "tile.add"([[I]], [[NB]])
// CHECK-NEXT: "tile.load"(%arg0, [[NEXT]]
// CHECK: scf.for {{.*}} : i32 {
// CHECK-NEXT: "tile.load"
func.func @grid_stride(%x: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>,
                       %y: !tile.array<bf16, array<i64: -1, 1>, 16 : i64>,
                       %first: i32, %tiles: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = "tile.constant"() {value = 0 : i32} : () -> i32
  %c3 = "tile.constant"() {value = 3 : i32} : () -> i32
  %nb = "tile.num_blocks"() {axis = 0 : i64} : () -> i32
  scf.for %i = %first to %tiles step %nb : i32 {
    %a = "tile.load"(%x, %i, %c0) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<2x4096xbf16>
    %s = "tile.add"(%a, %a) : (tensor<2x4096xbf16>, tensor<2x4096xbf16>) -> tensor<2x4096xbf16>
    "tile.store"(%y, %i, %c0, %s) {order = array<i64: 0, 1>} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<2x4096xbf16>) -> ()
  }
  scf.for %i = %first to %tiles step %c3 : i32 {
    %a = "tile.load"(%x, %i, %c0) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<2x4096xbf16>
    %s = "tile.add"(%a, %a) : (tensor<2x4096xbf16>, tensor<2x4096xbf16>) -> tensor<2x4096xbf16>
    "tile.store"(%y, %i, %c0, %s) {order = array<i64: 0, 1>} : (!tile.array<bf16, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<2x4096xbf16>) -> ()
  }
  return
}
