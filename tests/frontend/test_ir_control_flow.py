"""`tile` IR of for/if/while with carried variables, inlined helpers, Constant parameters and
the folding of loose constants."""
# ruff: noqa: B015, B018  (kernels written to exercise the compiler)

from __future__ import annotations

import math

import numpy as np

import tilelang as ct
from tilelang.testing import filecheck

# ----- for -------------------------------------------------------------------------------------


def test_for_with_carried_variables(fe):
    @ct.kernel
    def k(a, n):
        acc = ct.zeros((16,), ct.float32)
        s = 0
        for i in range(n):
            acc = acc + ct.load(a, (i,), (16,))
            s += i
        ct.store(a, (0,), acc + s)

    # CHECK: [[ACC0:%.+]] = "tile.splat"({{%.+}}) : (f32) -> tensor<16xf32>
    # CHECK: [[LB:%.+]] = "tile.constant"() {value = 0 : i32}
    # CHECK-NEXT: [[ST:%.+]] = "tile.constant"() {value = 1 : i32}
    # CHECK-NEXT: [[S0:%.+]] = "tile.constant"() {value = 0 : i32}
    # CHECK-NEXT: [[R:%.+]]:2 = scf.for [[I:%.+]] = [[LB]] to %arg1 step [[ST]]
    # CHECK-SAME: iter_args([[ACC:%.+]] = [[ACC0]], [[S:%.+]] = [[S0]]) -> (tensor<16xf32>, i32)
    # CHECK-NEXT: [[T:%.+]] = "tile.load"(%arg0, [[I]])
    # CHECK-NEXT: [[ACC1:%.+]] = "tile.add"([[ACC]], [[T]])
    # CHECK-NEXT: [[S1:%.+]] = "tile.add"([[S]], [[I]]) : (i32, i32) -> i32
    # CHECK-NEXT: scf.yield [[ACC1]], [[S1]] : tensor<16xf32>, i32
    # CHECK: "tile.cast"([[R]]#1) : (i32) -> f32
    # CHECK: "tile.add"([[R]]#0,
    filecheck(fe.tile_ir(k, fe.array(), 4))


def test_for_loose_accumulator_takes_the_tile_shape(fe):
    @ct.kernel
    def int_start(a, n):
        acc = 0
        for i in range(n):
            acc += ct.load(a, (i, 0), (4, 8))
        ct.store(a, (0, 0), acc)

    @ct.kernel
    def float_start(a, out, n):
        acc = 0.0
        for i in range(n):
            acc += ct.load(a, (i, 0), (4, 8))
        ct.store(out, (0, 0), acc)

    # A loose initial value is carried with the shape the body gives it; its dtype promotes as
    # in the body: 0 is an int32 scalar there, 0.0 a float32 scalar (float32 + float16 ->
    # float32). An int the body makes a float is an error (test_errors_merged.py).
    filecheck(fe.tile_ir(int_start, fe.array(np.int32, (16, 16)), 4), """
        CHECK: [[Z:%.+]] = "tile.splat"({{%.+}}) : (i32) -> tensor<4x8xi32>
        CHECK: scf.for {{.*}} iter_args({{%.+}} = [[Z]]) -> (tensor<4x8xi32>)
    """)
    x, out = fe.array(np.float16, (16, 16)), fe.array(np.float32, (16, 16))
    filecheck(fe.tile_ir(float_start, x, out, 4), """
        CHECK: [[Z:%.+]] = "tile.splat"({{%.+}}) : (f32) -> tensor<4x8xf32>
        CHECK: scf.for {{.*}} iter_args({{%.+}} = [[Z]]) -> (tensor<4x8xf32>)
    """)


def test_for_with_int64_bounds(fe):
    @ct.kernel
    def k(a, n):
        for i in range(n):
            ct.store(a, (i,), 1)

    # CHECK: scf.for {{%.+}} = {{%.+}} to %arg1 step {{%.+}} : i64
    filecheck(fe.tile_ir(k, fe.array(np.int32), 2**40))


def test_for_over_constant_tuple_unrolls(fe):
    @ct.kernel
    def k(a):
        for v in (1, 2.5):
            ct.store(a, (0,), v)

    # CHECK-NOT: scf.for
    # CHECK: "tile.constant"() {value = 1.000000e+00 : f32}
    # CHECK: "tile.store"
    # CHECK: "tile.constant"() {value = 2.500000e+00 : f32}
    # CHECK: "tile.store"
    filecheck(fe.tile_ir(k, fe.array()))


def test_nested_loops(fe):
    @ct.kernel
    def k(a, n, m):
        acc = 0
        for i in range(n):
            for j in range(i, m):
                acc += j
        ct.store(a, (0,), acc)

    # CHECK: [[OUTER:%.+]] = scf.for [[I:%.+]] = {{.*}} iter_args([[A:%.+]] = {{%.+}}) -> (i32)
    # CHECK: [[INNER:%.+]] = scf.for [[J:%.+]] = [[I]] to %arg2 {{.*}} iter_args([[B:%.+]] = [[A]])
    # CHECK-NEXT: [[SUM:%.+]] = "tile.add"([[B]], [[J]])
    # CHECK-NEXT: scf.yield [[SUM]] : i32
    # CHECK: scf.yield [[INNER]] : i32
    # CHECK: "tile.splat"([[OUTER]]) : (i32) -> tensor<1xi32>
    filecheck(fe.tile_ir(k, fe.array(np.int32), 3, 5))


# ----- if --------------------------------------------------------------------------------------


def test_runtime_if_with_results(fe):
    @ct.kernel
    def k(a):
        x = ct.load(a, (0,), (16,))
        if ct.bid(0) > 3:
            y = x + 1
        else:
            y = x - 1
        ct.store(a, (0,), y)

    # CHECK: [[C:%.+]] = "tile.cmp"({{.*}}) {predicate = "gt"}
    # CHECK-NEXT: [[Y:%.+]] = scf.if [[C]] -> (tensor<16xf32>) {
    # CHECK: [[P:%.+]] = "tile.add"
    # CHECK-NEXT: scf.yield [[P]] : tensor<16xf32>
    # CHECK-NEXT: } else {
    # CHECK: [[M:%.+]] = "tile.sub"
    # CHECK-NEXT: scf.yield [[M]] : tensor<16xf32>
    # CHECK: "tile.store"(%arg0, {{%.+}}, [[Y]])
    filecheck(fe.tile_ir(k, fe.array()))


def test_if_without_else_carries_the_old_value(fe):
    @ct.kernel
    def k(a):
        y = 0.0
        if ct.bid(0) > 0:
            y = 1.5
        ct.store(a, (0,), y)

    # CHECK: [[Y:%.+]] = scf.if {{%.+}} -> (f32) {
    # CHECK-NEXT: [[A:%.+]] = "tile.constant"() {value = 1.500000e+00 : f32}
    # CHECK-NEXT: scf.yield [[A]] : f32
    # CHECK-NEXT: } else {
    # CHECK-NEXT: [[B:%.+]] = "tile.constant"() {value = 0.000000e+00 : f32}
    # CHECK-NEXT: scf.yield [[B]] : f32
    # CHECK: "tile.splat"([[Y]])
    filecheck(fe.tile_ir(k, fe.array()))


def test_if_join_is_symmetric(fe):
    @ct.kernel
    def then_wider(a):
        x = ct.zeros((4,), ct.int32)
        if ct.bid(0) > 0:
            x = ct.zeros((4,), ct.float32)
        ct.store(a, (0,), x)

    @ct.kernel
    def else_wider(a):
        x = ct.zeros((4,), ct.float32)
        if ct.bid(0) > 0:
            x = ct.zeros((4,), ct.int32)
        ct.store(a, (0,), x)

    @ct.kernel
    def loose_first(a):
        x = 1.5
        if ct.bid(0) > 0:
            x = ct.zeros((4,), ct.int32)
        ct.store(a, (0,), x)

    # Whichever branch holds the wider type, the `if` yields it.
    for kernel in (then_wider, else_wider, loose_first):
        ir = fe.tile_ir(kernel, fe.array())
        filecheck(ir, """
            CHECK: scf.if {{%.+}} -> (tensor<4xf32>)
            CHECK: "tile.cast"({{%.+}}) : (tensor<4xi32>) -> tensor<4xf32>
        """)


def test_compile_time_if_emits_one_branch(fe):
    @ct.kernel
    def k(a, B: ct.Constant[int]):
        if B > 8:
            ct.store(a, (0,), 1)
        elif B > 4:
            ct.store(a, (0,), 2)
        else:
            ct.store(a, (0,), 3)

    # CHECK-NOT: scf.if
    # CHECK: "tile.constant"() {value = 2 : i32}
    # CHECK-NOT: "tile.constant"() {value = 1 : i32}
    # CHECK-NOT: "tile.constant"() {value = 3 : i32}
    filecheck(fe.tile_ir(k, fe.array(np.int32), 8))


def test_if_inside_loop_updates_carried_variable(fe):
    @ct.kernel
    def k(a, n):
        acc = 0
        for i in range(n):
            if i > 1:
                acc = acc + i
        ct.store(a, (0,), acc)

    # The loop yields the `if`'s result, not the value the body started with.
    # CHECK: [[L:%.+]] = scf.for {{.*}} iter_args([[A:%.+]] = {{%.+}}) -> (i32)
    # CHECK: [[R:%.+]] = scf.if {{%.+}} -> (i32)
    # CHECK: scf.yield [[A]] : i32
    # CHECK-NEXT: }
    # CHECK-NEXT: scf.yield [[R]] : i32
    # CHECK: "tile.splat"([[L]])
    filecheck(fe.tile_ir(k, fe.array(np.int32), 4))


# ----- while -----------------------------------------------------------------------------------


def test_while_with_carried_variables(fe):
    @ct.kernel
    def k(a, n):
        i = 0
        x = 1.0
        while i < n:
            i = i + 1
            x = x * 2
        ct.store(a, (0,), x)

    # CHECK: [[I0:%.+]] = "tile.constant"() {value = 0 : i32}
    # CHECK-NEXT: [[X0:%.+]] = "tile.constant"() {value = 1.000000e+00 : f32}
    # CHECK-NEXT: [[R:%.+]]:2 = scf.while ([[I:%.+]] = [[I0]], [[X:%.+]] = [[X0]])
    # CHECK-SAME: : (i32, f32) -> (i32, f32) {
    # CHECK-NEXT: [[C:%.+]] = "tile.cmp"([[I]], %arg1) {predicate = "lt"}
    # CHECK-NEXT: scf.condition([[C]]) [[I]], [[X]] : i32, f32
    # CHECK-NEXT: } do {
    # CHECK-NEXT: ^bb0([[I2:%.+]]: i32, [[X2:%.+]]: f32):
    # CHECK: [[IN:%.+]] = "tile.add"([[I2]],
    # CHECK: [[XN:%.+]] = "tile.mul"([[X2]],
    # CHECK-NEXT: scf.yield [[IN]], [[XN]] : i32, f32
    # CHECK: "tile.splat"([[R]]#1)
    filecheck(fe.tile_ir(k, fe.array(), 5))


# ----- helpers ---------------------------------------------------------------------------------


def _scale(t, factor=2):
    return t * factor


def _split(t):
    return t + 1, t - 1


def test_helper_is_inlined(fe):
    @ct.kernel
    def k(a):
        lo, hi = _split(_scale(ct.load(a, (0,), (16,))))
        ct.store(a, (0,), lo * hi)

    # CHECK-NOT: func.call
    # CHECK: [[T:%.+]] = "tile.load"
    # CHECK: [[S:%.+]] = "tile.mul"([[T]],
    # CHECK: [[LO:%.+]] = "tile.add"([[S]],
    # CHECK: [[HI:%.+]] = "tile.sub"([[S]],
    # CHECK-NEXT: "tile.mul"([[LO]], [[HI]])
    # CHECK-NOT: func.func
    filecheck(fe.tile_ir(k, fe.array()))


def test_helper_with_keyword_and_closure(fe):
    offset = 3

    def shift(t, *, by):
        return t + (by + offset)

    @ct.kernel
    def k(a):
        ct.store(a, (0,), shift(ct.load(a, (0,), (16,)), by=4))

    # Constants from the call, the helper and its closure fold before touching the tile.
    # CHECK: "tile.constant"() {value = 7 : i32}
    # CHECK-NOT: "tile.constant"() {value = 3 : i32}
    filecheck(fe.tile_ir(k, fe.array(np.int32)))


def test_helper_with_early_compile_time_return(fe):
    def pick(t, B):
        if B > 8:
            return t * 2
        return t * 3

    @ct.kernel
    def k(a, B: ct.Constant[int]):
        ct.store(a, (0,), pick(ct.load(a, (0,), (16,)), B))

    # CHECK: "tile.constant"() {value = 2 : i32}
    # CHECK-NOT: "tile.constant"() {value = 3 : i32}
    filecheck(fe.tile_ir(k, fe.array(np.int32), 16))


# ----- Constant parameters and folding ---------------------------------------------------------


def test_constant_parameters_are_embedded(fe):
    @ct.kernel
    def k(a, BLOCK: ct.Constant[int], SCALE: ct.Constant[float], FLAG: ct.Constant):
        t = ct.load(a, (0,), (BLOCK,)) * SCALE
        if FLAG:
            t = t + BLOCK
        ct.store(a, (0,), t)

    # CHECK: func.func @k(%arg0: {{[^)]*}}) attributes
    # CHECK: "tile.load"{{.*}} -> tensor<32xf32>
    # CHECK: "tile.constant"() {value = 5.000000e-01 : f32}
    # CHECK-NOT: scf.if
    # CHECK: "tile.constant"() {value = 3.200000e+01 : f32}
    filecheck(fe.tile_ir(k, fe.array(), 32, 0.5, True))


def test_each_constant_value_is_a_specialization(fe):
    @ct.kernel
    def k(a, BLOCK: ct.Constant[int]):
        ct.store(a, (0,), ct.load(a, (0,), (BLOCK,)))

    assert "tensor<16xf32>" in fe.tile_ir(k, fe.array(), 16)
    assert "tensor<64xf32>" in fe.tile_ir(k, fe.array(), 64)


def test_loose_constants_fold(fe):
    @ct.kernel
    def k(a, B: ct.Constant[int]):
        ct.store(a, (0,), ct.load(a, (0,), (16,)) + ((2 * B + 1) // 3 - 7 % -3 + 2**B))

    # (2 * 4 + 1) // 3 == 3, 7 % -3 == -2 (Python semantics), 2 ** 4 == 16: all folded.
    # CHECK: [[T:%.+]] = "tile.load"
    # CHECK-NEXT: [[C:%.+]] = "tile.constant"() {value = 21 : i32}
    # CHECK-NEXT: [[S:%.+]] = "tile.splat"([[C]])
    # CHECK-NEXT: [[R:%.+]] = "tile.add"([[T]], [[S]])
    # CHECK-NEXT: [[I:%.+]] = "tile.constant"() {value = 0 : i32}
    # CHECK-NEXT: "tile.store"(%arg0, [[I]], [[R]])
    filecheck(fe.tile_ir(k, fe.array(np.int32), 4))


def test_loose_float_folding_and_python_functions(fe):
    @ct.kernel
    def k(a):
        x = 7 / 2 + math.sqrt(16.0) + max(1, 2) + min(3.0, 4) + abs(-1) + len((1, 2))
        ct.store(a, (0,), x)

    # CHECK: "tile.constant"() {value = 1.550000e+01 : f32}
    # CHECK-NOT: "tile.add"
    filecheck(fe.tile_ir(k, fe.array()))


def test_constant_expression_statement_emits_nothing(fe):
    @ct.kernel
    def k(a, B: ct.Constant[int]):
        x = B * 4 + 1
        y = x if x > 10 else -x
        not y
        B < 3 < x

    # CHECK: func.func @k
    # CHECK-NEXT: return
    filecheck(fe.tile_ir(k, fe.array(), 4))
