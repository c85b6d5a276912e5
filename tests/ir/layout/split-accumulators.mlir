// RUN: tilelang-opt %s --split-input-file -p 'tile-split-accumulators' | filecheck %s

// A K loop whose 128x256 float32 accumulator would take 256 registers a thread of 4 warps:
// two column blocks of 128x128, one after the other, B and C indexed 2 * j + h.
// The blocks' index is computed once, before the K loop, whose body stays a plain K loop.
// CHECK-LABEL: @k_loop
// CHECK: [[TWO:%[0-9a-z]+]] = "tile.constant"() {value = 2 : i32}
// CHECK: scf.for [[H:%arg[0-9]+]] = {{%[0-9a-z]+}} to [[TWO]] step
// CHECK: [[S:%[0-9a-z]+]] = "tile.mul"(%arg4, {{%[0-9a-z]+}})
// CHECK-NEXT: [[J:%[0-9a-z]+]] = "tile.add"([[S]], [[H]])
// CHECK-NEXT: "tile.splat"({{.*}}) : (f32) -> tensor<128x128xf32>
// CHECK-NEXT: scf.for {{.*}} -> (tensor<128x128xf32>)
// CHECK-NEXT: "tile.load"(%arg0, {{.*}}) -> tensor<128x32xf16>
// CHECK-NEXT: "tile.load"(%arg1, {{%arg[0-9]+}}, [[J]]) {{.*}} -> tensor<32x128xf16>
// CHECK-NEXT: "tile.mma"({{.*}}) {tile.accumulator_split = array<i64: 128, 256, 2>} : (tensor<128x32xf16>, tensor<32x128xf16>, tensor<128x128xf32>) -> tensor<128x128xf32>
// CHECK: "tile.cast"({{.*}}) : (tensor<128x128xf32>) -> tensor<128x128xf16>
// CHECK-NEXT: "tile.store"(%arg2, %arg3, [[J]], {{%[0-9a-z]+}}) {{.*}} tensor<128x128xf16>) -> ()
// CHECK-NEXT: } {tile.column_blocks = 2 : i32}
// CHECK-NOT: tensor<128x256xf32>
func.func @k_loop(%a: !tile.array<f16, array<i64: -1, 1>, 16 : i64>,
                  %b: !tile.array<f16, array<i64: -1, 1>, 16 : i64>,
                  %c: !tile.array<f16, array<i64: -1, 1>, 16 : i64>,
                  %i: i32, %j: i32, %n: i32) attributes {tile.num_warps = 4 : i32} {
  %zero = "tile.constant"() {value = 0.000000e+00 : f32} : () -> f32
  %acc0 = "tile.splat"(%zero) : (f32) -> tensor<128x256xf32>
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<128x256xf32>) : i32 {
    %x = "tile.load"(%a, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x32xf16>
    %y = "tile.load"(%b, %k, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<32x256xf16>
    %s = "tile.mma"(%x, %y, %acc) : (tensor<128x32xf16>, tensor<32x256xf16>, tensor<128x256xf32>) -> tensor<128x256xf32>
    scf.yield %s : tensor<128x256xf32>
  }
  %h = "tile.cast"(%r) : (tensor<128x256xf32>) -> tensor<128x256xf16>
  "tile.store"(%c, %i, %j, %h) {order = array<i64: 0, 1>} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<128x256xf16>) -> ()
  return
}

// -----

// An epilogue adding a bias row (loaded after the loop, broadcast over the rows): the bias
// is loaded a column block at a time too; the 3-d store through a reshape as well.
// CHECK-LABEL: @bias_epilogue
// CHECK: scf.for [[H:%arg[0-9]+]] =
// CHECK: [[J:%[0-9a-z]+]] = "tile.add"({{%[0-9a-z]+}}, [[H]])
// CHECK: scf.for {{.*}} -> (tensor<128x128xf32>)
// CHECK: "tile.load"(%arg3, [[J]]) {{.*}} -> tensor<128xf32>
// CHECK-NEXT: "tile.reshape"({{.*}}) : (tensor<128xf32>) -> tensor<1x128xf32>
// CHECK-NEXT: "tile.broadcast"({{.*}}) : (tensor<1x128xf32>) -> tensor<128x128xf32>
// CHECK-NEXT: "tile.add"({{.*}}) : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
// CHECK-NEXT: "tile.reshape"({{.*}}) : (tensor<128x128xf32>) -> tensor<1x128x128xf32>
// CHECK: "tile.store"(%arg2, {{.*}}) {{.*}} tensor<1x128x128xf32>) -> ()
func.func @bias_epilogue(%a: !tile.array<f16, array<i64: -1, 1>, 16 : i64>,
                         %b: !tile.array<f16, array<i64: -1, 1>, 16 : i64>,
                         %c: !tile.array<f32, array<i64: -1, -1, 1>, 16 : i64>,
                         %bias: !tile.array<f32, array<i64: 1>, 16 : i64>,
                         %i: i32, %j: i32, %n: i32) attributes {tile.num_warps = 4 : i32} {
  %zero = "tile.constant"() {value = 0.000000e+00 : f32} : () -> f32
  %acc0 = "tile.splat"(%zero) : (f32) -> tensor<128x256xf32>
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<128x256xf32>) : i32 {
    %x = "tile.load"(%a, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x32xf16>
    %y = "tile.load"(%b, %k, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<32x256xf16>
    %s = "tile.mma"(%x, %y, %acc) : (tensor<128x32xf16>, tensor<32x256xf16>, tensor<128x256xf32>) -> tensor<128x256xf32>
    scf.yield %s : tensor<128x256xf32>
  }
  %v = "tile.load"(%bias, %j) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<256xf32>
  %row = "tile.reshape"(%v) : (tensor<256xf32>) -> tensor<1x256xf32>
  %rows = "tile.broadcast"(%row) : (tensor<1x256xf32>) -> tensor<128x256xf32>
  %sum = "tile.add"(%r, %rows) : (tensor<128x256xf32>, tensor<128x256xf32>) -> tensor<128x256xf32>
  %out = "tile.reshape"(%sum) : (tensor<128x256xf32>) -> tensor<1x128x256xf32>
  %zi = "tile.constant"() {value = 0 : i32} : () -> i32
  "tile.store"(%c, %zi, %i, %j, %out) {order = array<i64: 0, 1, 2>} : (!tile.array<f32, array<i64: -1, -1, 1>, 16 : i64>, i32, i32, i32, tensor<1x128x256xf32>) -> ()
  return
}

// -----

// Left alone: an accumulator that fits (128x256 on 8 warps: 128 registers a thread).
// CHECK-LABEL: @fits
// CHECK-NOT: tile.accumulator_split
// CHECK: tensor<128x256xf32>
func.func @fits(%a: !tile.array<f16, array<i64: -1, 1>, 16 : i64>,
                %b: !tile.array<f16, array<i64: -1, 1>, 16 : i64>,
                %c: !tile.array<f32, array<i64: -1, 1>, 16 : i64>,
                %i: i32, %j: i32, %n: i32) attributes {tile.num_warps = 8 : i32} {
  %zero = "tile.constant"() {value = 0.000000e+00 : f32} : () -> f32
  %acc0 = "tile.splat"(%zero) : (f32) -> tensor<128x256xf32>
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<128x256xf32>) : i32 {
    %x = "tile.load"(%a, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x32xf16>
    %y = "tile.load"(%b, %k, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<32x256xf16>
    %s = "tile.mma"(%x, %y, %acc) : (tensor<128x32xf16>, tensor<32x256xf16>, tensor<128x256xf32>) -> tensor<128x256xf32>
    scf.yield %s : tensor<128x256xf32>
  }
  "tile.store"(%c, %i, %j, %r) {order = array<i64: 0, 1>} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<128x256xf32>) -> ()
  return
}

// -----

// Left alone: the result is also summed over its columns (a column block does not have them
// all), and the function returns it.
// CHECK-LABEL: @whole_rows
// CHECK-NOT: tile.accumulator_split
// CHECK: tensor<128x256xf32>
func.func @whole_rows(%a: !tile.array<f16, array<i64: -1, 1>, 16 : i64>,
                      %b: !tile.array<f16, array<i64: -1, 1>, 16 : i64>,
                      %c: !tile.array<f32, array<i64: -1, 1>, 16 : i64>,
                      %i: i32, %j: i32, %n: i32) -> tensor<128x256xf32> attributes {tile.num_warps = 4 : i32} {
  %zero = "tile.constant"() {value = 0.000000e+00 : f32} : () -> f32
  %acc0 = "tile.splat"(%zero) : (f32) -> tensor<128x256xf32>
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<128x256xf32>) : i32 {
    %x = "tile.load"(%a, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x32xf16>
    %y = "tile.load"(%b, %k, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<32x256xf16>
    %s = "tile.mma"(%x, %y, %acc) : (tensor<128x32xf16>, tensor<32x256xf16>, tensor<128x256xf32>) -> tensor<128x256xf32>
    scf.yield %s : tensor<128x256xf32>
  }
  "tile.store"(%c, %i, %j, %r) {order = array<i64: 0, 1>} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<128x256xf32>) -> ()
  return %r : tensor<128x256xf32>
}

// -----

// Left alone: a store between the loop and the epilogue's store (the blocks would move the
// second store's reads and writes past it).
// CHECK-LABEL: @store_between
// CHECK-NOT: tile.accumulator_split
func.func @store_between(%a: !tile.array<f16, array<i64: -1, 1>, 16 : i64>,
                         %b: !tile.array<f16, array<i64: -1, 1>, 16 : i64>,
                         %c: !tile.array<f32, array<i64: -1, 1>, 16 : i64>,
                         %d: !tile.array<f32, array<i64: -1, 1>, 16 : i64>,
                         %i: i32, %j: i32, %n: i32, %t: tensor<16x16xf32>) attributes {tile.num_warps = 4 : i32} {
  %zero = "tile.constant"() {value = 0.000000e+00 : f32} : () -> f32
  %acc0 = "tile.splat"(%zero) : (f32) -> tensor<128x256xf32>
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<128x256xf32>) : i32 {
    %x = "tile.load"(%a, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x32xf16>
    %y = "tile.load"(%b, %k, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<32x256xf16>
    %s = "tile.mma"(%x, %y, %acc) : (tensor<128x32xf16>, tensor<32x256xf16>, tensor<128x256xf32>) -> tensor<128x256xf32>
    scf.yield %s : tensor<128x256xf32>
  }
  "tile.store"(%d, %i, %j, %t) {order = array<i64: 0, 1>} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<16x16xf32>) -> ()
  "tile.store"(%c, %i, %j, %r) {order = array<i64: 0, 1>} : (!tile.array<f32, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<128x256xf32>) -> ()
  return
}

// -----

// Left alone: the result is stored into the array A is read from (in place: the second block
// would read what the first stored).
// CHECK-LABEL: @in_place
// CHECK-NOT: tile.accumulator_split
func.func @in_place(%a: !tile.array<f16, array<i64: -1, 1>, 16 : i64>,
                    %b: !tile.array<f16, array<i64: -1, 1>, 16 : i64>,
                    %i: i32, %j: i32, %n: i32) attributes {tile.num_warps = 4 : i32} {
  %zero = "tile.constant"() {value = 0.000000e+00 : f32} : () -> f32
  %acc0 = "tile.splat"(%zero) : (f32) -> tensor<128x256xf32>
  %lb = "tile.constant"() {value = 0 : i32} : () -> i32
  %step = "tile.constant"() {value = 1 : i32} : () -> i32
  %r = scf.for %k = %lb to %n step %step iter_args(%acc = %acc0) -> (tensor<128x256xf32>) : i32 {
    %x = "tile.load"(%a, %i, %k) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<128x32xf16>
    %y = "tile.load"(%b, %k, %j) {order = array<i64: 0, 1>, padding_mode = "zero"} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32) -> tensor<32x256xf16>
    %s = "tile.mma"(%x, %y, %acc) : (tensor<128x32xf16>, tensor<32x256xf16>, tensor<128x256xf32>) -> tensor<128x256xf32>
    scf.yield %s : tensor<128x256xf32>
  }
  %h = "tile.cast"(%r) : (tensor<128x256xf32>) -> tensor<128x256xf16>
  "tile.store"(%a, %i, %j, %h) {order = array<i64: 0, 1>} : (!tile.array<f16, array<i64: -1, 1>, 16 : i64>, i32, i32, tensor<128x256xf16>) -> ()
  return
}
