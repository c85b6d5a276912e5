"""Tuple comprehensions scope their names as Python does: the targets are the comprehension's
own, lambdas made in it keep its names as they are when it ends, and its first iterable is read
in the enclosing scope. Each kernel's expected values are what Python itself computes."""
# ruff: noqa: B023  (lambdas that read a comprehension's variable late are what is tested)

from __future__ import annotations

import numpy as np

import tilelang as ct

OUTER = 99


def _python_lambdas_stored():
    fns = tuple(lambda: scale for scale in range(5))
    return [f() for f in fns]


@ct.kernel
def lambdas_stored(y):
    fns = tuple(lambda: scale for scale in ct.static_iter(range(5)))
    for k, f in ct.static_iter(enumerate(fns)):
        ct.scatter(y, k, f())


def test_stored_lambdas_share_the_last_value(it):
    y = it.poison(5, "int32")
    it.launch(lambdas_stored, (1,), y)
    assert _python_lambdas_stored() == [4] * 5
    it.assert_same(y, np.array(_python_lambdas_stored(), np.int32))


@ct.kernel
def lambdas_nested(y):
    outer = tuple(tuple(lambda: j * 10 + i for j in ct.static_iter(range(1, 4)))
                  for i in ct.static_iter(range(2)))
    for i, fns in ct.static_iter(enumerate(outer)):
        for k, f in ct.static_iter(enumerate(fns)):
            ct.scatter(y, i * 3 + k, f())


def test_lambdas_in_nested_comprehensions(it):
    outer = tuple(tuple(lambda: j * 10 + i for j in range(1, 4)) for i in range(2))
    want = [f() for fns in outer for f in fns]
    y = it.poison(6, "int32")
    it.launch(lambdas_nested, (1,), y)
    it.assert_same(y, np.array(want, np.int32))


@ct.kernel
def lambdas_outlive_reassignment(y):
    x = 5
    fns = tuple(lambda: x + 1 for x in ct.static_iter(range(3)))
    x = 123  # the kernel's x: not the one the lambdas see
    for k, f in ct.static_iter(enumerate(fns)):
        ct.scatter(y, k, f())
    ct.scatter(y, 3, x)


def test_lambdas_keep_the_comprehension_variable(it):
    y = it.poison(4, "int32")
    it.launch(lambdas_outlive_reassignment, (1,), y)
    it.assert_same(y, np.array([3, 3, 3, 123], np.int32))


@ct.kernel
def immediate_calls(y):
    results = tuple((lambda: x * x)() for x in ct.static_iter(range(4)))
    for k, v in ct.static_iter(enumerate(results)):
        ct.scatter(y, k, v)


def test_lambda_called_at_once_sees_each_value(it):
    y = it.poison(4, "int32")
    it.launch(immediate_calls, (1,), y)
    it.assert_same(y, np.array([0, 1, 4, 9], np.int32))


@ct.kernel
def target_in_a_loop(y, n):
    pairs = (7, 8)
    for i in range(n):  # a run-time loop: OUTER is not one of its carried names
        _ = tuple(t for OUTER, t in ct.static_iter(enumerate(pairs)))
        ct.scatter(y, i, OUTER)
    ct.scatter(y, n, OUTER)


def test_comprehension_target_does_not_shadow_a_global_in_a_loop(it):
    y = it.poison(6, "int32")
    it.launch(target_in_a_loop, (1,), y, 5)
    it.assert_same(y, np.full(6, OUTER, np.int32))


@ct.kernel
def iterables_and_scopes(y):
    n = 2
    # the first iterable reads the kernel's n; the element reads the comprehension's n
    firsts = tuple(n * 10 + i for i in ct.static_iter(range(n)) for n in ct.static_iter(range(3)))
    repeated = tuple(n for n in ct.static_iter(range(2)) for n in ct.static_iter(range(3)))
    inner = tuple(i * 10 + j for i in ct.static_iter(range(3)) for j in ct.static_iter(range(i)))
    for k, v in ct.static_iter(enumerate(firsts + repeated + inner)):
        ct.scatter(y, k, v)
    ct.scatter(y, 15, n)


def test_which_scope_each_part_reads(it):
    n = 2
    want = [n * 10 + i for i in range(n) for n in range(3)]
    want += [n for n in range(2) for n in range(3)]
    want += [i * 10 + j for i in range(3) for j in range(i)]
    assert len(want) == 15
    y = it.poison(16, "int32")
    it.launch(iterables_and_scopes, (1,), y)
    it.assert_same(y, np.array([*want, 2], np.int32))


@ct.kernel
def typed_constant_condition(x, y):
    tiles = tuple(ct.load(x, (i,), (8,)) for i in ct.static_iter(range(4)))
    kept = tuple(t for i, t in ct.static_iter(enumerate(tiles)) if ct.int32(i) % 2 == 1)
    for i, t in ct.static_iter(enumerate(kept)):
        ct.store(y, (i,), t)


def test_condition_may_be_a_typed_constant(it, rng):
    x = it.rand(rng, 32, "float32")
    y = it.poison(16, "float32")
    it.launch(typed_constant_condition, (1,), x, y)
    it.assert_same(y, np.concatenate([x[8:16], x[24:32]]))
