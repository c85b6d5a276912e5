"""Conversions inside warps (layout level): the shuffle plan's source of every slot holds the
element the slot needs, for random layouts and random in-warp re-dealings of them."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilelang.layout import (
    ConversionKind,
    LinearLayout,
    default_blocked,
    lane_shuffle,
    plan_conversion,
)
from tilelang.layout.conversion import MAX_SHUFFLE_ROUNDS
from tilelang.testing.conversions import random_layout, warp_local_layout


def check_plan(src: LinearLayout, dst: LinearLayout) -> None:
    plan = lane_shuffle(src, dst)
    assert plan is not None
    for warp in range(dst.num_warps):
        for lane in range(dst.num_lanes):
            for register in range(dst.num_registers):
                r, from_lane = plan.source(register, lane)
                assert src.apply(r, from_lane, warp) == dst.apply(register, lane, warp)
                if plan.reads_own_lane(register):
                    assert from_lane == lane


shapes = st.sampled_from([(1,), (32,), (256,), (16, 16), (64, 32), (4, 8, 16), (2, 128)])


@settings(max_examples=150, deadline=None)
@given(shapes, st.sampled_from([1, 2, 4]), st.booleans(), st.integers(0, 2**32))
def test_in_warp_redealings_have_a_correct_shuffle_plan(shape, warps, lanes_only, seed):
    rng = random.Random(seed)
    src = random_layout(rng, shape, warps)
    dst = warp_local_layout(rng, src, lanes_only)
    check_plan(src, dst)
    if lanes_only:  # every register from one source register: one shuffle round
        assert lane_shuffle(src, dst).register_choices() == (0,)


@settings(max_examples=150, deadline=None)
@given(shapes, st.sampled_from([1, 2, 4]), st.integers(0, 2**32))
def test_any_plan_found_for_random_pairs_is_correct(shape, warps, seed):
    rng = random.Random(seed)
    src, dst = random_layout(rng, shape, warps), random_layout(rng, shape, warps)
    if lane_shuffle(src, dst) is not None:
        check_plan(src, dst)


def test_crossing_warps_has_no_shuffle_plan():
    rows = default_blocked((64, 64), 4, 4)
    assert lane_shuffle(rows, rows) is not None
    transposed = LinearLayout({d: [tuple(reversed(v)) for v in vs] for d, vs in
                               rows.bases.items()}, rows.shape)
    assert lane_shuffle(rows, transposed) is None  # warps hold other elements


def test_plan_conversion_prefers_shuffles_over_shared_memory():
    rng = random.Random(7)
    src = random_layout(rng, (32, 32), 4)
    dst = warp_local_layout(rng, src, lanes_from_lanes=True)
    plan = plan_conversion(src, dst)
    assert plan.kind in (ConversionKind.WARP_SHUFFLE, ConversionKind.REGISTER_PERMUTATION)
    assert plan.shared_bytes(4) == 0


@pytest.mark.parametrize("seed", range(20))
def test_rounds_beyond_the_limit_go_through_shared_memory(seed):
    rng = random.Random(seed)
    src = random_layout(rng, (64, 64), 2, mix=False)
    dst = warp_local_layout(rng, src, lanes_from_lanes=False)
    plan = plan_conversion(src, dst)
    shuffle = lane_shuffle(src, dst)
    assert shuffle is not None
    rounds = len(shuffle.register_choices())
    if src == dst:
        assert plan.kind is ConversionKind.IDENTICAL
    elif plan.kind is not ConversionKind.REGISTER_PERMUTATION:
        want = (ConversionKind.WARP_SHUFFLE if rounds <= MAX_SHUFFLE_ROUNDS
                else ConversionKind.SHARED_MEMORY)
        assert plan.kind is want
