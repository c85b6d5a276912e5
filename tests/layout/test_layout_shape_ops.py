"""Tile-shape algebra checked against numpy on the element each slot holds."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tilelang.layout import LinearLayout, default_blocked


def held_values(layout: LinearLayout, values: np.ndarray, lt) -> np.ndarray:
    """values[coord held by slot] for every slot, shape (warps, lanes, registers)."""
    assert values.shape == layout.shape
    coords = lt.all_coords(layout)
    if layout.ndim == 0:  # numpy indexes a 0-d array with () as a scalar
        return np.full(coords.shape[:-1], values[()])
    return values[tuple(coords[..., i] for i in range(layout.ndim))]


def labelled(shape: tuple[int, ...]) -> np.ndarray:
    return np.arange(int(np.prod(shape, dtype=np.int64))).reshape(shape)


def sample_layouts(seed: int, lt) -> list[LinearLayout]:
    rng = random.Random(seed)
    shape = lt.random_shape(rng)
    layouts = [lt.random_layout(rng, shape), lt.random_layout(rng, shape, surjective=True)]
    if shape:
        layouts.append(default_blocked(shape, rng.choice([1, 2, 4]), rng.choice([1, 4, 8])))
    return layouts


def random_reshape_target(shape: tuple[int, ...], rng: random.Random) -> tuple[int, ...]:
    bits = sum(s.bit_length() - 1 for s in shape)
    new = [0] * rng.randint(1, 4)
    for _ in range(bits):
        new[rng.randrange(len(new))] += 1
    return tuple(1 << b for b in new)


@pytest.mark.parametrize("seed", range(40))
def test_reshape_matches_numpy(seed: int, lt) -> None:
    rng = random.Random(seed)
    for layout in sample_layouts(seed, lt):
        new_shape = random_reshape_target(layout.shape, rng)
        reshaped = layout.reshape(new_shape)
        assert reshaped.shape == new_shape
        values = labelled(layout.shape)
        assert np.array_equal(
            held_values(reshaped, values.reshape(new_shape), lt), held_values(layout, values, lt)
        )
        assert reshaped.reshape(layout.shape) == layout


@pytest.mark.parametrize("seed", range(40))
def test_permute_matches_numpy_transpose(seed: int, lt) -> None:
    rng = random.Random(seed)
    for layout in sample_layouts(seed, lt):
        perm = list(range(layout.ndim))
        rng.shuffle(perm)
        permuted = layout.permute(perm)
        values = labelled(layout.shape)
        assert np.array_equal(
            held_values(permuted, values.transpose(perm), lt), held_values(layout, values, lt)
        )
        assert permuted.permute(np.argsort(perm)) == layout


@pytest.mark.parametrize("seed", range(30))
def test_expand_dims_and_squeeze_match_numpy(seed: int, lt) -> None:
    rng = random.Random(seed)
    for layout in sample_layouts(seed, lt):
        axis = rng.randint(-layout.ndim - 1, layout.ndim)
        expanded = layout.expand_dims(axis)
        values = labelled(layout.shape)
        assert expanded.shape == np.expand_dims(values, axis).shape
        assert np.array_equal(
            held_values(expanded, np.expand_dims(values, axis), lt), held_values(layout, values, lt)
        )
        assert expanded.squeeze(axis) == layout


def test_reshape_specifics_and_errors() -> None:
    layout = default_blocked((8, 16), 1, 4)
    assert layout.reshape((-1,)).shape == (128,)
    assert layout.reshape((2, -1, 4)).shape == (2, 16, 4)
    for bad, match in [
        ((3, -1), "cannot reshape"),
        ((64,), "cannot reshape"),
        ((-1, -1), "one -1"),
        ((1, 3, 128), "cannot reshape"),
    ]:
        with pytest.raises(ValueError, match=match):
            layout.reshape(bad)
    with pytest.raises(ValueError, match="not a permutation"):
        layout.permute((0, 0))
    with pytest.raises(ValueError, match="cannot squeeze"):
        layout.squeeze(0)
    with pytest.raises(ValueError, match="out of range"):
        layout.expand_dims(3)


@pytest.mark.parametrize("seed", range(30))
def test_project_zeroes_dims_and_adds_replicas(seed: int, lt) -> None:
    rng = random.Random(seed)
    shape = lt.random_shape(rng)
    if not shape:
        shape = (4,)
    layout = lt.random_layout(rng, shape, surjective=True)
    dims = [d for d in range(len(shape)) if rng.random() < 0.5] or [0]
    projected = layout.project(dims)
    coords = lt.all_coords(layout)
    coords[..., dims] = 0
    assert np.array_equal(lt.all_coords(projected), coords)
    assert projected.shape == tuple(1 if i in dims else s for i, s in enumerate(shape))
    lost = sum(shape[d].bit_length() - 1 for d in dims)
    assert projected.num_replicas == layout.num_replicas << lost
    assert projected.is_surjective()


def broadcast_case(rng: random.Random) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(operand_shape, result_shape) following numpy rules."""
    result = tuple(rng.choice([1, 2, 4, 8, 16]) for _ in range(rng.randint(1, 3)))
    operand = tuple(s if rng.random() < 0.5 else 1 for s in result[rng.randint(0, len(result)) :])
    return operand, result


@pytest.mark.parametrize("seed", range(40))
def test_broadcast_operand_needs_no_data_movement(seed: int, lt) -> None:
    rng = random.Random(seed)
    operand_shape, shape = broadcast_case(rng)
    result = lt.random_layout(rng, shape, surjective=True)
    operand = result.broadcast_operand(operand_shape)
    assert operand.shape == operand_shape and operand.is_surjective()
    values = labelled(operand_shape)
    # Each slot of the result holds exactly what numpy broadcasting puts there.
    assert np.array_equal(
        held_values(result, np.broadcast_to(values, shape), lt), held_values(operand, values, lt)
    )


@pytest.mark.parametrize("seed", range(40))
def test_broadcast_to_keeps_operand_values_in_place(seed: int, lt) -> None:
    rng = random.Random(seed)
    operand_shape, shape = broadcast_case(rng)
    operand = lt.random_layout(rng, operand_shape, surjective=True)
    result = operand.broadcast_to(shape)
    assert result.shape == shape and result.is_surjective()
    assert result.num_registers >= operand.num_registers
    values = labelled(operand_shape)
    from_operand = held_values(operand, values, lt)
    repeats = result.num_registers // operand.num_registers
    assert np.array_equal(
        held_values(result, np.broadcast_to(values, shape), lt),
        np.tile(from_operand, (1, 1, repeats)),
    )
    assert result.broadcast_operand(operand_shape).bases["lane"] == operand.bases["lane"]


def test_project_then_broadcast_restores_blocked_layout() -> None:
    layout = default_blocked((64, 64), 4, 4)
    assert layout.project(1).broadcast_to((64, 64)) == layout
    grown = LinearLayout({"lane": [(0,)] * 5}, (1,)).broadcast_to((4, 64))
    assert grown.num_registers == 8 and grown.is_surjective()  # 5 lanes + 3 new registers


def test_broadcast_errors() -> None:
    layout = default_blocked((8, 16), 1, 4)
    with pytest.raises(ValueError, match="does not broadcast"):
        layout.broadcast_operand((8, 2))
    with pytest.raises(ValueError, match="does not broadcast"):
        layout.broadcast_operand((1, 8, 16))
    with pytest.raises(ValueError, match="does not broadcast"):
        layout.broadcast_to((8, 32))
