"""blocked / default_blocked / padded_shape: coverage, contiguity, coalescing, replication."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest

from tilelang.layout import WARP_SIZE, LinearLayout, blocked, default_blocked, in_bounds
from tilelang.layout import padded_shape as pad


def triton_reference(shape, spt, tpw, wpb, order) -> np.ndarray:
    """Coordinates of every (warp, lane, register) slot of a blocked layout, computed with
    Triton's index arithmetic (wrap-around = broadcast) instead of bases."""
    ndim = len(shape)
    regs = [min(spt[d], shape[d]) for d in range(ndim)]
    reps = [max(1, shape[d] // (spt[d] * tpw[d] * wpb[d])) for d in range(ndim)]

    def split(index: int, sizes) -> list[int]:
        parts = [0] * ndim
        for d in order:
            index, parts[d] = divmod(index, sizes[d])
        return parts

    num_regs = math.prod(regs) * math.prod(reps)
    out = np.zeros((math.prod(wpb), WARP_SIZE, num_regs, ndim), dtype=np.int64)
    for w, ln, r in itertools.product(range(math.prod(wpb)), range(WARP_SIZE), range(num_regs)):
        in_vec, rep = split(r % math.prod(regs), regs), split(r // math.prod(regs), reps)
        lane, warp = split(ln, tpw), split(w, wpb)
        for d in range(ndim):
            cta = spt[d] * tpw[d] * wpb[d]
            out[w, ln, r, d] = (
                rep[d] * cta + warp[d] * spt[d] * tpw[d] + lane[d] * spt[d] + in_vec[d]
            ) % shape[d]
    return out


def random_split(rng: random.Random, total_bits: int, ndim: int) -> list[int]:
    bits = [0] * ndim
    for _ in range(total_bits):
        bits[rng.randrange(ndim)] += 1
    return [1 << b for b in bits]


@pytest.mark.parametrize("seed", range(40))
def test_blocked_matches_triton_index_arithmetic(seed: int, lt) -> None:
    rng = random.Random(seed)
    ndim = rng.randint(1, 3)
    shape = random_split(rng, rng.randint(0, 11), ndim)
    spt = random_split(rng, rng.randint(0, 3), ndim)
    tpw = random_split(rng, 5, ndim)
    wpb = random_split(rng, rng.randint(0, 3), ndim)
    order = list(range(ndim))
    rng.shuffle(order)
    layout = blocked(shape, spt, tpw, wpb, order)
    assert np.array_equal(lt.all_coords(layout), triton_reference(shape, spt, tpw, wpb, order))
    assert layout.is_surjective()
    assert layout.free_bits("register") == ()  # surplus register bits are dropped
    assert layout.num_warps == math.prod(wpb) and layout.num_lanes == WARP_SIZE


def test_blocked_example_from_spec() -> None:
    layout = blocked((4, 64), (1, 4), (2, 16), (2, 1), (1, 0))
    assert layout.bases == {
        "register": ((0, 1), (0, 2)),
        "lane": ((0, 4), (0, 8), (0, 16), (0, 32), (1, 0)),
        "warp": ((2, 0),),
    }


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (((4, 64), (1, 4), (2, 8), (2, 1), (1, 0)), "multiply to 32"),
        (((4, 64), (1, 4), (2, 16), (2, 1), (0, 0)), "not a permutation"),
        (((4, 64), (1, 4, 1), (2, 16), (2, 1), (1, 0)), "3 entries"),
        (((4, 48), (1, 4), (2, 16), (2, 1), (1, 0)), "shape\\[1\\]"),
        (((4, 64), (1, 3), (2, 16), (2, 1), (1, 0)), "size_per_thread\\[1\\]"),
    ],
)
def test_blocked_rejects_bad_arguments(args, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        blocked(*args)


SHAPES = [
    (1,),
    (7,),
    (32,),
    (100,),
    (128,),
    (4096,),
    (1, 1),
    (2, 3),
    (16, 16),
    (3, 100),
    (64, 64),
    (1, 4096),
    (4096, 1),
    (128, 32),
    (2, 2, 2),
    (5, 7, 9),
    (16, 16, 16),
    (1, 1, 64),
    (64, 1, 1),
    (8, 64, 4),
]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("num_warps", [1, 2, 4, 8])
@pytest.mark.parametrize("vector", [1, 2, 4, 8, 16])
def test_default_blocked_properties(shape, num_warps: int, vector: int, lt) -> None:
    layout = default_blocked(shape, num_warps, vector)
    padded = pad(shape)
    elements = math.prod(padded)
    assert layout.shape == padded
    assert (layout.num_lanes, layout.num_warps) == (WARP_SIZE, num_warps)
    # Every element is held, each by exactly num_replicas slots, with no wasted registers.
    counts = lt.holder_counts(layout)
    assert np.all(counts == layout.num_replicas)
    vec = min(vector, padded[-1])
    assert layout.num_replicas == max(1, WARP_SIZE * num_warps * vec // elements)
    assert layout.num_registers * WARP_SIZE * num_warps == elements * layout.num_replicas
    assert layout.free_bits("register") == ()

    # Vector: registers 0..vec-1 are contiguous along the last dim.
    def last(value: int) -> tuple[int, ...]:
        return tuple(value if i == len(padded) - 1 else 0 for i in range(len(padded)))

    vec_bits = vec.bit_length() - 1
    assert layout.bases["register"][:vec_bits] == tuple(last(1 << k) for k in range(vec_bits))
    # Coalescing: consecutive lanes hold consecutive vectors along the last dim.
    lane_bits = min(5, (padded[-1] // vec).bit_length() - 1)
    assert layout.bases["lane"][:lane_bits] == tuple(last(vec << k) for k in range(lane_bits))

    # Warps take the earliest dims that still have room after the vector and the lanes.
    def bits_along(in_dim: str, dim: int) -> int:
        return sum(1 for b in layout.bases[in_dim] if b[dim])

    left = num_warps.bit_length() - 1
    for dim, size in enumerate(padded):
        room = size.bit_length() - 1 - bits_along("lane", dim)
        room -= vec_bits if dim == len(padded) - 1 else 0
        expected = min(left, room)
        assert bits_along("warp", dim) == expected
        left -= expected


def test_default_blocked_picks_16_byte_vectors_and_row_coalescing() -> None:
    layout = default_blocked((128, 128), 4, 8)  # fp16 tile: 8 x 2 bytes per access
    assert layout.bases["register"][:3] == ((0, 1), (0, 2), (0, 4))
    assert layout.bases["lane"] == ((0, 8), (0, 16), (0, 32), (0, 64), (1, 0))
    assert layout.bases["warp"] == ((2, 0), (4, 0))
    assert layout.num_registers == 128 and layout.is_bijective()


def test_default_blocked_small_tile_replicates_high_lanes_and_warps() -> None:
    layout = default_blocked((2, 2), 4, 4)
    assert layout.bases["lane"][0] == (1, 0)
    assert layout.free_bits("lane") == (1, 2, 3, 4) and layout.free_bits("warp") == (0, 1)
    assert layout.owner_masks() == {"register": 0, "lane": 0b11110, "warp": 0b11}


def test_default_blocked_scalar_and_errors() -> None:
    assert default_blocked((), 4, 4) == LinearLayout.scalar(4)
    with pytest.raises(ValueError, match="num_warps"):
        default_blocked((64,), 3, 4)
    with pytest.raises(ValueError, match="vector_elems"):
        default_blocked((64,), 4, 6)
    with pytest.raises(ValueError, match="shape\\[1\\]"):
        default_blocked((64, 0), 4, 4)


def test_padded_shape_and_in_bounds(lt) -> None:
    assert pad((1, 2, 3, 5, 64, 65, 1000)) == (1, 2, 4, 8, 64, 128, 1024)
    assert pad(()) == ()
    for bad in [(0,), (-2,), (2.0,), (True,)]:
        with pytest.raises(ValueError, match="positive int"):
            pad(bad)
    shape = (5, 7)
    layout = default_blocked(shape, 2, 4)
    coords = lt.all_coords(layout).reshape(-1, 2)
    real = {tuple(c) for c in coords if in_bounds(c, shape)}
    assert len(real) == 35 and all(c[0] < 5 and c[1] < 7 for c in real)
    assert not in_bounds((5, 0), shape) and in_bounds((4, 6), shape)
