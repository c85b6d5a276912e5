"""GF(2) linear algebra checked against brute-force span enumeration."""

from __future__ import annotations

import random

import pytest

from tilelang.layout import gf2


def span(vectors: list[int]) -> set[int]:
    points = {0}
    for v in vectors:
        points |= {p ^ v for p in points}
    return points


def random_vectors(rng: random.Random, count: int, bits: int) -> list[int]:
    # Bias towards repeats and zeros so that dependent vectors are common.
    pool = [rng.randrange(1 << bits) for _ in range(max(1, count // 2))] + [0]
    return [
        rng.choice(pool) if rng.random() < 0.3 else rng.randrange(1 << bits) for _ in range(count)
    ]


@pytest.mark.parametrize("seed", range(40))
def test_rank_and_dependent_flags_match_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    vectors = random_vectors(rng, rng.randint(0, 9), rng.randint(1, 7))
    assert gf2.rank(vectors) == len(span(vectors)).bit_length() - 1
    flags = gf2.dependent_flags(vectors)
    for i, v in enumerate(vectors):
        assert flags[i] == (v in span(vectors[:i]))


@pytest.mark.parametrize("seed", range(40))
def test_solve_returns_canonical_solution(seed: int) -> None:
    rng = random.Random(1000 + seed)
    bits = rng.randint(1, 6)
    vectors = random_vectors(rng, rng.randint(1, 8), bits)
    flags = gf2.dependent_flags(vectors)
    reachable = span(vectors)
    for target in range(1 << bits):
        combo = gf2.solve(vectors, target)
        if target not in reachable:
            assert combo is None
            continue
        assert combo is not None
        assert gf2.matvec(vectors, combo) == target
        # Only independent vectors are used, so owners are unique.
        assert all(not flags[i] for i in range(len(vectors)) if combo >> i & 1)


@pytest.mark.parametrize("bits", range(1, 9))
def test_inverse_of_random_square_matrices(bits: int) -> None:
    rng = random.Random(bits)
    identity = tuple(1 << i for i in range(bits))
    seen_singular = seen_regular = False
    for _ in range(60):
        m = random_vectors(rng, bits, bits)
        if gf2.rank(m) < bits:
            seen_singular = True
            with pytest.raises(ValueError, match="singular"):
                gf2.inverse(m, bits)
            continue
        seen_regular = True
        inv = gf2.inverse(m, bits)
        assert gf2.matmul(m, inv) == identity
        assert gf2.matmul(inv, m) == identity
    assert seen_regular and (seen_singular or bits == 1)


def test_inverse_rejects_non_square() -> None:
    with pytest.raises(ValueError, match="not 2x2"):
        gf2.inverse([1, 2, 3], 2)
    with pytest.raises(ValueError, match="not 2x2"):
        gf2.inverse([1, 4], 2)


def test_pseudo_inverse_is_right_inverse() -> None:
    rng = random.Random(7)
    for _ in range(100):
        bits = rng.randint(1, 6)
        m = random_vectors(rng, rng.randint(bits, bits + 4), bits)
        if gf2.rank(m) < bits:
            with pytest.raises(ValueError, match="not surjective"):
                gf2.pseudo_inverse(m, bits)
            continue
        right = gf2.pseudo_inverse(m, bits)
        assert gf2.matmul(m, right) == tuple(1 << i for i in range(bits))


def test_matvec_and_matmul_small_example() -> None:
    m = [0b01, 0b11]  # columns
    assert [gf2.matvec(m, x) for x in range(4)] == [0, 0b01, 0b11, 0b10]
    assert gf2.matmul(m, m) == (0b01, 0b10)
