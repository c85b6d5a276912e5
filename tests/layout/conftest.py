"""Shared helpers for the layout tests, exposed through the `lt` fixture."""

from __future__ import annotations

import random
from types import SimpleNamespace

import numpy as np
import pytest

from tilelang.layout import IN_DIMS, LinearLayout


def all_coords(layout: LinearLayout) -> np.ndarray:
    """Coordinates held by every slot, as an array of shape (warps, lanes, registers, ndim)."""
    vectors = [v for d in IN_DIMS for v in layout.bases[d]]  # register bits are lowest
    index = np.arange(1 << len(vectors), dtype=np.int64)
    coords = np.zeros((index.size, layout.ndim), dtype=np.int64)
    for bit, vector in enumerate(vectors):
        coords ^= ((index >> bit) & 1)[:, None] * np.array(vector, dtype=np.int64)
    return coords.reshape(layout.num_warps, layout.num_lanes, layout.num_registers, layout.ndim)


def flat_index(coords: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Row-major element index of each coordinate row (last axis of coords)."""
    flat = np.zeros(coords.shape[:-1], dtype=np.int64)
    for axis, size in enumerate(shape):
        flat = flat * size + coords[..., axis]
    return flat


def holder_counts(layout: LinearLayout, owners_only: bool = False) -> np.ndarray:
    """How many slots (or owner slots) hold each element, indexed row-major."""
    flat = flat_index(all_coords(layout), layout.shape)
    if owners_only:
        flat = flat[owner_grid(layout)]
    return np.bincount(flat.ravel(), minlength=int(np.prod(layout.shape, dtype=np.int64)))


def owner_grid(layout: LinearLayout) -> np.ndarray:
    """Boolean (warps, lanes, registers) array: is_owner of every slot, vectorised."""
    masks = layout.owner_masks()
    w, ln, r = np.meshgrid(
        np.arange(layout.num_warps),
        np.arange(layout.num_lanes),
        np.arange(layout.num_registers),
        indexing="ij",
    )
    return ((r & masks["register"]) | (ln & masks["lane"]) | (w & masks["warp"])) == 0


def random_shape(rng: random.Random, max_bits: int = 9) -> tuple[int, ...]:
    ndim = rng.randint(0, 3)
    bits = [0] * ndim
    for _ in range(rng.randint(0, max_bits) if ndim else 0):
        bits[rng.randrange(ndim)] += 1
    return tuple(1 << b for b in bits)


def random_layout(
    rng: random.Random, shape: tuple[int, ...] | None = None, surjective: bool = False
) -> LinearLayout:
    """A random layout; with surjective=True, retried until every element is held."""
    shape = random_shape(rng) if shape is None else shape
    out_bits = sum(s.bit_length() - 1 for s in shape)
    while True:
        counts = {
            "register": rng.randint(0, 4),
            "lane": rng.choice([5, 5, 2]),
            "warp": rng.randint(0, 3),
        }
        if surjective:
            counts["register"] += max(0, out_bits - sum(counts.values()))
        bases = {d: [random_vector(rng, shape) for _ in range(n)] for d, n in counts.items()}
        layout = LinearLayout(bases, shape)
        if not surjective or layout.is_surjective():
            return layout


def random_vector(rng: random.Random, shape: tuple[int, ...]) -> tuple[int, ...]:
    roll = rng.random()
    if roll < 0.15:
        return (0,) * len(shape)
    if roll < 0.6 and shape:  # mostly unit vectors, as in real layouts
        dim = rng.randrange(len(shape))
        bit = rng.randrange(shape[dim].bit_length())
        return tuple((1 << bit >> 1 if i == dim else 0) for i in range(len(shape)))
    return tuple(rng.randrange(s) for s in shape)


@pytest.fixture
def lt() -> SimpleNamespace:
    return SimpleNamespace(
        all_coords=all_coords,
        flat_index=flat_index,
        holder_counts=holder_counts,
        owner_grid=owner_grid,
        random_shape=random_shape,
        random_layout=random_layout,
        random_vector=random_vector,
    )
