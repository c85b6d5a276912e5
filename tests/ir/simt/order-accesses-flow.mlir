// RUN: tilelang-opt %s --split-input-file -p tile-order-accesses | filecheck %s

// cuTile's layer-norm backward: a lock's critical section in a loop. The acquire needs a
// barrier (the release of the iteration before wrote the lock); the loads of dw and db follow
// it, so none of their own (their arrays' last writes are before it); the store of dw follows
// the block's loads of dw: a barrier, which also orders the loads of db before the store of db
// and the lock's first access before its release. Two barriers where program order put six.
// CHECK-LABEL: func.func @critical_section
// CHECK: "tile.atomic_cas"({{.*}}tile.barrier_before
// CHECK: "tile.load"(%arg1, {{.*}}) {order = array<i64: 0>, padding_mode = "zero"} :
// CHECK: "tile.load"(%arg2, {{.*}}) {order = array<i64: 0>, padding_mode = "zero"} :
// CHECK: "tile.store"(%arg1, {{.*}}) {order = array<i64: 0>, tile.barrier_before}
// CHECK: "tile.store"(%arg2, {{.*}}) {order = array<i64: 0>} :
// CHECK: "tile.atomic_rmw"({{.*}}) {check_bounds = true, kind = "xchg", memory_order = "release", memory_scope = "device"} :
func.func @critical_section(%locks: !tile.array<i32, array<i64: 1>, 16 : i64>,
                            %dw: !tile.array<f32, array<i64: 1>, 16 : i64>,
                            %db: !tile.array<f32, array<i64: 1>, 16 : i64>,
                            %n: i32, %t: tensor<128xf32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = "tile.constant"() {value = 0 : i32} : () -> i32
  %c1 = "tile.constant"() {value = 1 : i32} : () -> i32
  scf.for %j = %c0 to %n step %c1 : i32 {
    %old = "tile.atomic_cas"(%locks, %c0, %c0, %c1) {check_bounds = true, memory_order = "acquire", memory_scope = "device"} : (!tile.array<i32, array<i64: 1>, 16 : i64>, i32, i32, i32) -> i32
    %w = "tile.load"(%dw, %j) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<128xf32>
    %b = "tile.load"(%db, %j) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<128xf32>
    %w2 = "tile.add"(%w, %t) : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
    %b2 = "tile.add"(%b, %t) : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
    "tile.store"(%dw, %j, %w2) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<128xf32>) -> ()
    "tile.store"(%db, %j, %b2) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<128xf32>) -> ()
    %o = "tile.atomic_rmw"(%locks, %c0, %c0) {check_bounds = true, kind = "xchg", memory_order = "release", memory_scope = "device"} : (!tile.array<i32, array<i64: 1>, 16 : i64>, i32, i32) -> i32
  }
  return
}

// -----

// Reads after reads need no barrier, even of an array stored to later; the store does (other
// threads' loads of its elements come first). A branch that may not run leaves what was
// pending before it pending after it.
// CHECK-LABEL: func.func @reads_then_a_store
// CHECK: "tile.load"(%arg0, {{.*}}) {order = array<i64: 0>, padding_mode = "zero"} :
// CHECK: "tile.load"(%arg0, {{.*}}) {order = array<i64: 0>, padding_mode = "zero"} :
// CHECK: scf.if
// CHECK: "tile.store"(%arg0, {{.*}}) {order = array<i64: 0>, tile.barrier_before}
// CHECK: "tile.load"(%arg0, {{.*}}) {order = array<i64: 0>, padding_mode = "zero", tile.barrier_before}
func.func @reads_then_a_store(%x: !tile.array<f32, array<i64: 1>, 16 : i64>, %c: i1) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = "tile.constant"() {value = 0 : i32} : () -> i32
  %c1 = "tile.constant"() {value = 1 : i32} : () -> i32
  %a = "tile.load"(%x, %c0) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<128xf32>
  %b = "tile.load"(%x, %c1) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<128xf32>
  %s = "tile.add"(%a, %b) : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
  scf.if %c {
    "tile.store"(%x, %c0, %s) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<128xf32>) -> ()
  }
  %d = "tile.load"(%x, %c0) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<128xf32>
  return
}

// -----

// In a kernel with a matrix product a barrier does not end what is pending (a staged loop's
// loads are lowered through rings, without their barriers): the load of y gets its own
// although the load of x just before it has one.
// CHECK-LABEL: func.func @with_a_product
// CHECK: "tile.load"(%arg0, {{.*}}) {order = array<i64: 0>, padding_mode = "zero", tile.barrier_before}
// CHECK: "tile.load"(%arg1, {{.*}}) {order = array<i64: 0>, padding_mode = "zero", tile.barrier_before}
func.func @with_a_product(%x: !tile.array<f32, array<i64: 1>, 16 : i64>,
                          %y: !tile.array<f32, array<i64: 1>, 16 : i64>,
                          %t: tensor<128xf32>, %p: tensor<16x16xf16>, %acc: tensor<16x16xf32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = "tile.constant"() {value = 0 : i32} : () -> i32
  "tile.store"(%x, %c0, %t) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<128xf32>) -> ()
  "tile.store"(%y, %c0, %t) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<128xf32>) -> ()
  %a = "tile.load"(%x, %c0) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<128xf32>
  %b = "tile.load"(%y, %c0) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<128xf32>
  %m = "tile.mma"(%p, %p, %acc) : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return
}

// -----

// An scf.while leaves after its condition's region: what that region accessed since the last
// barrier is pending after the loop even when the body's first access always takes a barrier
// (here the load of y, which the store before the loop wrote). The store of x after the loop
// follows the other threads' loads of x in the condition: a barrier.
// CHECK-LABEL: func.func @while_exit
// CHECK: scf.while
// CHECK: "tile.load"(%arg0, {{.*}}) {order = array<i64: 0>, padding_mode = "zero"} :
// CHECK: "tile.load"(%arg1, {{.*}}) {order = array<i64: 0>, padding_mode = "zero", tile.barrier_before}
// CHECK: "tile.store"(%arg0, {{.*}}) {order = array<i64: 0>, tile.barrier_before}
func.func @while_exit(%x: !tile.array<f32, array<i64: 1>, 16 : i64>,
                      %y: !tile.array<f32, array<i64: 1>, 16 : i64>,
                      %t: tensor<128xf32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = "tile.constant"() {value = 0 : i32} : () -> i32
  %c1 = "tile.constant"() {value = 1 : i32} : () -> i32
  "tile.store"(%y, %c0, %t) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<128xf32>) -> ()
  %r = scf.while (%i = %c0) : (i32) -> i32 {
    %a = "tile.load"(%x, %i) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<128xf32>
    %go = "tile.cmp"(%i, %n) {predicate = "lt"} : (i32, i32) -> i1
    scf.condition(%go) %i : i32
  } do {
  ^bb0(%j: i32):
    %b = "tile.load"(%y, %j) {order = array<i64: 0>, padding_mode = "zero"} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32) -> tensor<128xf32>
    %k = "tile.add"(%j, %c1) : (i32, i32) -> i32
    scf.yield %k : i32
  }
  "tile.store"(%x, %c0, %t) {order = array<i64: 0>} : (!tile.array<f32, array<i64: 1>, 16 : i64>, i32, tensor<128xf32>) -> ()
  return
}
