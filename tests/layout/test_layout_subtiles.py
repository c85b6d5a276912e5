"""Layouts of cat, extract and insert (tilelang/layout/subtiles.py), property-tested: every slot
of the result holds exactly the element NumPy's concatenate / slicing puts there."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tilelang.layout import IN_DIMS, LinearLayout, default_blocked
from tilelang.layout.subtiles import (
    concat_layout,
    holds_subtiles_in_registers,
    register_sources,
    subtile_layout,
    subtile_registers,
    subtiles_in_registers,
)

SEEDS = range(150)


def random_case(seed: int, lt) -> tuple[LinearLayout, tuple[int, ...]]:
    """A surjective layout of a non-scalar shape (random or blocked) and a sub-tile shape."""
    rng = random.Random(seed)
    shape = ()
    while not shape:
        shape = lt.random_shape(rng)
    if rng.random() < 0.5:
        layout = lt.random_layout(rng, shape, surjective=True)
    else:
        layout = default_blocked(shape, rng.choice([1, 2, 4, 8]), rng.choice([1, 2, 4, 8]))
    sub = tuple(1 << rng.randint(0, s.bit_length() - 1) for s in shape)
    return layout, sub


def slot_coords(layout: LinearLayout, lt) -> np.ndarray:
    return lt.all_coords(layout)  # (warps, lanes, registers, ndim)


@pytest.mark.parametrize("seed", SEEDS)
def test_concat_appends_the_second_tile_registers(lt, seed):
    layout, _ = random_case(seed, lt)
    axis = random.Random(seed + 1).randrange(layout.ndim)
    cat = concat_layout(layout, axis)
    n = layout.num_registers
    coords, cat_coords = slot_coords(layout, lt), slot_coords(cat, lt)
    offset = np.zeros(layout.ndim, np.int64)
    offset[axis] = layout.shape[axis]
    assert (cat_coords[:, :, :n] == coords).all()
    assert (cat_coords[:, :, n:] == coords + offset).all()
    assert cat.is_surjective()


@pytest.mark.parametrize("seed", SEEDS)
def test_subtiles_in_registers_is_a_layout_that_holds_them(lt, seed):
    layout, sub = random_case(seed, lt)
    moved = subtiles_in_registers(layout, sub)
    assert moved.shape == layout.shape and moved.is_surjective()
    assert (moved.num_lanes, moved.num_warps) == (layout.num_lanes, layout.num_warps)
    assert holds_subtiles_in_registers(moved, sub)
    if holds_subtiles_in_registers(layout, sub):  # already fine: nothing is lost
        assert moved.num_registers <= layout.num_registers * 2


@pytest.mark.parametrize("seed", SEEDS)
def test_extract_selects_the_registers_of_the_subtile(lt, seed):
    layout, sub = random_case(seed, lt)
    if not holds_subtiles_in_registers(layout, sub):
        layout = subtiles_in_registers(layout, sub)
    part = subtile_layout(layout, sub)
    assert part.shape == sub and part.is_surjective()
    coords, part_coords = slot_coords(layout, lt), slot_coords(part, lt)
    counts = [s // b for s, b in zip(layout.shape, sub, strict=True)]
    for index in np.ndindex(*counts):
        picks = subtile_registers(layout, sub, index)
        corner = np.array(index) * np.array(sub)
        assert (coords[:, :, list(picks)] == part_coords + corner).all()


@pytest.mark.parametrize("seed", SEEDS)
def test_register_sources_inverts_the_selection(lt, seed):
    layout, sub = random_case(seed, lt)
    if not holds_subtiles_in_registers(layout, sub):
        layout = subtiles_in_registers(layout, sub)
    sources = register_sources(layout, sub)
    assert len(sources) == layout.num_registers
    for r, (index, source) in enumerate(sources):
        assert subtile_registers(layout, sub, index)[source] == r


def test_blocked_rows_are_held_in_registers():
    layout = default_blocked((64, 64), 4, 4)  # rows 8, 16, 32 are register bits
    assert holds_subtiles_in_registers(layout, (8, 64))
    assert not holds_subtiles_in_registers(layout, (64, 32))  # columns split across lanes
    part = subtile_layout(layout, (8, 64))
    assert part.num_registers == layout.num_registers // 8
    assert set(IN_DIMS) == set(part.bases)
