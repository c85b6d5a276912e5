"""Warp specialization on the CPU (simt/warp_specialize.py): which kernels get a producer
warpgroup for their TMA rings, and the code it takes (PTX through ptxas)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tilelang as ct
from tilelang.testing.kernels import make_matmul, make_persistent_matmul, make_two_products

BF16 = ml_dtypes.bfloat16
STAGES_64x256 = 5  # 40 KB stages (64x64 + 64x256 bf16) past the column sums' buffer


def two_products_args(tile):
    m, n, k, k2 = 300, 520, 1000, 200
    shapes = ((m, k), (k, n), (m, k2), (k2, n), (m, n), (m, n))
    return (*(np.zeros(s, BF16) for s in shapes), *tile)


def test_a_gemm_gets_a_producer_warpgroup():
    """Four more warps: the producer's registers go to the consumers (setmaxnreg), it alone
    issues the TMA boxes (one loop: 2 operands x their 128-byte panels), and the consumers'
    block barriers are named barrier 1 over their 256 threads."""
    a, b, c = (np.zeros((1000, 1000), BF16) for _ in range(3))
    compiled = ct.compile(make_matmul(8), (a, b, c, 128, 128, 64), arch="sm_90")
    ptx = compiled.ptx
    assert compiled.block_threads == 384 and ".reqntid 384, 1, 1" in ptx
    assert "setmaxnreg.dec.sync.aligned.u32 \t40" in ptx
    assert "setmaxnreg.inc.sync.aligned.u32 \t232" in ptx
    # 64 columns a panel: a 1, b 2
    assert ptx.count("cp.async.bulk.tensor.2d.shared::cluster") == 1 + 2
    assert "bar.sync \t1, 256" in ptx and "bar.sync \t0;" in ptx  # after the barriers' init
    assert compiled.resources().spill_stores == 0


def test_loops_share_one_ring_past_the_earlier_buffers():
    """Two K loops, one ring: the producer runs both loops' copies; the column sums before
    them use shared memory, which the ring lies past."""
    compiled = ct.compile(make_two_products(4), two_products_args((64, 256, 64)),
                          arch="sm_90")
    ptx = compiled.ptx
    assert compiled.block_threads == 256
    assert ptx.count("cp.async.bulk.tensor.2d.shared::cluster") == 2 * (1 + 4)
    assert ptx.count("mbarrier.inval") == 2 * STAGES_64x256


def test_thread0_fills_the_ring_when_it_does_not_fit_past_the_earlier_buffers():
    """At 128x128x64 the ring takes the block's shared memory: past the column sums' buffer
    it would not fit, so thread 0 fills it as without specialization."""
    compiled = ct.compile(make_two_products(8), two_products_args((128, 128, 64)),
                          arch="sm_90")
    assert compiled.block_threads == 256 and "setmaxnreg" not in compiled.ptx


@pytest.mark.parametrize(("case", "env", "warps", "tile", "occupancy"), [
    ("switched off", "0", 8, (128, 128, 64), None),
    # 128 of each thread's registers hold the accumulator: with a producer warpgroup ptxas
    # would cap them at 168 (it compiles every warp under the launch's share), without at 255
    ("128x256 over 8 warps", "1", 8, (128, 256, 64), None),
])
def test_kernels_without_a_producer_warpgroup(monkeypatch, case, env, warps, tile, occupancy):
    monkeypatch.setenv("TILELANG_WARP_SPECIALIZE", env)
    a, b, c = (np.zeros((1000, 1000), BF16) for _ in range(3))
    kernel = make_matmul(warps)
    if occupancy:
        kernel = kernel.replace_hints(occupancy=occupancy)
    compiled = ct.compile(kernel, (a, b, c, *tile), arch="sm_90")
    assert compiled.block_threads == 32 * warps, case
    assert "cp.async.bulk.tensor" in compiled.ptx and "bar.sync \t1," not in compiled.ptx


def test_two_blocks_an_sm_get_a_producer_warp():
    """At occupancy 2 the producer is one warp and keeps the launch's registers (setmaxnreg
    moves registers only within a block, and ptxas compiles every warp under the launch's
    share: 168 at 5 warps a block, two blocks an SM)."""
    a, b, c = (np.zeros((1000, 1000), BF16) for _ in range(3))
    kernel = make_matmul(4).replace_hints(occupancy=2)
    compiled = ct.compile(kernel, (a, b, c, 128, 128, 64), arch="sm_90")
    assert compiled.block_threads == 160 and "setmaxnreg" not in compiled.ptx
    assert "bar.sync \t1, 128" in compiled.ptx or "bar.sync \t0;" in compiled.ptx
    resources = compiled.resources()
    assert resources.blocks_per_sm == 2 and resources.registers <= 168


def test_one_consumer_warpgroup_keeps_its_registers():
    """4 consumer warps and the producer's 4: each thread's share of the register file is
    already the most it may use, so no setmaxnreg."""
    a, b, c = (np.zeros((1000, 1000), BF16) for _ in range(3))
    compiled = ct.compile(make_matmul(4), (a, b, c, 64, 128, 64), arch="sm_90")
    assert compiled.block_threads == 256 and "setmaxnreg" not in compiled.ptx


def test_an_operand_with_rows_one_element_apart_is_read_through_its_view(monkeypatch):
    """A K = 1 A operand's rows are 2 bytes apart: neither TMA (16-byte row pitches) nor
    cp.async (16-byte chunks) can copy them. Its one column is contiguous (a dimension of size
    1 is not the contiguous one), so tile-row-major-views reads it as one row of M, staged
    M-major through the parameter's map in the view's order; its B, one row of contiguous
    elements, is staged by TMA (the maps: the first loop's two operands', a2's view, that B's,
    and the result's, stored by TMA; parameters 0, 5, 10, 15, 20, 25 are a, b, a2, b2, bias,
    c). Without the views it stays in registers."""
    args = two_products_args_k(1, (64, 256, 64))
    maps = ct.compile(make_two_products(4), args, arch="sm_90").metadata["tensor_maps"]
    assert [(m["array_param"], m["order"]) for m in maps] == \
        [(0, None), (5, None), (10, [1, 0]), (15, None), (25, None)]
    monkeypatch.setenv("TILELANG_ROW_MAJOR_VIEWS", "0")
    maps = ct.compile(make_two_products(4), args, arch="sm_90").metadata["tensor_maps"]
    assert [m["array_param"] for m in maps] == [0, 5, 15, 25]


def two_products_args_k(k2, tile):
    m, n, k = 129, 320, 64
    shapes = ((m, k), (k, n), (m, k2), (k2, n), (m, n), (m, n))
    return (*(np.zeros(s, BF16) for s in shapes), *tile)


@pytest.mark.parametrize(("tile", "stages"), [((128, 128, 64), 6)])
def test_a_persistent_kernel_keeps_one_ring_across_its_tiles(tile, stages):
    """The K loop sits in a loop over tiles: the producer replays that loop (its bounds and the
    tile indices, lowered again), the ring's count runs on from tile to tile, and the ring lies
    past the epilogue's TMA store buffer; its barriers are invalidated once, after the
    tiles."""
    a = np.zeros((1000, 1000), BF16)
    compiled = ct.compile(make_persistent_matmul(8), (a, a, a, *tile, 8), arch="sm_90")
    ptx = compiled.ptx
    assert compiled.block_threads == 384 and ptx.count("setmaxnreg") == 2
    assert ptx.count("mbarrier.inval") == 2 * stages
    assert compiled.resources().spill_stores == 0


def test_warpgroups_take_turns_through_two_named_barriers(monkeypatch):
    """TILELANG_PING_PONG=1 (off by default: no steady gain measured; docs/compiler.md): each
    consumer warpgroup waits at its own named barrier (2 or 3, written out, so ptxas reserves
    4 barriers, not all 16) before the product that ends its turn, in a loop whose back edge
    is never taken (ptxas would hoist a bare wait above the softmax), and arrives at the
    other's after the one that starts it."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "samples"))
    import attention

    monkeypatch.setenv("TILELANG_PING_PONG", "1")
    q = np.zeros((1, 2, 300, 128), BF16)
    kernel = attention.flash_attention.replace_hints(num_warps=8)
    ptx = ct.compile(kernel, (q, q, q, q, 0.1, False, 128, 128, 128), arch="sm_90").ptx
    for barrier in (2, 3):
        assert f"bar.sync {barrier}, 256;" in ptx and f"bar.arrive {barrier}, 256;" in ptx
    assert "bar.sync \t%r" not in ptx and "bar.arrive %r" not in ptx
    assert ptx.count("TURN_WAIT:") == ptx.count("@p bra TURN_WAIT;") >= 2


def test_no_turns_by_default(monkeypatch):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "samples"))
    import attention

    monkeypatch.delenv("TILELANG_PING_PONG", raising=False)
    q = np.zeros((1, 2, 300, 128), BF16)
    kernel = attention.flash_attention.replace_hints(num_warps=8)
    ptx = ct.compile(kernel, (q, q, q, q, 0.1, False, 128, 128, 128), arch="sm_90").ptx
    assert "setmaxnreg" in ptx and "bar.sync 2" not in ptx and "bar.arrive 2" not in ptx


@pytest.mark.parametrize(("threads", "occupancy", "share"), [
    (384, 1, 168),  # 8 consumer warps and a producer warpgroup
    (256, 1, 255),  # 8 warps alone: the most a thread may have
    (288, 2, 96),  # 8 + 1 warps, two blocks: 5 warps a scheduler
    (160, 2, 168),  # 4 + 1 warps, two blocks: 3 warps a scheduler
    (384, 2, 80),
])
def test_launch_share_counts_warps_per_scheduler(threads, occupancy, share):
    """What ptxas caps every warp's registers at: a quarter of the register file per
    scheduler, over the warps placed on it (so 9 warps a block cost what 12 do)."""
    from tilelang.passes.ir_utils import launch_share

    assert launch_share(threads, occupancy) == share


@pytest.mark.parametrize("consumer_warps", [4, 8, 12, 16, 20, 24, 28])
@pytest.mark.parametrize("producer", [24, 40, 56, 96, 128])
def test_setmaxnreg_stays_within_the_launch_allocation(consumer_warps, producer):
    """What the consumers ask for is what the producer frees, within the registers the launch
    gave the block: more, and their setmaxnreg.inc waits forever."""
    from tilelang.passes.ir_utils import launch_share
    from tilelang.passes.simt.warp_specialize import PRODUCER_WARPS, setmaxnreg_split

    consumer, kept = setmaxnreg_split(consumer_warps, PRODUCER_WARPS, producer)
    threads = 32 * (consumer_warps + PRODUCER_WARPS)
    share = launch_share(threads, 1)
    if consumer == 0:
        assert kept == 0
        return
    assert kept == producer and consumer % 8 == 0 and share < consumer <= 255
    assert 32 * (consumer_warps * consumer + PRODUCER_WARPS * producer) <= share * threads


def test_setmaxnreg_of_eight_consumer_warps():
    """The split every 128 x 128 warp-specialized kernel takes (40 for the producer)."""
    from tilelang.passes.simt.warp_specialize import setmaxnreg_split

    assert setmaxnreg_split(8, 4, 40) == (232, 40)
    assert setmaxnreg_split(8, 4, 96) == (200, 96)
