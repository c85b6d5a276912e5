"""Conversion plans, shared-memory staging and per-thread ownership enumeration."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tilelang.layout import (
    ConversionKind,
    LinearLayout,
    blocked,
    default_blocked,
    element_coords,
    iter_slots,
    owned_elements,
    owned_registers,
    plan_conversion,
    register_representatives,
    shared_bytes,
    shared_offset,
    shared_offset_bases,
)


def test_identical_plan() -> None:
    layout = default_blocked((64, 64), 4, 4)
    plan = plan_conversion(layout, default_blocked((64, 64), 4, 4))
    assert plan.kind is ConversionKind.IDENTICAL and plan.register_map is None
    assert plan.shared_bytes(4) == 0


def test_register_permutation_plan_moves_data_correctly(lt) -> None:
    src = default_blocked((32, 64), 2, 4)
    regs = list(src.bases["register"])
    dst = LinearLayout({**src.bases, "register": regs[::-1]}, src.shape)
    plan = plan_conversion(src, dst)
    assert plan.kind is ConversionKind.REGISTER_PERMUTATION
    assert plan.register_map is not None and plan.shared_bytes(2) == 0
    assert np.array_equal(lt.all_coords(dst), lt.all_coords(src)[:, :, list(plan.register_map)])


def test_shared_memory_plan_for_transposed_thread_mapping() -> None:
    rows = blocked((64, 64), (1, 4), (2, 16), (4, 1), (1, 0))
    cols = blocked((64, 64), (4, 1), (16, 2), (1, 4), (0, 1))
    plan = plan_conversion(rows, cols)
    assert plan.kind is ConversionKind.SHARED_MEMORY and plan.register_map is None
    assert plan.shared_bytes(2) == 64 * 64 * 2
    with pytest.raises(ValueError, match="shapes"):
        plan_conversion(rows, rows.reshape((4096,)))


def test_shared_offsets_are_row_major_and_xor_linear(lt) -> None:
    assert shared_offset((3, 5), (4, 8)) == 29 and shared_bytes((4, 8), 4) == 128
    with pytest.raises(ValueError, match="elem_bytes"):
        shared_bytes((4,), 0)
    rng = random.Random(0)
    for _ in range(20):
        layout = lt.random_layout(rng)
        bases = shared_offset_bases(layout)
        for r, ln, w in list(iter_slots(layout))[::7]:
            offset = 0
            for dim, index in (("register", r), ("lane", ln), ("warp", w)):
                for bit, part in enumerate(bases[dim]):
                    offset ^= part if index >> bit & 1 else 0
            assert offset == shared_offset(layout.apply(r, ln, w), layout.shape)


def test_element_coords_and_iter_slots() -> None:
    layout = default_blocked((8, 32), 2, 4)
    slots = list(iter_slots(layout))
    assert len(slots) == layout.num_registers * 32 * 2 and len(set(slots)) == len(slots)
    assert element_coords(layout, 3, 1) == tuple(
        layout.apply(r, 3, 1) for r in range(layout.num_registers)
    )
    assert element_coords(layout, 0, 0)[:4] == ((0, 0), (0, 1), (0, 2), (0, 3))


def replicated_layouts(seed: int, lt) -> list[LinearLayout]:
    rng = random.Random(seed)
    base = default_blocked((16, 64), rng.choice([1, 2, 4, 8]), rng.choice([1, 2, 4, 8]))
    return [
        lt.random_layout(rng),
        base,
        base.project(1),
        base.project(0),
        base.broadcast_operand((64,)),
        default_blocked((2, 2), 4, 4),
    ]


@pytest.mark.parametrize("seed", range(15))
def test_owned_elements_store_every_held_element_exactly_once(seed: int, lt) -> None:
    for layout in replicated_layouts(seed, lt):
        regs = owned_registers(layout)
        stores: dict[tuple[int, ...], int] = {}
        for warp in range(layout.num_warps):
            for lane in range(layout.num_lanes):
                for register, coord in owned_elements(layout, lane, warp):
                    assert register in regs
                    stores[coord] = stores.get(coord, 0) + 1
        held = lt.holder_counts(layout) > 0
        assert len(stores) == held.sum() and set(stores.values()) == {1}
        # Owned registers of one thread never repeat an element that thread holds.
        coords = element_coords(layout, 0, 0)
        assert len({coords[r] for r in regs}) == len(regs)
        assert {coords[r] for r in regs} == set(coords)


def test_owned_registers_skips_in_thread_duplicates() -> None:
    layout = default_blocked((16, 64), 4, 4).project(1)  # vector registers now all alike
    assert owned_registers(layout) == tuple(r for r in range(layout.num_registers) if r % 4 == 0)
    assert owned_registers(default_blocked((16, 64), 4, 4)) == tuple(range(8))


def test_register_representatives_point_repeats_at_their_first_copy() -> None:
    """A bias row broadcast into a wgmma accumulator's layout: its zero register bases make
    registers repeat elements; each repeat points at the first register holding its element
    (the same for every thread), and no two representatives hold the same element."""
    from tilelang.layout.wgmma import accumulator_layout

    row = accumulator_layout(128, 128, 4).broadcast_operand((1, 128))
    reps = register_representatives(row)
    assert len(reps) == row.num_registers
    for lane, warp in ((0, 0), (5, 1), (31, 3)):
        coords = element_coords(row, lane, warp)
        assert all(coords[r] == coords[first] and first <= r for r, first in enumerate(reps))
        firsts = sorted(set(reps))
        assert len({coords[r] for r in firsts}) == len(firsts)
    assert len(set(reps)) == 32  # 32 columns a thread, 128 register slots
    plain = default_blocked((16, 64), 4, 4)
    assert register_representatives(plain) == tuple(range(plain.num_registers))
