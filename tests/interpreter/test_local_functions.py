"""Lambdas and functions defined inside kernels: closures, defaults, and as reduce/scan
combiners (cuTile's idiom), against NumPy."""

from __future__ import annotations

import operator

import numpy as np

import tilelang as ct


@ct.kernel
def closures(x, y, z, N: ct.Constant[int]):
    t = ct.load(x, (0,), (N,))
    offset = t * 2

    def shifted(v, k=3):
        return v + offset + k  # `offset` is a tile of the enclosing kernel

    scale = lambda v: v * 10  # noqa: E731
    ct.store(y, (0,), shifted(scale(t)))
    ct.store(z, (0,), shifted(t, k=-1))


def test_closures_and_defaults(it, rng):
    x = it.rand(rng, 100, "int32", low=-1000, high=1000)
    y, z = it.poison(100, "int32"), it.poison(100, "int32")
    it.launch(closures, (1,), x, y, z, 128)
    it.assert_same(y, x * 10 + x * 2 + 3)
    it.assert_same(z, x + x * 2 - 1)


@ct.kernel
def combiners(x, total, prod, best, where, running, N: ct.Constant[int]):
    t = ct.load(x, (0, 0), (4, N), padding_mode=ct.PaddingMode.ZERO)
    ct.store(total, (0,), ct.reduce(t, axis=1, func=operator.add, identity=0))
    ct.store(prod, (0,), ct.reduce(t % 3 + 1, 1, lambda a, b: a * b, 1))
    idx = ct.broadcast_to(ct.arange(N, dtype=ct.int32)[None, :], (4, N))

    def better(va, ia, vb, ib):
        take = (vb > va) | ((vb == va) & (ib < ia))
        return ct.where(take, vb, va), ct.where(take, ib, ia)

    v, i = ct.reduce((t, idx), 1, better, (-(2**31), 0))
    ct.store(best, (0,), v)
    ct.store(where, (0,), i)
    ct.store(running, (0, 0), ct.scan(t, axis=-1, func=lambda a, b: a + b, identity=0))


def test_lambdas_and_local_defs_as_combiners(it, rng):
    x = it.rand(rng, (4, 50), "int32", low=-20, high=20)
    outs = [it.poison(4, "int32") for _ in range(4)] + [it.poison((4, 50), "int32")]
    it.launch(combiners, (1,), x, *outs, 64)
    tile = np.pad(x, ((0, 0), (0, 14)))
    with np.errstate(over="ignore"):
        prod = np.prod((tile % 3 + 1).astype(np.int32), axis=1, dtype=np.int32)
    it.assert_same(outs[0], tile.sum(1).astype(np.int32))
    it.assert_same(outs[1], prod)
    it.assert_same(outs[2], tile.max(1).astype(np.int32))
    it.assert_same(outs[3], tile.argmax(1).astype(np.int32))
    it.assert_same(outs[4], np.cumsum(x, 1).astype(np.int32))
