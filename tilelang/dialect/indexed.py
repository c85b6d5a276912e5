"""Dialect: the meaning of tile.gather, tile.scatter, tile.atomic_rmw and tile.atomic_cas.

NumPy functions on an array (a writable view) and index tiles already broadcast to one shape.
Atomics act as if the elements were updated one at a time in row-major order of the tile
(the GPU's order is unspecified, so only results that do not depend on it are guaranteed).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from tilelang.dialect import semantics

Indices = list[np.ndarray]


def in_bounds(array: np.ndarray, indices: Indices) -> np.ndarray:
    """True where every index is in [0, extent) (negative indices are out of bounds)."""
    ok = np.ones(np.shape(indices[0]), bool)
    for index, extent in zip(indices, array.shape, strict=True):
        wide = np.asarray(index).astype(np.int64)
        ok &= (wide >= 0) & (wide < extent)
    return ok


def _at(indices: Indices, where: np.ndarray) -> tuple[np.ndarray, ...]:
    return tuple(np.asarray(i).astype(np.int64)[where] for i in indices)


def gather(array: np.ndarray, indices: Indices, ok: np.ndarray, padding: np.ndarray) -> np.ndarray:
    """`array[indices]` where `ok`, `padding` elsewhere (same shape as the indices)."""
    out = np.array(np.broadcast_to(padding, ok.shape), dtype=array.dtype)
    out[ok] = array[_at(indices, ok)]
    return out


def scatter(array: np.ndarray, indices: Indices, value: np.ndarray, ok: np.ndarray) -> None:
    """`array[indices] = value` where `ok` (row-major order: the last write to an element wins)."""
    value = np.broadcast_to(value, ok.shape)
    for pick in _rounds(array, indices, ok):
        array[_at(indices, pick)] = value[pick]


def _rounds(array: np.ndarray, indices: Indices, ok: np.ndarray) -> Iterator[np.ndarray]:
    """Masks of the positions to apply together, so that each element's updates happen in
    row-major order: every round takes the earliest pending position of each element."""
    positions = np.flatnonzero(ok)
    if not positions.size:
        return
    flat = np.ravel_multi_index(_at([np.ravel(i) for i in indices], positions), array.shape)
    while positions.size:
        _, first = np.unique(flat, return_index=True)
        pick = np.zeros(ok.size, bool)
        pick[positions[first]] = True
        yield pick.reshape(ok.shape)
        keep = np.ones(positions.size, bool)
        keep[first] = False
        positions, flat = positions[keep], flat[keep]


def _bitwise(fn: Callable[..., np.ndarray]) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    return lambda old, update: fn(old, update).astype(old.dtype)


RMW: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "xchg": lambda old, update: update,
    "add": semantics.BINARY["tile.add"],
    "max": semantics.maximum,
    "min": semantics.minimum,
    "and": _bitwise(np.bitwise_and),
    "or": _bitwise(np.bitwise_or),
    "xor": _bitwise(np.bitwise_xor),
}


def atomic_rmw(kind: str, array: np.ndarray, indices: Indices, update: np.ndarray,
               ok: np.ndarray) -> np.ndarray:
    """Apply `RMW[kind]` at `indices` where `ok`; return the old values (0 elsewhere)."""
    fn = RMW[kind]
    update = np.broadcast_to(update, ok.shape)
    old = np.zeros(ok.shape, array.dtype)
    for pick in _rounds(array, indices, ok):
        where = _at(indices, pick)
        old[pick] = array[where]
        array[where] = fn(old[pick], update[pick])
    return old


def atomic_cas(array: np.ndarray, indices: Indices, expected: np.ndarray, desired: np.ndarray,
               ok: np.ndarray) -> np.ndarray:
    """Where `ok`, swap in `desired` if the element equals `expected` bit for bit; return the
    old values (`expected` elsewhere)."""
    expected = np.broadcast_to(expected, ok.shape)
    desired = np.broadcast_to(desired, ok.shape)
    old = np.array(expected, dtype=array.dtype)
    bits = np.dtype(f"u{array.dtype.itemsize}")
    for pick in _rounds(array, indices, ok):
        where = _at(indices, pick)
        current = array[where]
        old[pick] = current
        same = current.view(bits) == expected[pick].view(bits)
        array[where] = np.where(same, desired[pick], current)
    return old
