"""`tile` IR of `break`, `continue` and `return` under run-time control flow, and of values
(tuples, arrays) carried through it."""
# ruff: noqa: B007  (kernels written to exercise the compiler)

from __future__ import annotations

import numpy as np

import tilelang as ct
from tilelang.testing import filecheck


def test_break_in_for_makes_a_while_loop_with_a_counter_and_a_flag(fe):
    @ct.kernel
    def k(a, n):
        acc = ct.zeros((16,), ct.float32)
        for i in range(n):
            if i == 3:
                break
            acc += ct.load(a, (i,), (16,))
        ct.store(a, (0,), acc)

    # The loop runs while the flag is clear and i < n; the branch that breaks sets the flag,
    # the rest of the body moved into the other branch; the counter steps after the body.
    filecheck(fe.tile_ir(k, fe.array(), 8), """
        CHECK: [[F0:%.+]] = "tile.constant"() {value = false} : () -> i1
        CHECK: [[R:%.+]]:3 = scf.while ([[I:%[a-z0-9]+]] = {{%[0-9]+}},
        CHECK-SAME: [[ACC:%[a-z0-9]+]] = {{%[0-9]+}}, [[F:%[a-z0-9]+]] = [[F0]])
        CHECK-SAME: : (i32, tensor<16xf32>, i1)
        CHECK-NEXT: [[GO:%.+]] = "tile.invert"([[F]]) : (i1) -> i1
        CHECK-NEXT: [[LT:%.+]] = "tile.cmp"([[I]], %arg1) {predicate = "lt"}
        CHECK-NEXT: [[C:%.+]] = "tile.and"([[GO]], [[LT]])
        CHECK-NEXT: scf.condition([[C]]) [[I]], [[ACC]], [[F]]
        CHECK: } do {
        CHECK: [[B:%.+]]:2 = scf.if {{%.+}} -> (tensor<16xf32>, i1) {
        CHECK: "tile.constant"() {value = true}
        CHECK: } else {
        CHECK: "tile.load"
        CHECK: "tile.constant"() {value = false}
        CHECK: [[NEXT:%.+]] = "tile.add"({{%.+}}, {{%.+}}) : (i32, i32) -> i32
        CHECK-NEXT: scf.yield [[NEXT]], [[B]]#0, [[B]]#1
        CHECK: "tile.store"(%arg0, {{%.+}}, [[R]]#1)
    """)


def test_continue_keeps_a_for_loop(fe):
    @ct.kernel
    def k(a, n):
        acc = ct.zeros((16,), ct.float32)
        for i in range(n):
            if i % 2 == 1:
                continue
            acc += ct.load(a, (i,), (16,))
        ct.store(a, (0,), acc)

    # `continue` only skips the rest of the body: it runs in the other branch of the `if`.
    filecheck(fe.tile_ir(k, fe.array(), 8), """
        CHECK: scf.for {{.*}} iter_args([[ACC:%.+]] = {{%.+}}) -> (tensor<16xf32>)
        CHECK: [[B:%.+]]:2 = scf.if
        CHECK-NEXT: "tile.constant"() {value = true}
        CHECK-NEXT: scf.yield [[ACC]],
        CHECK: } else {
        CHECK: "tile.load"
        CHECK: scf.yield [[B]]#0 : tensor<16xf32>
        CHECK-NOT: scf.while
    """)


def test_while_true_runs_while_no_flag_is_set(fe):
    @ct.kernel
    def k(a):
        i = 0
        while True:
            if ct.bid(0) == i:
                break
            i += 1
        ct.store(a, (0,), i)

    filecheck(fe.tile_ir(k, fe.array(np.int32)), """
        CHECK: scf.while ({{%.+}} = {{%.+}}, [[F:%.+]] = {{%.+}}) : (i32, i1) -> (i32, i1) {
        CHECK-NEXT: [[GO:%.+]] = "tile.invert"([[F]])
        CHECK-NEXT: scf.condition([[GO]])
    """)


def test_while_test_is_not_evaluated_after_a_break(fe):
    @ct.kernel
    def k(a, n):
        i = 0
        while ct.load(a, (i,), (1,)).item() > 0.0:
            if i == n:
                break
            i += 1
        ct.store(a, (0,), i)

    # The test reads memory: it is evaluated only while the flag is clear.
    filecheck(fe.tile_ir(k, fe.array(), 4), """
        CHECK: scf.while
        CHECK-NEXT: [[GO:%.+]] = "tile.invert"
        CHECK-NEXT: [[T:%.+]] = scf.if [[GO]] -> (i1) {
        CHECK-NEXT: "tile.load"
        CHECK: } else {
        CHECK-NEXT: [[NO:%.+]] = "tile.constant"() {value = false}
        CHECK-NEXT: scf.yield [[NO]]
        CHECK: scf.condition([[T]])
    """)


def test_early_return_puts_the_rest_in_the_other_branch(fe):
    @ct.kernel
    def k(a, n):
        if n == 0:
            return
        ct.store(a, (0,), ct.zeros((16,), ct.float32))

    filecheck(fe.tile_ir(k, fe.array(), 4), """
        CHECK: scf.if {{%.+}}
        CHECK-NOT: "tile.store"
        CHECK: } else {
        CHECK: "tile.store"
        CHECK: scf.yield
        CHECK-NEXT: }
        CHECK-NEXT: return
    """)


def test_rest_of_a_block_is_guarded_by_the_flags(fe):
    @ct.kernel
    def k(a, n):
        acc = ct.zeros((16,), ct.float32)
        for i in range(n):
            if i > 2:
                if i == n - 1:
                    break
                acc += 1.0
            acc += ct.load(a, (i,), (16,))
        ct.store(a, (0,), acc)

    # After the outer `if` the flag is known only at run time: the load runs under `not flag`.
    filecheck(fe.tile_ir(k, fe.array(), 8), """
        CHECK: } do {
        CHECK: [[OUT:%.+]]:2 = scf.if
        CHECK: [[GO:%.+]] = "tile.invert"([[OUT]]#1)
        CHECK-NEXT: [[G:%.+]] = scf.if [[GO]] -> (tensor<16xf32>) {
        CHECK-NEXT: "tile.load"
        CHECK: } else {
        CHECK-NEXT: scf.yield [[OUT]]#0
    """)


def test_return_from_a_helper_inside_a_while_loop(fe):
    def first_above(a, n, limit):
        i = 0
        while i < n:
            if ct.load(a, (i,), (1,)).item() > limit:
                return i
            i += 1
        return -1

    @ct.kernel
    def k(a, n):
        ct.store(a, (0,), first_above(a, n, 0.5))

    # The loop carries the return flag and the value returned; the function's result is the
    # loop's result where it returned, -1 after it ends by its test.
    filecheck(fe.tile_ir(k, fe.array(np.float32), 4), """
        CHECK: [[R:%.+]]:3 = scf.while ({{.*}}) : (i32, i1, i32)
        CHECK: [[STAY:%.+]] = "tile.invert"([[R]]#1)
        CHECK-NEXT: [[OUT:%.+]] = scf.if [[STAY]] -> (i32) {
        CHECK-NEXT: [[M1:%.+]] = "tile.constant"() {value = -1 : i32}
        CHECK-NEXT: scf.yield [[M1]] : i32
        CHECK-NEXT: } else {
        CHECK-NEXT: scf.yield [[R]]#2 : i32
        CHECK: "tile.splat"([[OUT]])
    """)


def test_tuple_carried_element_by_element(fe):
    @ct.kernel
    def k(a):
        t = (ct.load(a, (0,), (4,)), 4)
        for i in range(3):
            t = (t[0] * 2.0, 4)
        ct.store(a, (0,), ct.full((t[1],), 1.0, ct.float32) + t[0])

    # Only the tile is carried; the constant 4 stays a constant (it is a shape after the loop).
    filecheck(fe.tile_ir(k, fe.array()), """
        CHECK: scf.for {{.*}} iter_args({{%.+}} = {{%.+}}) -> (tensor<4xf32>)
    """)


def test_array_chosen_at_run_time_is_carried(fe):
    @ct.kernel
    def k(a, b, n):
        target = a
        for i in range(n):
            target = b
        ct.store(target, (0,), ct.zeros((4,), ct.float32))

    filecheck(fe.tile_ir(k, fe.array(), fe.array(), 3), """
        CHECK: [[R:%.+]] = scf.for {{.*}} iter_args({{%.+}} = %arg0)
        CHECK-SAME: -> (!tile.array<f32, array<i64: 1>, 16 : i64>)
        CHECK-NEXT: scf.yield %arg1
        CHECK: "tile.store"([[R]],
    """)


def test_constant_on_every_way_out_stays_constant(fe):
    @ct.kernel
    def k(a):
        size = 0
        while True:
            if ct.bid(0) == 0:
                size = 4
                break
            size = 4
            break
        ct.store(a, (0,), ct.full((size,), 1.0, ct.float32))  # a shape: must be a constant

    filecheck(fe.tile_ir(k, fe.array()), """
        CHECK: scf.while
        CHECK: "tile.store"({{.*}}) {{.*}} tensor<4xf32>
    """)
