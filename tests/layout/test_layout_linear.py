"""LinearLayout / LinearMap: construction, evaluation, ownership, inversion, composition."""

from __future__ import annotations

import itertools
import pickle
import random

import numpy as np
import pytest

from tilelang.layout import LinearLayout, LinearMap

EXAMPLE = LinearLayout(
    {
        "register": [(0, 1), (0, 2)],
        "lane": [(0, 4), (0, 8), (0, 16), (0, 32), (1, 0)],
        "warp": [(2, 0)],
    },
    (4, 64),
)


def brute_apply(layout: LinearLayout, r: int, ln: int, w: int) -> tuple[int, ...]:
    coord = [0] * layout.ndim
    for dim, index in (("register", r), ("lane", ln), ("warp", w)):
        for bit, vector in enumerate(layout.bases[dim]):
            if index >> bit & 1:
                coord = [c ^ v for c, v in zip(coord, vector, strict=True)]
    return tuple(coord)


def test_example_layout_sizes_and_apply() -> None:
    assert EXAMPLE.shape == (4, 64) and EXAMPLE.ndim == 2
    assert (EXAMPLE.num_registers, EXAMPLE.num_lanes, EXAMPLE.num_warps) == (4, 32, 2)
    assert [EXAMPLE.in_bits(d) for d in ("register", "lane", "warp")] == [2, 5, 1]
    assert EXAMPLE.apply(3, 1, 0) == (0, 7)
    assert EXAMPLE.apply(register=1, lane=16, warp=1) == (3, 1)
    assert EXAMPLE.apply(lane=31) == (1, 60)
    assert EXAMPLE.is_bijective()


@pytest.mark.parametrize("seed", range(30))
def test_apply_matches_xor_definition_and_vectorised_helper(seed: int, lt) -> None:
    layout = lt.random_layout(random.Random(seed))
    table = lt.all_coords(layout)
    rng = random.Random(seed)
    for _ in range(50):
        r, ln, w = (
            rng.randrange(layout.num_registers),
            rng.randrange(layout.num_lanes),
            rng.randrange(layout.num_warps),
        )
        assert layout.apply(r, ln, w) == brute_apply(layout, r, ln, w)
        assert tuple(table[w, ln, r]) == layout.apply(register=r, lane=ln, warp=w)


@pytest.mark.parametrize(
    ("bases", "shape", "match"),
    [
        ({}, (3,), "shape\\[0\\]"),
        ({}, (0, 4), "shape\\[0\\]"),
        ({"lane": [(4,)]}, (4,), "out of range"),
        ({"lane": [(1, 0)]}, (4,), "2 entries, expected 1"),
        ({"thread": [(1,)]}, (4,), "unknown in-dims"),
    ],
)
def test_constructor_rejects_bad_input(bases, shape, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        LinearLayout(bases, shape)


@pytest.mark.parametrize(
    ("bases", "shape", "match"),
    [
        ({"lane": [(True,)]}, (4,), "must be an int"),
        ({"lane": [(1.0,)]}, (4,), "must be an int"),
        ({"lane": [1]}, (4,), "sequence of ints"),
        ({}, (4.0,), "must be an int"),
    ],
)
def test_constructor_rejects_bad_types(bases, shape, match: str) -> None:
    with pytest.raises(TypeError, match=match):
        LinearLayout(bases, shape)


def test_apply_rejects_bad_indices() -> None:
    with pytest.raises(ValueError, match="out of range"):
        EXAMPLE.apply(4, 0, 0)
    with pytest.raises(ValueError, match="unknown in-dim"):
        EXAMPLE.apply(thread=1)
    with pytest.raises(ValueError, match="twice"):
        EXAMPLE.apply(1, register=1)


def test_immutable_hashable_and_value_equal() -> None:
    copy = LinearLayout({d: list(v) for d, v in EXAMPLE.bases.items()}, [4, 64])
    assert copy == EXAMPLE and hash(copy) == hash(EXAMPLE)
    assert len({copy, EXAMPLE}) == 1
    assert EXAMPLE.permute((1, 0)) != EXAMPLE
    assert LinearMap(EXAMPLE.bases, {"dim0": 4, "dim1": 64}) != EXAMPLE
    assert LinearLayout.from_map(LinearMap(EXAMPLE.bases, {"a": 4, "b": 64})) == EXAMPLE
    with pytest.raises(AttributeError):
        EXAMPLE._bases = {}  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(EXAMPLE)) == EXAMPLE
    assert eval(repr(EXAMPLE), {"LinearLayout": LinearLayout}) == EXAMPLE


def test_scalar_layout_is_replicated_everywhere() -> None:
    layout = LinearLayout.scalar(4)
    assert layout.shape == () and layout.num_registers == 1
    assert (layout.num_lanes, layout.num_warps, layout.num_replicas) == (32, 4, 128)
    assert layout.apply(0, 17, 3) == ()
    assert layout.is_surjective() and not layout.is_injective()
    assert layout.is_owner(0, 0, 0) and not layout.is_owner(0, 1, 0)


@pytest.mark.parametrize("seed", range(60))
def test_every_element_held_num_replicas_times_and_owned_once(seed: int, lt) -> None:
    layout = lt.random_layout(random.Random(seed))
    counts = lt.holder_counts(layout)
    held = counts > 0
    assert set(np.unique(counts[held])) == {layout.num_replicas}
    assert held.sum() == 1 << layout.rank()
    assert layout.is_surjective() == bool(held.all())
    owned = lt.holder_counts(layout, owners_only=True)
    assert np.array_equal(owned, held.astype(owned.dtype))
    grid = lt.owner_grid(layout)
    rng = random.Random(seed)
    for _ in range(40):
        w, ln, r = (rng.randrange(n) for n in grid.shape)
        assert layout.is_owner(r, ln, w) == grid[w, ln, r]


def test_is_owner_checks_every_in_dim() -> None:
    layout = LinearLayout({"register": [(1,), (1,)], "lane": [(2,), (0,)], "warp": [(0,)]}, (4,))
    assert layout.owner_masks() == {"register": 0b10, "lane": 0b10, "warp": 0b1}
    assert layout.is_owner(1, 1, 0)
    assert not layout.is_owner(2, 0, 0)
    assert not layout.is_owner(0, 2, 0)
    assert not layout.is_owner(0, 0, 1)


def brute_span(vectors) -> set[tuple[int, ...]]:
    points = {tuple(0 for _ in vectors[0])} if vectors else set()
    for v in vectors:
        points |= {tuple(a ^ b for a, b in zip(p, v, strict=True)) for p in points}
    return points


@pytest.mark.parametrize("seed", range(30))
def test_free_bits_are_exactly_the_dependent_bases(seed: int, lt) -> None:
    layout = lt.random_layout(random.Random(seed), shape=(4, 8))
    earlier: list[tuple[int, ...]] = []
    for dim in ("register", "lane", "warp"):
        expected = []
        for bit, vector in enumerate(layout.bases[dim]):
            if vector in brute_span(earlier) or not any(vector):
                expected.append(bit)
            earlier.append(vector)
        assert layout.free_bits(dim) == tuple(expected)
        assert layout.free_mask(dim) == sum(1 << b for b in expected)
        assert set(layout.zero_bits(dim)) <= set(expected)


def test_injective_modulo_broadcast() -> None:
    assert EXAMPLE.project(0).is_injective_modulo_broadcast()
    dup = LinearLayout({"register": [(1,)], "lane": [(1,)]}, (2,))  # lane 1 reshuffles
    assert dup.free_bits("lane") == (0,) and not dup.is_injective_modulo_broadcast()


@pytest.mark.parametrize("seed", range(40))
def test_invert_gives_owner_preimage(seed: int, lt) -> None:
    layout = lt.random_layout(random.Random(seed), surjective=True)
    inverse = layout.invert()
    assert inverse.in_dims == tuple(f"dim{i}" for i in range(layout.ndim))
    assert inverse.out_dims == ("register", "lane", "warp")
    for coord in itertools.islice(np.ndindex(*layout.shape), 256):
        slot = inverse.apply(*coord)
        assert layout.apply(*slot) == coord
        assert layout.is_owner(*slot)
    identity = LinearMap.identity(dict(zip(inverse.in_dims, layout.shape, strict=True)))
    assert layout.compose(inverse) == identity
    if layout.is_bijective():
        assert inverse.compose(layout) == LinearMap.identity(
            {"register": layout.num_registers, "lane": layout.num_lanes, "warp": layout.num_warps}
        )


def test_invert_rejects_non_surjective() -> None:
    with pytest.raises(ValueError, match="surjective"):
        LinearLayout({"lane": [(1, 0)]}, (2, 2)).invert()


@pytest.mark.parametrize("seed", range(20))
def test_compose_is_function_composition(seed: int, lt) -> None:
    rng = random.Random(seed)
    outer = lt.random_layout(rng, shape=(8, 4))
    hw = {"register": outer.num_registers, "lane": outer.num_lanes, "warp": outer.num_warps}
    inner = LinearMap({"x": [tuple(rng.randrange(s) for s in hw.values()) for _ in range(3)]}, hw)
    composed = outer.compose(inner)
    assert composed.in_dims == ("x",) and composed.out_sizes == (8, 4)
    for x in range(8):
        assert composed.apply(x) == outer.apply(*inner.apply(x))
    with pytest.raises(ValueError, match="cannot compose"):
        inner.compose(outer)


def shuffled_registers(layout: LinearLayout, rng: random.Random) -> LinearLayout:
    """Same layout with register bits permuted and mixed (an invertible register map)."""
    regs = list(layout.bases["register"])
    rng.shuffle(regs)
    for i in range(1, len(regs)):
        j = rng.randrange(i)
        if rng.random() < 0.5:
            regs[i] = tuple(a ^ b for a, b in zip(regs[i], regs[j], strict=True))
    return LinearLayout({**layout.bases, "register": regs}, layout.shape)


@pytest.mark.parametrize("seed", range(40))
def test_register_permutation_found_for_register_reorderings(seed: int, lt) -> None:
    rng = random.Random(seed)
    src = lt.random_layout(rng)
    dst = shuffled_registers(src, rng)
    perm = src.register_permutation_to(dst)
    assert perm is not None and len(perm) == dst.num_registers
    table_src, table_dst = lt.all_coords(src), lt.all_coords(dst)
    assert np.array_equal(table_dst, table_src[:, :, list(perm)])
    if src.is_injective():
        assert sorted(perm) == list(range(src.num_registers))


def test_register_permutation_none_when_threads_hold_different_data() -> None:
    swapped = LinearLayout(
        {**EXAMPLE.bases, "lane": [(0, 4), (0, 8), (0, 16), (1, 0), (0, 32)]}, EXAMPLE.shape
    )
    assert EXAMPLE.register_permutation_to(swapped) is None
    moved = LinearLayout(
        {
            "register": [(0, 1), (0, 4)],
            "lane": [(0, 2), (0, 8), (0, 16), (0, 32), (1, 0)],
            "warp": [(2, 0)],
        },
        EXAMPLE.shape,
    )
    assert EXAMPLE.register_permutation_to(moved) is None  # same span, other threads
    assert EXAMPLE.register_permutation_to(EXAMPLE.reshape((256,))) is None
    other_warp = LinearLayout({**EXAMPLE.bases, "warp": [(0, 0)]}, EXAMPLE.shape)
    assert EXAMPLE.register_permutation_to(other_warp) is None
    assert EXAMPLE.register_permutation_to(EXAMPLE) == (0, 1, 2, 3)
    swapped_regs = LinearLayout({**EXAMPLE.bases, "register": [(0, 2), (0, 1)]}, EXAMPLE.shape)
    assert EXAMPLE.register_permutation_to(swapped_regs) == (0, 2, 1, 3)
