// RUN: tilelang-opt %s --split-input-file -p 'tile-widen-k-steps{arch=sm_90}' | filecheck %s
// RUN: tilelang-opt %s --split-input-file -p 'tile-widen-k-steps{arch=sm_80}' | filecheck %s --check-prefix=SM80

// K steps of 32 float16 values (64-byte rows) over cdiv(K, 32) tiles (ct.num_tiles's form):
// two steps an iteration, cdiv(count, 2) iterations, tiles 64 wide along K.
// CHECK-LABEL: @num_tiles
// CHECK: [[COUNT:%[0-9a-z]+]] = "tile.add"
// CHECK: [[BUMP:%[0-9a-z]+]] = "tile.add"([[COUNT]], {{%[0-9a-z]+}})
// CHECK-NEXT: [[TWO:%[0-9a-z]+]] = "tile.constant"() {value = 2 : i32}
// CHECK-NEXT: [[WIDE:%[0-9a-z]+]] = "tile.floordiv"([[BUMP]], [[TWO]])
// CHECK-NEXT: scf.for [[K:%arg[0-9]+]] = {{%[0-9a-z]+}} to [[WIDE]] step
// CHECK-NEXT: "tile.load"(%arg0, %arg3, [[K]]) {{.*}} -> tensor<128x64xf16>
// CHECK-NEXT: "tile.load"(%arg1, [[K]], %arg4) {{.*}} -> tensor<64x128xf16>
// CHECK-NEXT: "tile.mma"({{.*}}) {tile.widened_k = array<i64: 32, 2>} : (tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32>)
// SM80-LABEL: @num_tiles
// SM80-NOT: tile.widened_k
func.func @num_tiles(%a: !tile.array<f16, array<i64: -1, 1>, 16 : i64>,
                     %b: !tile.array<f16, array<i64: -1, 1>, 16 : i64>,
                     %c: !tile.array<f32, array<i64: -1, 1>, 16 : i64>,
                     %i: i32, %j: i32) attributes {tile.num_warps = 8 : i32} {
  %kext = "tile.dim"(%a) {dim = 1 : i64} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>) -> i32
  %bk = "tile.constant"() {value = 32 : i32} : () -> i32
  %q = "tile.floordiv"(%kext, %bk) : (i32, i32) -> i32
  %r = "tile.mod"(%kext, %bk) : (i32, i32) -> i32
  %z = "tile.constant"() {value = 0 : i32} : () -> i32
  %ne = "tile.cmp"(%r, %z) {predicate = "ne"} : (i32, i32) -> i1
  %extra = "tile.cast"(%ne) : (i1) -> i32
  %count = "tile.add"(%q, %extra) : (i32, i32) -> i32
  %zero = "tile.constant"() {value = 0.000000e+00 : f32} : () -> f32
  %acc0 = "tile.splat"(%zero) : (f32) -> tensor<128x128xf32>
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %res = scf.for %k = %z to %count step %step iter_args(%acc = %acc0) -> (tensor<128x128xf32>) : i32 {
    %x = "tile.load"(%a, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x32xf16>
    %y = "tile.load"(%b, %k, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<32x128xf16>
    %s = "tile.mma"(%x, %y, %acc) : (tensor<128x32xf16>, tensor<32x128xf16>, tensor<128x128xf32>) -> tensor<128x128xf32>
    scf.yield %s : tensor<128x128xf32>
  }
  "tile.store"(%c, %i, %j, %res) {order = array<i64: 0, 1>} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<128x128xf32>) -> ()
  return
}

// -----

// 3-d tiles reshaped to 2-d ((K + 31) // 32 of B's extent), and a constant count of 4.
// CHECK-LABEL: @batched
// CHECK: "tile.load"({{.*}}) {{.*}} -> tensor<1x128x64xf16>
// CHECK-NEXT: "tile.reshape"({{.*}}) : (tensor<1x128x64xf16>) -> tensor<128x64xf16>
// CHECK-NEXT: "tile.load"({{.*}}) {{.*}} -> tensor<1x64x128xf16>
// CHECK-NEXT: "tile.reshape"({{.*}}) : (tensor<1x64x128xf16>) -> tensor<64x128xf16>
// CHECK: "tile.mma"({{.*}}) {tile.widened_k = array<i64: 32, 2>}
// CHECK-LABEL: @constant_count
// CHECK: tile.widened_k
func.func @batched(%a: !tile.array<f16, array<i64: -1, -1, 1>, 16 : i64>,
                   %b: !tile.array<f16, array<i64: -1, -1, 1>, 16 : i64>,
                   %z: i32, %i: i32, %j: i32, %acc0: tensor<128x128xf32>) -> tensor<128x128xf32> attributes {tile.num_warps = 8 : i32} {
  %kext = "tile.dim"(%b) {dim = 1 : i64} : (!tile.array<f16, array<i64: -1, -1, 1>, 16 : i64>) -> i32
  %bk = "tile.constant"() {value = 32 : i32} : () -> i32
  %m1 = "tile.constant"() {value = 31 : i32} : () -> i32
  %up = "tile.add"(%kext, %m1) : (i32, i32) -> i32
  %count = "tile.floordiv"(%up, %bk) : (i32, i32) -> i32
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %res = scf.for %k = %lb to %count step %step iter_args(%acc = %acc0) -> (tensor<128x128xf32>) : i32 {
    %x3 = "tile.load"(%a, %z, %i, %k) {order = array<i64: 0, 1, 2>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, -1, 1>, 16 : i64>, i32, i32, i32) -> tensor<1x128x32xf16>
    %x = "tile.reshape"(%x3) : (tensor<1x128x32xf16>) -> tensor<128x32xf16>
    %y3 = "tile.load"(%b, %z, %k, %j) {order = array<i64: 0, 1, 2>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, -1, 1>, 16 : i64>, i32, i32, i32) -> tensor<1x32x128xf16>
    %y = "tile.reshape"(%y3) : (tensor<1x32x128xf16>) -> tensor<32x128xf16>
    %s = "tile.mma"(%x, %y, %acc) : (tensor<128x32xf16>, tensor<32x128xf16>, tensor<128x128xf32>) -> tensor<128x128xf32>
    scf.yield %s : tensor<128x128xf32>
  }
  return %res : tensor<128x128xf32>
}

func.func @constant_count(%a: !tile.array<f16, array<i64: -1, 1>, 16 : i64>,
                          %b: !tile.array<f16, array<i64: -1, 1>, 16 : i64>,
                          %i: i32, %j: i32, %acc0: tensor<128x128xf32>) -> tensor<128x128xf32> attributes {tile.num_warps = 8 : i32} {
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %count = "tile.constant"() {value = 4 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %res = scf.for %k = %lb to %count step %step iter_args(%acc = %acc0) -> (tensor<128x128xf32>) : i32 {
    %x = "tile.load"(%a, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x32xf16>
    %y = "tile.load"(%b, %k, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<32x128xf16>
    %s = "tile.mma"(%x, %y, %acc) : (tensor<128x32xf16>, tensor<32x128xf16>, tensor<128x128xf32>) -> tensor<128x128xf32>
    scf.yield %s : tensor<128x128xf32>
  }
  return %res : tensor<128x128xf32>
}

// -----

// Left alone: a count that is not the tiles of the loaded arrays (3 of 4 tiles: the fourth
// must not be read), a loop from 1, and a body with other work.
// CHECK-LABEL: @odd_count
// CHECK-NOT: tile.widened_k
// CHECK-LABEL: @from_one
// CHECK-NOT: tile.widened_k
// CHECK-LABEL: @more_work
// CHECK-NOT: tile.widened_k
func.func @odd_count(%a: !tile.array<f16, array<i64: -1, 1>, 16 : i64>,
                     %b: !tile.array<f16, array<i64: -1, 1>, 16 : i64>,
                     %i: i32, %j: i32, %acc0: tensor<128x128xf32>) -> tensor<128x128xf32> attributes {tile.num_warps = 8 : i32} {
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %count = "tile.constant"() {value = 3 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %res = scf.for %k = %lb to %count step %step iter_args(%acc = %acc0) -> (tensor<128x128xf32>) : i32 {
    %x = "tile.load"(%a, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x32xf16>
    %y = "tile.load"(%b, %k, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<32x128xf16>
    %s = "tile.mma"(%x, %y, %acc) : (tensor<128x32xf16>, tensor<32x128xf16>, tensor<128x128xf32>) -> tensor<128x128xf32>
    scf.yield %s : tensor<128x128xf32>
  }
  return %res : tensor<128x128xf32>
}

func.func @from_one(%a: !tile.array<f16, array<i64: -1, 1>, 16 : i64>,
                    %b: !tile.array<f16, array<i64: -1, 1>, 16 : i64>,
                    %i: i32, %j: i32, %acc0: tensor<128x128xf32>) -> tensor<128x128xf32> attributes {tile.num_warps = 8 : i32} {
  %lb = "tile.constant"() {value = 1 : i32} : () -> i32
  %count = "tile.constant"() {value = 4 : i32} : () -> i32
  %res = scf.for %k = %lb to %count step %lb iter_args(%acc = %acc0) -> (tensor<128x128xf32>) : i32 {
    %x = "tile.load"(%a, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x32xf16>
    %y = "tile.load"(%b, %k, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<32x128xf16>
    %s = "tile.mma"(%x, %y, %acc) : (tensor<128x32xf16>, tensor<32x128xf16>, tensor<128x128xf32>) -> tensor<128x128xf32>
    scf.yield %s : tensor<128x128xf32>
  }
  return %res : tensor<128x128xf32>
}

func.func @more_work(%a: !tile.array<f16, array<i64: -1, 1>, 16 : i64>,
                     %b: !tile.array<f16, array<i64: -1, 1>, 16 : i64>,
                     %i: i32, %j: i32, %acc0: tensor<128x128xf32>) -> tensor<128x128xf32> attributes {tile.num_warps = 8 : i32} {
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %count = "tile.constant"() {value = 4 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %res = scf.for %k = %lb to %count step %step iter_args(%acc = %acc0) -> (tensor<128x128xf32>) : i32 {
    %x = "tile.load"(%a, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x32xf16>
    %x2 = "tile.add"(%x, %x) : (tensor<128x32xf16>, tensor<128x32xf16>) -> tensor<128x32xf16>
    %y = "tile.load"(%b, %k, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<32x128xf16>
    %s = "tile.mma"(%x2, %y, %acc) : (tensor<128x32xf16>, tensor<32x128xf16>, tensor<128x128xf32>) -> tensor<128x128xf32>
    scf.yield %s : tensor<128x128xf32>
  }
  return %res : tensor<128x128xf32>
}
