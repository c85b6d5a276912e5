"""Local functions and dataclass instances that differ between the paths of run-time control
flow merge part by part (cuTile's closure and dataclass values): captured variables, default
values and fields that differ become run-time values. Against NumPy, per block."""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

import numpy as np
import pytest

import tilelang as ct


def _adder(t):
    def add(y):
        return y + t

    return add


def _with_default(d):
    def put(x, i, v=d):
        ct.scatter(x, i, v)

    d = -1  # after the def: the default keeps what d was then
    return put


@ct.kernel
def closures_by_block(x, y, z):
    i = ct.bid(0)
    if i % 3 == 0:
        c = _adder(30)
    elif i % 3 == 1:
        c = _adder(-7)
    else:
        c = _adder(1000)
    ct.scatter(y, i, c(ct.gather(x, i)))
    if i < 2:
        put = _with_default(5)
    else:
        put = _with_default(i * 100)
    put(z, i)


def test_closures_chosen_at_run_time(it, rng):
    n = 7
    x = it.rand(rng, n, "int32", low=-50, high=50)
    y, z = it.poison(n, "int32"), it.poison(n, "int32")
    it.launch(closures_by_block, (n,), x, y, z)
    blocks = np.arange(n)
    it.assert_same(y, x + np.choose(blocks % 3, [30, -7, 1000]).astype(np.int32))
    it.assert_same(z, np.where(blocks < 2, 5, blocks * 100).astype(np.int32))


@ct.kernel
def closure_in_a_loop(x, y, n):
    c = _adder(0)
    for k in range(n):
        c = _adder(k * 3)
    ct.store(y, (0,), c(ct.load(x, (0,), (16,))))


@pytest.mark.parametrize("n", [0, 1, 5])
def test_closure_carried_by_a_loop(it, rng, n):
    x = it.rand(rng, 13, "int32", low=-50, high=50)
    y = it.poison(13, "int32")
    it.launch(closure_in_a_loop, (1,), x, y, n)
    it.assert_same(y, x + np.int32(max(n - 1, 0) * 3))


@dataclass(frozen=True)
class Acc:
    total: int
    count: int
    label: int = 7


@ct.kernel
def dataclass_in_a_loop(x, y, n):
    acc = Acc(0, 0)
    for k in range(n):
        acc = dataclasses.replace(acc, total=acc.total + ct.load(x, (k,), (16,)),
                                  count=acc.count + 1)
    ct.store(y, (0,), acc.total * 10 + acc.count + acc.label)


def test_dataclass_carried_by_a_loop(it, rng):
    n = 3
    x = it.rand(rng, 48, "int32", low=-50, high=50)
    y = it.poison(16, "int32")
    it.launch(dataclass_in_a_loop, (1,), x, y, n)
    want = x.reshape(3, 16).sum(0) * 10 + n + 7
    it.assert_same(y, want.astype(np.int32))


@ct.kernel
def dataclass_by_block(x, y):
    i = ct.bid(0)
    t = ct.load(x, (i,), (8,))
    if i == 0:
        acc = Acc(t, 1)
    else:
        acc = Acc(t * 2, 3, label=-1)
    ct.store(y, (i,), acc.total + acc.count + acc.label)


def test_dataclass_with_tile_fields_chosen_at_run_time(it, rng):
    x = it.rand(rng, 24, "int32", low=-50, high=50)
    y = it.poison(24, "int32")
    it.launch(dataclass_by_block, (3,), x, y)
    tiles = x.reshape(3, 8)
    want = np.concatenate([tiles[0] + 8, tiles[1] * 2 + 2, tiles[2] * 2 + 2])
    it.assert_same(y, want.astype(np.int32))


def _plus_three(func):
    @functools.wraps(func)
    def wrapper(v):
        return func(v + 3)

    return wrapper


@_plus_three
def _times_ten(v):
    return v * 10


@ct.kernel
def decorated_helper(x, y):
    ct.store(y, (0,), _times_ten(ct.load(x, (0,), (16,))))


def test_helper_wrapped_by_a_decorator_runs_the_wrapper(it, rng):
    x = it.rand(rng, 16, "int32", low=-50, high=50)
    y = it.poison(16, "int32")
    it.launch(decorated_helper, (1,), x, y)
    it.assert_same(y, (x + 3) * 10)


@dataclass(frozen=True)
class Offsets:
    pair: tuple
    scale: int = 1


@ct.kernel
def tuple_fields_by_block(y):
    i = ct.bid(0)
    if i == 1:
        o = Offsets((1, 2))
    else:
        o = Offsets((30, 40), scale=i)
    ct.scatter(y, i, (o.pair[0] + o.pair[1]) * o.scale)


def test_dataclass_tuple_fields_chosen_at_run_time(it):
    y = it.poison(4, "int32")
    it.launch(tuple_fields_by_block, (4,), y)
    it.assert_same(y, np.array([0, 3, 140, 210], np.int32))
